/**
 * SIM transfer and batch info upload from the SIM list (SPEC.md section 8, Transfer and upload). Both dialogs: a
 * template to download, a file checked at once in the browser (type, a name under 40 characters, 1 MB) and then by
 * the server, which says what each row would do before anything changes; the submission becomes a task of the task
 * center, whose report lists every row. Transfer also asks for the receiving organisation (one where the person is
 * an admin) and an acknowledgement. Non-admins see the upload button but are told "Insufficient permission".
 */
import { CloudUploadOutlined, DownloadOutlined, InboxOutlined, SwapOutlined } from '@ant-design/icons';
import { Alert, App, Button, Checkbox, Dropdown, Form, Modal, Radio, Select, Space, Table, Typography, Upload } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate, useParams } from 'react-router';
import { LIMITS } from '../../common/limits';
import { subjectOf } from '../../common/ability';
import { download, saveFile, upload, type HttpError } from '../providers/http';
import { store } from '../providers/session-store';
import { currentAbility } from '../shell/ability';

const TYPES = ['xlsx', 'xls', 'csv'] as const;
const INFO_TYPES = ['deviceName', 'notes', 'tags'] as const;
type InfoType = (typeof INFO_TYPES)[number];

interface Preview {
  rows: number;
  ok: number;
  failed: number;
  byReason: Record<string, number>;
  errors: { row: number; iccid: string; reason: string; message: string }[];
}

/** The browser's own check of a chosen file, with the server's rules (common/limits). */
function fileProblem(file: File, t: (k: string, o?: Record<string, unknown>) => string): string | null {
  const ext = /\.([A-Za-z]+)$/.exec(file.name)?.[1]?.toLowerCase();
  if (!ext || !(TYPES as readonly string[]).includes(ext)) return t('simUpload.wrongType');
  if (file.name.length >= LIMITS.uploadFileNameLength) return t('simUpload.nameTooLong', { limit: LIMITS.uploadFileNameLength });
  if (file.size > LIMITS.uploadBytes) return t('simUpload.tooBig');
  if (file.size === 0) return t('simUpload.empty');
  return null;
}

/** Template formats as a small menu. */
function TemplateButton({ url }: { url: (format: string) => string }) {
  const { t } = useTranslation();
  const get = async (format: string) => {
    try {
      saveFile(await download('GET', url(format)), `template.${format}`);
    } catch {
      // The HTTP helper has said why.
    }
  };
  return (
    <Dropdown trigger={['click']} menu={{ items: TYPES.map((f) => ({ key: f, label: `.${f}`, onClick: () => void get(f) })) }}>
      <Button icon={<DownloadOutlined />}>{t('simUpload.template')}</Button>
    </Dropdown>
  );
}

/** The file field: chosen, checked in the browser, then checked by the server (`check`), whose answer is shown. */
function FileField({ file, onFile, error, checking }: { file: File | null; onFile: (f: File | null) => void; error?: string; checking: boolean }) {
  const { t } = useTranslation();
  return (
    <Form.Item label={t('simUpload.file')} required validateStatus={error ? 'error' : checking ? 'validating' : undefined} help={error ?? t('simUpload.fileHelp', { limit: LIMITS.uploadFileNameLength, rows: LIMITS.uploadRows.toLocaleString() })}>
      <Upload.Dragger
        accept=".xls,.xlsx,.csv"
        maxCount={1}
        fileList={file ? [{ uid: '1', name: file.name, status: error ? 'error' : 'done', size: file.size }] : []}
        beforeUpload={(f) => {
          onFile(f);
          return false;
        }}
        onRemove={() => onFile(null)}
      >
        <p className="ant-upload-drag-icon">
          <InboxOutlined />
        </p>
        <p className="ant-upload-text">{t('simUpload.drop')}</p>
      </Upload.Dragger>
    </Form.Item>
  );
}

/** What the server says the file would do: counts, and the rows that would not be done, with why. */
function PreviewView({ preview, okKey }: { preview: Preview; okKey: string }) {
  const { t, i18n } = useTranslation();
  const n = (x: number) => x.toLocaleString(i18n.language);
  return (
    <Space direction="vertical" style={{ width: '100%' }}>
      <Alert
        type={preview.failed ? 'warning' : 'success'}
        showIcon
        message={t('simUpload.previewRows', { count: preview.rows, n: n(preview.rows) })}
        description={
          <>
            {t(okKey, { count: preview.ok, n: n(preview.ok) })}
            {preview.failed > 0 && <> · {t('simUpload.previewFailed', { count: preview.failed, n: n(preview.failed) })}</>}
          </>
        }
      />
      {preview.failed > 0 && (
        <Table
          size="small"
          rowKey={(r) => `${r.row}`}
          pagination={{ pageSize: 5, size: 'small', hideOnSinglePage: true }}
          dataSource={preview.errors}
          columns={[
            { title: t('simUpload.row'), dataIndex: 'row', key: 'row', width: 70 },
            { title: 'ICCID', dataIndex: 'iccid', key: 'iccid', width: 200, ellipsis: true },
            { title: t('simUpload.reason'), dataIndex: 'message', key: 'message' },
          ]}
          footer={preview.failed > preview.errors.length ? () => t('simUpload.moreInReport', { n: n(preview.failed - preview.errors.length) }) : undefined}
        />
      )}
    </Space>
  );
}

/** A file to check and submit, shared by both dialogs. */
function useChecked(checkUrl: () => string | null, extra: () => Record<string, string>) {
  const { t } = useTranslation();
  const [file, setFile] = useState<File | null>(null);
  const [error, setError] = useState<string | undefined>();
  const [preview, setPreview] = useState<Preview | null>(null);
  const [checking, setChecking] = useState(false);
  const check = async (f: File | null) => {
    setFile(f);
    setPreview(null);
    setError(undefined);
    if (!f) return;
    const local = fileProblem(f, t);
    if (local) return setError(local);
    const url = checkUrl();
    if (!url) return;
    const form = new FormData();
    for (const [k, v] of Object.entries(extra())) form.append(k, v);
    form.append('file', f, f.name);
    setChecking(true);
    try {
      setPreview(await upload<Preview>(url, form, { quiet: true }));
    } catch (e) {
      setError((e as HttpError).message);
    } finally {
      setChecking(false);
    }
  };
  return { file, error, preview, checking, check, setError };
}

function useTaskStarted() {
  const { t, i18n } = useTranslation();
  const { message } = App.useApp();
  const navigate = useNavigate();
  const { lang } = useParams();
  return (quantity: number) =>
    void message.success({
      content: (
        <span>
          {t('simUpload.started', { count: quantity, n: quantity.toLocaleString(i18n.language) })} <a onClick={() => navigate(`/${lang}/taskcenter`)}>{t('resources.open')}</a>
        </span>
      ),
      duration: 6,
    });
}

type Membership = { id: string; code: string; name: string; role: string; pending_invitation: boolean };
function membershipsOf(): Membership[] {
  try {
    return JSON.parse(store.get('roles') ?? '[]') as Membership[];
  } catch {
    return [];
  }
}

function TransferDialog({ open, onClose }: { open: boolean; onClose: () => void }) {
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
  const checked = useChecked(() => (target ? `/api/main/sim/transfer/parse/${encodeURIComponent(target)}` : null), () => ({}));
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
    <Modal
      open={open}
      title={t('simUpload.transferTitle')}
      onCancel={onClose}
      width={640}
      destroyOnHidden
      okText={t('simUpload.transferSubmit')}
      okButtonProps={{ loading: busy, disabled: checked.checking || Boolean(checked.preview && checked.preview.ok === 0), danger: true }}
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
          <Form.Item label={t('simUpload.target')} required validateStatus={fieldErrors.targetOrgId ? 'error' : undefined} help={fieldErrors.targetOrgId ?? t('simUpload.targetHelp')}>
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
          <FileField file={checked.file} onFile={(f) => void checked.check(f)} error={checked.error ?? (fieldErrors.file || undefined)} checking={checked.checking} />
          {checked.preview && <PreviewView preview={checked.preview} okKey="simUpload.previewTransferable" />}
          <Form.Item required validateStatus={fieldErrors.acknowledged ? 'error' : undefined} help={fieldErrors.acknowledged || undefined} style={{ marginTop: 16 }}>
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
    </Modal>
  );
}

function InfoDialog({ open, onClose }: { open: boolean; onClose: () => void }) {
  const { t } = useTranslation();
  const code = store.get('partnerCode') ?? '';
  const [type, setType] = useState<InfoType>('deviceName');
  const [busy, setBusy] = useState(false);
  const base = `/api/main/sim/organizationCode/${encodeURIComponent(code)}/batchUpdateInfo`;
  const checked = useChecked(() => `${base}/parse`, () => ({ type }));
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
    <Modal
      open={open}
      title={t('simUpload.infoTitle')}
      onCancel={onClose}
      width={640}
      destroyOnHidden
      okText={t('simUpload.infoSubmit')}
      okButtonProps={{ loading: busy, disabled: checked.checking || Boolean(checked.preview && checked.preview.ok === 0) }}
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
    </Modal>
  );
}

/** The SIM list's Transfer (admins only) and Info upload (everyone sees it; non-admins are told they may not). */
export function SimUploadButtons() {
  const { t } = useTranslation();
  const { message } = App.useApp();
  const [open, setOpen] = useState<'transfer' | 'info' | null>(null);
  const ability = currentAbility();
  return (
    <>
      {ability.can('transfer', 'sim') && (
        <Button icon={<SwapOutlined />} onClick={() => setOpen('transfer')}>
          {t('simUpload.transfer')}
        </Button>
      )}
      <Button
        icon={<CloudUploadOutlined />}
        onClick={() => (ability.can('uploadInfo', 'sim') ? setOpen('info') : void message.warning(t('simUpload.insufficient')))}
      >
        {t('simUpload.info')}
      </Button>
      {open === 'transfer' && <TransferDialog open onClose={() => setOpen(null)} />}
      {open === 'info' && <InfoDialog open onClose={() => setOpen(null)} />}
    </>
  );
}
