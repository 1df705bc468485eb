/**
 * Send an SMS (POST /sms/send, multipart as SPEC.md section 7 says): to pasted ICCIDs (one per line, at most 1000;
 * ICCIDs picked in the SIM list arrive here), to a file made from the send template, or to numbers in international
 * format; text or binary with its live counter; the quota balance beside the form; afterwards, SIM by SIM, what was
 * refused and why.
 */
import { DownloadOutlined, UploadOutlined } from '@ant-design/icons';
import { Alert, Button, Drawer, Form, Input, Result, Segmented, Space, Table, Upload, type UploadFile } from 'antd';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { LIMITS } from '../../../common/limits';
import { checkSmsContent, type SmsType } from '../../../common/sms';
import { download, saveFile, upload } from '../../providers/http';
import { SmsContentField, SmsTypeField } from './sms-compose';
import type { Quota, SendResult } from './sms-types';
import { TextStatistic } from '../../components/text-statistic';
import { formatNumber } from '../../../common/numbers';

type Target = 'iccids' | 'file' | 'msisdns';
const lines = (text: string) =>
  text
    .split(/[\s,;]+/)
    .map((s) => s.trim())
    .filter(Boolean);

export function SendDrawer({
  open,
  preset,
  quota,
  onClose,
  onSent,
}: {
  open: boolean;
  preset: string[];
  quota: Quota | null;
  onClose: () => void;
  onSent: () => void;
}) {
  const { t, i18n } = useTranslation();
  const [target, setTarget] = useState<Target>('iccids');
  const [iccids, setIccids] = useState('');
  const [msisdns, setMsisdns] = useState('');
  const [file, setFile] = useState<UploadFile | null>(null);
  const [type, setType] = useState<SmsType>('text');
  const [content, setContent] = useState('');
  const [busy, setBusy] = useState(false);
  const [result, setResult] = useState<SendResult | null>(null);
  useEffect(() => {
    if (open && preset.length) {
      setTarget('iccids');
      setIccids(preset.join('\n'));
    }
  }, [open, preset]);

  const count = target === 'iccids' ? new Set(lines(iccids)).size : target === 'msisdns' ? new Set(lines(msisdns)).size : file ? 1 : 0;
  const ready = count >= 1 && count <= LIMITS.iccidList && checkSmsContent(content, type).ok;
  const reset = () => {
    setResult(null);
    setContent('');
  };
  const send = async () => {
    const form = new FormData();
    form.append('smsType', type);
    form.append('content', content);
    if (target === 'iccids') form.append('iccids', lines(iccids).join('\n'));
    if (target === 'msisdns') form.append('msisdns', lines(msisdns).join('\n'));
    if (target === 'file' && file?.originFileObj) form.append('file', file.originFileObj, file.name);
    setBusy(true);
    try {
      setResult(await upload<SendResult>('/api/main/sms/send', form));
      onSent();
    } catch {
      // The HTTP helper shows the server's reason (content, numbers, too many SIMs).
    } finally {
      setBusy(false);
    }
  };
  const template = async () => saveFile(await download('GET', '/api/main/sms/sendTemplate?format=xlsx'), 'sms-send-template.xlsx');
  const n = (v: number) => formatNumber(v, i18n.language);
  const refused = result?.results.filter((r) => !r.ok) ?? [];

  return (
    <Drawer
      open={open}
      onClose={onClose}
      title={t('sms.sendTitle')}
      width={560}
      destroyOnHidden={false}
      extra={
        quota && (
          <TextStatistic
            title={t('sms.balance')}
            value={n(quota.remaining)}
            valueStyle={{ fontSize: 16 }}
            suffix={<span style={{ fontSize: 12 }}> / {n(quota.quota)}</span>}
          />
        )
      }
    >
      {result ? (
        <>
          <Result
            status={result.refused === 0 ? 'success' : result.accepted === 0 ? 'error' : 'warning'}
            title={t('sms.result.summary', { accepted: n(result.accepted), refused: n(result.refused) })}
            subTitle={result.refused === 0 ? t('sms.result.allSent') : undefined}
            extra={[
              <Button key="again" onClick={reset}>
                {t('sms.result.sendAnother')}
              </Button>,
              <Button key="done" type="primary" onClick={() => (reset(), onClose())}>
                {t('sms.result.done')}
              </Button>,
            ]}
          />
          {refused.length > 0 && (
            <Table
              size="small"
              rowKey={(r) => `${r.iccid}-${r.msisdn ?? ''}`}
              aria-label={t('sms.result.refusals')}
              title={() => t('sms.result.refusals')}
              dataSource={refused}
              pagination={refused.length > 10 ? { pageSize: 10, showSizeChanger: false } : false}
              columns={[
                {
                  title: t('sms.result.target'),
                  key: 'target',
                  render: (_, r) => <span style={{ fontFamily: 'ui-monospace, monospace' }}>{r.msisdn || r.iccid}</span>,
                },
                { title: t('sms.result.reason'), dataIndex: 'message' },
              ]}
            />
          )}
        </>
      ) : (
        <Form layout="vertical" onFinish={() => void send()}>
          <Form.Item label={t('sms.target.label')}>
            <Segmented<Target>
              value={target}
              onChange={setTarget}
              options={(['iccids', 'file', 'msisdns'] as const).map((v) => ({ value: v, label: t(`sms.target.${v}`) }))}
            />
          </Form.Item>
          {target === 'iccids' && (
            <Form.Item
              label={t('sms.target.iccids')}
              help={t('sms.target.iccidsHelp')}
              extra={t('sms.target.count', { n: n(count), max: n(LIMITS.iccidList) })}
              validateStatus={count > LIMITS.iccidList ? 'error' : undefined}
            >
              <Input.TextArea
                aria-label={t('sms.target.iccids')}
                value={iccids}
                onChange={(e) => setIccids(e.target.value)}
                autoSize={{ minRows: 3, maxRows: 8 }}
                style={{ fontFamily: 'ui-monospace, monospace' }}
              />
            </Form.Item>
          )}
          {target === 'msisdns' && (
            <Form.Item
              label={t('sms.target.msisdns')}
              help={t('sms.target.msisdnsHelp')}
              extra={t('sms.target.count', { n: n(count), max: n(LIMITS.iccidList) })}
            >
              <Input.TextArea
                aria-label={t('sms.target.msisdns')}
                value={msisdns}
                onChange={(e) => setMsisdns(e.target.value)}
                autoSize={{ minRows: 3, maxRows: 8 }}
                style={{ fontFamily: 'ui-monospace, monospace' }}
              />
            </Form.Item>
          )}
          {target === 'file' && (
            <Form.Item label={t('sms.target.file')} help={t('sms.target.fileHelp')}>
              <Space wrap>
                <Upload
                  accept=".csv,.xls,.xlsx"
                  maxCount={1}
                  fileList={file ? [file] : []}
                  beforeUpload={() => false}
                  onChange={(i) => setFile(i.fileList[0] ?? null)}
                >
                  <Button icon={<UploadOutlined />}>{t('sms.target.chooseFile')}</Button>
                </Upload>
                <Button type="link" icon={<DownloadOutlined />} onClick={() => void template()}>
                  {t('sms.target.template')}
                </Button>
              </Space>
            </Form.Item>
          )}
          <SmsTypeField value={type} onChange={setType} />
          <SmsContentField value={content} onChange={setContent} type={type} />
          {quota && quota.remaining === 0 && <Alert type="warning" showIcon style={{ marginBottom: 16 }} message={t('errors.sms.refusal.quotaExhausted')} />}
          <Space>
            <Button type="primary" htmlType="submit" loading={busy} disabled={!ready}>
              {t('sms.submit')}
            </Button>
            <Button onClick={onClose}>{t('sms.cancel')}</Button>
          </Space>
        </Form>
      )}
    </Drawer>
  );
}
