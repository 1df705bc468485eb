/**
 * Batch info upload (SPEC.md section 8, Transfer and upload): device names, notes or tags of many SIMs from a checked
 * file; the submission becomes a task whose report lists every row.
 */
import { Form, Radio, Space, Typography } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { upload, type HttpError } from '../../providers/http';
import { store } from '../../providers/session-store';
import { FileField, PreviewView, TemplateButton, UploadModal, useChecked, useTaskStarted } from './sim-upload-parts';

const INFO_TYPES = ['deviceName', 'notes', 'tags'] as const;
type InfoType = (typeof INFO_TYPES)[number];

export function InfoDialog({ open, onClose }: { open: boolean; onClose: () => void }) {
  const { t } = useTranslation();
  const code = store.get('partnerCode') ?? '';
  const [type, setType] = useState<InfoType>('deviceName');
  const [busy, setBusy] = useState(false);
  const base = `/api/main/sim/organizationCode/${encodeURIComponent(code)}/batchUpdateInfo`;
  const checked = useChecked(
    () => `${base}/parse`,
    () => ({ type }),
  );
  const started = useTaskStarted();
  const submit = async () => {
    if (!checked.file) return checked.setError(t('simUpload.chooseFile'));
    if (checked.error) return;
    const form = new FormData();
    form.append('type', type);
    form.append('file', checked.file, checked.file.name);
    setBusy(true);
    try {
      const r = await upload<{ quantity: number }>(base, form, { quiet: true });
      started(r.quantity);
      onClose();
    } catch (e) {
      checked.setError((e as HttpError).message);
    } finally {
      setBusy(false);
    }
  };
  return (
    <UploadModal
      open={open}
      title={t('simUpload.infoTitle')}
      okText={t('simUpload.infoSubmit')}
      busy={busy}
      checked={checked}
      onClose={onClose}
      onOk={() => void submit()}
    >
      <Form layout="vertical">
        <Form.Item label={t('simUpload.infoType')} required>
          <Radio.Group
            value={type}
            onChange={(e) => {
              setType(e.target.value);
              void checked.check(null);
            }}
            optionType="button"
            options={INFO_TYPES.map((v) => ({ value: v, label: t(`simUpload.types.${v}`) }))}
          />
        </Form.Item>
        <Space style={{ marginBottom: 16 }}>
          <TemplateButton url={(f) => `/api/main/sim/uploadInfo/template/${type}?format=${f}`} />
          <Typography.Text type="secondary">{t(`simUpload.typeHelp.${type}`)}</Typography.Text>
        </Space>
        <FileField file={checked.file} onFile={(f) => void checked.check(f)} error={checked.error} checking={checked.checking} />
        {checked.preview && <PreviewView preview={checked.preview} okKey="simUpload.previewUpdatable" />}
      </Form>
    </UploadModal>
  );
}
