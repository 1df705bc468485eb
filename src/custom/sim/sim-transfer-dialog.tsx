/**
 * SIM transfer (SPEC.md section 8, Transfer and upload): to a receiving organisation where the person is an admin,
 * from a checked file, with an acknowledgement; the submission becomes a task whose report lists every row.
 */
import { Alert, Checkbox, Form, Select, Space, Typography } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { subjectOf } from '../../../common/ability';
import { upload, type HttpError } from '../../providers/http';
import { store } from '../../providers/session-store';
import { currentAbility } from '../../shell/ability';
import { FileField, PreviewView, TemplateButton, UploadModal, useChecked, useTaskStarted } from './sim-upload-parts';

type Membership = { id: string; code: string; name: string; role: string; pending_invitation: boolean };
function membershipsOf(): Membership[] {
  try {
    return JSON.parse(store.get('roles') ?? '[]') as Membership[];
  } catch {
    return [];
  }
}

export function TransferDialog({ open, onClose }: { open: boolean; onClose: () => void }) {
  const { t } = useTranslation();
  const current = store.get('partnerCode');
  const currentName = store.get('enterpriseName') ?? current ?? '';
  // The permission file's condition on a transfer: another organisation the person administers.
  const ability = currentAbility();
  const targets = membershipsOf().filter((r) => !r.pending_invitation && ability.can('transfer', subjectOf('sim', { receivingOrgId: r.id })));
  const [target, setTarget] = useState<string | undefined>();
  const [ack, setAck] = useState(false);
  const [busy, setBusy] = useState(false);
  const [fieldErrors, setFieldErrors] = useState<Record<string, string>>({});
  const checked = useChecked(
    () => (target ? `/api/main/sim/transfer/parse/${encodeURIComponent(target)}` : null),
    () => ({}),
  );
  const started = useTaskStarted();
  const targetName = targets.find((r) => r.code === target)?.name ?? '';

  const submit = async () => {
    const errs: Record<string, string> = {};
    if (!target) errs.targetOrgId = t('simUpload.chooseTarget');
    if (!checked.file) errs.file = t('simUpload.chooseFile');
    if (!ack) errs.acknowledged = t('simUpload.ackRequired');
    setFieldErrors(errs);
    if (Object.keys(errs).length || checked.error) return;
    const form = new FormData();
    form.append('targetOrgId', target!);
    form.append('acknowledged', 'true');
    form.append('file', checked.file!, checked.file!.name);
    setBusy(true);
    try {
      const r = await upload<{ quantity: number }>('/api/main/sim/transfer', form, { quiet: true });
      started(r.quantity);
      onClose();
    } catch (e) {
      const err = e as HttpError;
      if (err.field === 'file') checked.setError(err.message);
      else setFieldErrors({ [err.field ?? 'file']: err.message });
    } finally {
      setBusy(false);
    }
  };

  return (
    <UploadModal
      open={open}
      title={t('simUpload.transferTitle')}
      okText={t('simUpload.transferSubmit')}
      busy={busy}
      checked={checked}
      danger
      onClose={onClose}
      onOk={() => void submit()}
    >
      {targets.length === 0 ? (
        <Alert type="info" showIcon message={t('simUpload.noTargets')} />
      ) : (
        <Form layout="vertical" requiredMark>
          <Space style={{ marginBottom: 16 }}>
            <TemplateButton url={(f) => `/api/main/sim/transfer/template/${f}`} />
            <Typography.Text type="secondary">{t('simUpload.templateHelp')}</Typography.Text>
          </Space>
          <Form.Item
            label={t('simUpload.target')}
            required
            validateStatus={fieldErrors.targetOrgId ? 'error' : undefined}
            help={fieldErrors.targetOrgId ?? t('simUpload.targetHelp')}
          >
            <Select
              aria-label={t('simUpload.target')}
              placeholder={t('simUpload.chooseTarget')}
              value={target}
              onChange={(v) => {
                setTarget(v);
                setFieldErrors((e) => ({ ...e, targetOrgId: '' }));
                if (checked.file) void checked.check(checked.file);
              }}
              options={targets.map((r) => ({ value: r.code, label: r.name }))}
              showSearch
              optionFilterProp="label"
            />
          </Form.Item>
          <FileField
            file={checked.file}
            onFile={(f) => void checked.check(f)}
            error={checked.error ?? (fieldErrors.file || undefined)}
            checking={checked.checking}
          />
          {checked.preview && <PreviewView preview={checked.preview} okKey="simUpload.previewTransferable" />}
          <Form.Item
            required
            validateStatus={fieldErrors.acknowledged ? 'error' : undefined}
            help={fieldErrors.acknowledged || undefined}
            style={{ marginTop: 16 }}
          >
            <Checkbox
              checked={ack}
              onChange={(e) => {
                setAck(e.target.checked);
                setFieldErrors((x) => ({ ...x, acknowledged: '' }));
              }}
            >
              {t('simUpload.ack', { from: currentName, to: targetName || t('simUpload.theReceiver') })}
            </Checkbox>
          </Form.Item>
        </Form>
      )}
    </UploadModal>
  );
}
