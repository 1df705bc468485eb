/**
 * What the SIM list's two upload dialogs share (sim-transfer-dialog.tsx, sim-info-dialog.tsx): a template to download,
 * a file checked at once in the browser (type, a name under 40 characters, 1 MB) and then by the server, which says
 * what each row would do before anything changes, and the notice that the submission became a task of the task center.
 */
import { DownloadOutlined, InboxOutlined } from '@ant-design/icons';
import { Alert, App, Button, Dropdown, Form, Modal, Space, Table, Upload } from 'antd';
import { useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate, useParams } from 'react-router';
import { LIMITS } from '../../../common/limits';
import { download, saveFile, upload, type HttpError } from '../../providers/http';
import { formatNumber } from '../../../common/numbers';

const TYPES = ['xlsx', 'xls', 'csv'] as const;

export interface Preview {
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
export function TemplateButton({ url }: { url: (format: string) => string }) {
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
export function FileField({ file, onFile, error, checking }: { file: File | null; onFile: (f: File | null) => void; error?: string; checking: boolean }) {
  const { t, i18n } = useTranslation();
  return (
    <Form.Item
      label={t('simUpload.file')}
      required
      validateStatus={error ? 'error' : checking ? 'validating' : undefined}
      help={error ?? t('simUpload.fileHelp', { limit: LIMITS.uploadFileNameLength, rows: formatNumber(LIMITS.uploadRows, i18n.language) })}
    >
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
export function PreviewView({ preview, okKey }: { preview: Preview; okKey: string }) {
  const { t, i18n } = useTranslation();
  const n = (x: number) => formatNumber(x, i18n.language);
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
export function useChecked(checkUrl: () => string | null, extra: () => Record<string, string>) {
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

/** A checked file's dialog: its submit waits while the file is checked, and is refused when no row of it can be taken. */
export function UploadModal(props: {
  open: boolean;
  title: string;
  okText: string;
  busy: boolean;
  checked: ReturnType<typeof useChecked>;
  danger?: boolean;
  onClose: () => void;
  onOk: () => void;
  children: ReactNode;
}) {
  const { checked } = props;
  const okButtonProps = { loading: props.busy, disabled: checked.checking || Boolean(checked.preview && checked.preview.ok === 0), danger: props.danger };
  return (
    <Modal
      open={props.open}
      title={props.title}
      onCancel={props.onClose}
      width={640}
      destroyOnHidden
      okText={props.okText}
      okButtonProps={okButtonProps}
      onOk={props.onOk}
    >
      {props.children}
    </Modal>
  );
}

export function useTaskStarted() {
  const { t, i18n } = useTranslation();
  const { message } = App.useApp();
  const navigate = useNavigate();
  const { lang } = useParams();
  return (quantity: number) =>
    void message.success({
      content: (
        <span>
          {t('simUpload.started', { count: quantity, n: formatNumber(quantity, i18n.language) })}{' '}
          <a onClick={() => navigate(`/${lang}/taskcenter`)}>{t('resources.open')}</a>
        </span>
      ),
      duration: 6,
    });
}
