/**
 * Writing an SMS: the type (text or binary), the content with a live counter (0 / 140 characters or octets, the same
 * rule the server applies: common/sms.ts) and the rule it breaks as it is typed; and the reply dialog of a device's
 * message, which uses it.
 */
import { App, Form, Input, Modal, Radio, Tag, Typography } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { checkSmsContent, showCharacter, smsLength, smsLimit, type SmsType } from '../../../common/sms';
import { api } from '../../providers/http';
import type { SendResult, SmsRow } from './sms-types';

/** The problem of content as typed, in the person's words; empty content says nothing until it is sent. */
export function useContentProblem(content: string, type: SmsType): string | null {
  const { t } = useTranslation();
  if (!content) return null;
  const c = checkSmsContent(content, type);
  if (c.ok) return null;
  const rule = c.rule === 'tooLong' && type === 'binary' ? 'tooLongBinary' : c.rule;
  return t(`errors.sms.content.${rule}`, { length: c.length, limit: c.limit, characters: (c.offenders ?? []).slice(0, 5).map(showCharacter).join(' ') });
}

export function SmsTypeField({ value, onChange }: { value: SmsType; onChange: (v: SmsType) => void }) {
  const { t } = useTranslation();
  return (
    <Form.Item label={t('sms.type')}>
      <Radio.Group value={value} onChange={(e) => onChange(e.target.value as SmsType)} optionType="button" aria-label={t('sms.type')}>
        <Radio.Button value="text">{t('sms.smsType.text')}</Radio.Button>
        <Radio.Button value="binary">{t('sms.smsType.binary')}</Radio.Button>
      </Radio.Group>
    </Form.Item>
  );
}

/** The content with its live counter and what is wrong with it. */
export function SmsContentField({ value, onChange, type }: { value: string; onChange: (v: string) => void; type: SmsType }) {
  const { t } = useTranslation();
  const problem = useContentProblem(value, type);
  const check = checkSmsContent(value, type);
  const n = smsLength(value, type);
  const max = smsLimit(type);
  return (
    <Form.Item
      label={t('sms.content')}
      required
      validateStatus={problem ? 'error' : undefined}
      help={problem ?? (type === 'binary' ? t('sms.contentHelpBinary') : t('sms.contentHelpText'))}
      extra={
        <span style={{ display: 'flex', justifyContent: 'space-between', gap: 8 }}>
          <span aria-live="polite" data-testid="sms-counter">
            {t(type === 'binary' ? 'sms.counterBinary' : 'sms.counterText', { n, max })}
          </span>
          {check.ok && <Tag>{t(`sms.encoding.${check.encoding}`)}</Tag>}
        </span>
      }
    >
      <Input.TextArea
        aria-label={t('sms.content')}
        value={value}
        onChange={(e) => onChange(e.target.value)}
        autoSize={{ minRows: 3, maxRows: 8 }}
        style={type === 'binary' ? { fontFamily: 'ui-monospace, monospace' } : undefined}
      />
    </Form.Item>
  );
}

/** Answer a device's message: its SIM, what it said, and the reply. */
export function ReplyDialog({ row, onClose, onSent }: { row: SmsRow | null; onClose: () => void; onSent: () => void }) {
  const { t } = useTranslation();
  const { message } = App.useApp();
  const [type, setType] = useState<SmsType>('text');
  const [content, setContent] = useState('');
  const [busy, setBusy] = useState(false);
  const close = () => {
    setContent('');
    onClose();
  };
  const send = async () => {
    if (!row) return;
    setBusy(true);
    try {
      const r = await api<SendResult>('POST', '/api/main/sms/reply', { id: row.id, smsType: type, content });
      const first = r.results[0];
      if (first?.ok) void message.success(t('sms.replySent'));
      else void message.error(t('sms.replyRefused', { reason: first?.message ?? '' }));
      onSent();
      close();
    } catch {
      // The HTTP helper shows the server's reason.
    } finally {
      setBusy(false);
    }
  };
  return (
    <Modal
      open={!!row}
      title={row ? t('sms.replyTitle', { iccid: row.iccid }) : ''}
      okText={t('sms.submit')}
      cancelText={t('sms.cancel')}
      onOk={() => void send()}
      okButtonProps={{ disabled: !checkSmsContent(content, type).ok, loading: busy }}
      onCancel={close}
      destroyOnHidden
    >
      {row && (
        <Typography.Paragraph type="secondary" ellipsis={{ rows: 2 }}>
          {t('sms.replyTo', { content: row.content })}
        </Typography.Paragraph>
      )}
      <Form layout="vertical">
        <SmsTypeField value={type} onChange={setType} />
        <SmsContentField value={content} onChange={setContent} type={type} />
      </Form>
    </Modal>
  );
}
