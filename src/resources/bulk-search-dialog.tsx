/** Bulk search: one value per line, at most the schema's max, each checked against the field's pattern before sending. */
import { Alert, Input, Modal, Typography } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { ResourceSchema } from '../../common/resources';

/** The lines of a bulk search, trimmed, empty ones and repeats dropped; the first problem, if any. */
export function parseBulk(
  text: string,
  pattern: string | undefined,
  max: number,
): { values: string[]; error: { key: string; params: Record<string, unknown> } | null } {
  const lines = text.split(/\r?\n/).map((l) => l.trim());
  const values = [...new Set(lines.filter(Boolean))];
  const re = pattern ? new RegExp(pattern) : null;
  const bad = lines.findIndex((l) => l && re && !re.test(l));
  if (bad >= 0) return { values, error: { key: 'resources.bulkInvalid', params: { line: bad + 1, value: lines[bad] } } };
  if (values.length > max) return { values, error: { key: 'resources.bulkTooMany', params: { max, extra: values.length - max } } };
  if (values.length === 0) return { values, error: { key: 'resources.bulkEmpty', params: {} } };
  return { values, error: null };
}

export function BulkSearchDialog({
  resource,
  open,
  onClose,
  onApply,
}: {
  resource: ResourceSchema;
  open: boolean;
  onClose: () => void;
  onApply: (values: string[]) => void;
}) {
  const { t } = useTranslation();
  const bulk = resource['x-admin'].list.bulk!;
  const fieldLabel = t(`${resource['x-admin'].i18n}.fields.${bulk.field}`);
  const [text, setText] = useState('');
  const [touched, setTouched] = useState(false);
  const { values, error } = parseBulk(text, resource.properties[bulk.field].pattern, bulk.max);
  return (
    <Modal
      open={open}
      title={t('resources.bulkTitle', { field: fieldLabel })}
      okText={t('resources.bulkApply')}
      cancelText={t('shell.cancel')}
      onCancel={onClose}
      okButtonProps={{ disabled: touched && !!error }}
      onOk={() => {
        setTouched(true);
        if (!error) onApply(values);
      }}
    >
      <Typography.Paragraph type="secondary">{t('resources.bulkHelp', { max: bulk.max })}</Typography.Paragraph>
      <Input.TextArea
        aria-label={t('resources.bulkTitle', { field: fieldLabel })}
        rows={10}
        value={text}
        status={touched && error ? 'error' : undefined}
        onChange={(e) => {
          setText(e.target.value);
          setTouched(true);
        }}
        style={{ fontFamily: 'monospace' }}
      />
      <Typography.Text type="secondary">{t('resources.bulkCount', { count: values.length, max: bulk.max })}</Typography.Text>
      {touched && error && <Alert style={{ marginTop: 8 }} type="error" showIcon message={t(error.key, { ...error.params, field: fieldLabel })} />}
    </Modal>
  );
}
