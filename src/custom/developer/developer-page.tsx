/**
 * The Developer page (SPEC.md sections 2, 3 and 5): API keys, webhook settings, the API log and
 * the notification log. The private key of a new API key is shown once, with a download; the webhook's signing
 * secret stays hidden until asked for; both logs are paged on the server and open a drawer with the whole call; a
 * logged delivery can be sent again. The tab is kept in the address (?tab=).
 */
import { CopyOutlined, DeleteOutlined, DownloadOutlined, EyeOutlined, KeyOutlined, PlusOutlined, ReloadOutlined, SendOutlined } from '@ant-design/icons';
import {
  Alert,
  App,
  Button,
  Card,
  Descriptions,
  Drawer,
  Empty,
  Form,
  Input,
  Modal,
  Popconfirm,
  Select,
  Space,
  Switch,
  Table,
  Tabs,
  Tag,
  Typography,
  type DrawerProps,
  type TableColumnsType,
} from 'antd';
import { useCallback, useEffect, useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { useSearchParams } from 'react-router';
import { DateTime } from '../../components/date-time';
import { PagedTable, usePaging, type Paging } from '../../components/list-parts';
import { api, type HttpError } from '../../providers/http';
import { store } from '../../providers/session-store';
import type { Page } from '../../../common/page';

interface ApiKey {
  id: string;
  keyId: string;
  name: string | null;
  createdAt: string;
  lastUsedAt: string | null;
}
interface NotificationKey {
  id: string;
  keyId: string;
  secret: string;
  previousSecretUntil: string | null;
  webhookUrl: string | null;
  status: 'enabled' | 'disabled';
  disabledReason: string | null;
}
interface ApiLog {
  id: string;
  ip: string | null;
  traceId: string;
  at: string;
  httpCode: number;
  method: string;
  path: string;
  headers: Record<string, unknown>;
  body: string | null;
  response: string | null;
  durationMs: number | null;
}
interface NotificationLog {
  id: string;
  url: string;
  eventType: string;
  subtype: string | null;
  payload: unknown;
  sentAt: string;
  httpCode: number | null;
  response: string | null;
  error: string | null;
  attempt: number;
  messageId: string | null;
}
interface EventType {
  type: string;
  label: string;
  subtypes: Array<{ subtype: string; label: string }>;
}
const TABS = ['apiKeys', 'webhook', 'apiLog', 'notificationLog'] as const;
type Tab = (typeof TABS)[number];

/** A value with a copy button that says it copied. */
function Copyable({ value, label }: { value: string; label: string }) {
  return (
    <Typography.Text code copyable={{ text: value, icon: [<CopyOutlined key="c" aria-label={label} />, undefined] }}>
      {value}
    </Typography.Text>
  );
}

/** Logged text as written: monospace, wrapped, scrolled when long. */
const PRE = {
  margin: 0,
  padding: 12,
  maxHeight: 320,
  overflow: 'auto',
  whiteSpace: 'pre-wrap',
  wordBreak: 'break-all',
  background: '#f5f5f5',
  borderRadius: 6,
  fontSize: 12,
} as const;

const codeColor = (code: number | null) => (code === null ? 'default' : code < 300 ? 'green' : code < 500 ? 'gold' : 'red');

/** Text that may be JSON, shown indented when it is. */
function Pre({ text }: { text: unknown }) {
  let shown = typeof text === 'string' ? text : JSON.stringify(text, null, 2);
  if (typeof text === 'string') {
    try {
      shown = JSON.stringify(JSON.parse(text), null, 2);
    } catch {
      /* not JSON: as it is */
    }
  }
  return <pre style={PRE}>{shown || '—'}</pre>;
}

function saveFile(name: string, text: string): void {
  const url = URL.createObjectURL(new Blob([text], { type: 'application/x-pem-file' }));
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  a.click();
  URL.revokeObjectURL(url);
}

function ApiKeysTab() {
  const { t } = useTranslation();
  const { message } = App.useApp();
  const [keys, setKeys] = useState<ApiKey[] | null>(null);
  const [creating, setCreating] = useState(false);
  const [busy, setBusy] = useState(false);
  const [made, setMade] = useState<(ApiKey & { privateKey: string }) | null>(null);
  const [form] = Form.useForm<{ name?: string }>();
  const load = useCallback(() => api<ApiKey[]>('GET', '/api/main/developer/key/api').then(setKeys, () => setKeys([])), []);
  useEffect(() => void load(), [load]);

  const create = async () => {
    const { name } = await form.validateFields();
    setBusy(true);
    try {
      const key = await api<ApiKey & { privateKey: string }>('POST', '/api/main/developer/key/api', name?.trim() ? { name: name.trim() } : {});
      setCreating(false);
      form.resetFields();
      setMade(key);
      void load();
    } catch {
      // Said by the HTTP helper (the limit of keys, a name refused).
    } finally {
      setBusy(false);
    }
  };
  const remove = async (key: ApiKey) => {
    await api('DELETE', `/api/main/developer/key/api/${encodeURIComponent(key.id)}`);
    message.success(t('developer.keyDeleted'));
    void load();
  };

  return (
    <Card
      title={t('developer.apiKeysTitle')}
      extra={
        <Space>
          <Button href="/api/public/reference" target="_blank" rel="noopener">
            {t('developer.reference')}
          </Button>
          <Button type="primary" icon={<PlusOutlined />} onClick={() => setCreating(true)}>
            {t('developer.newKey')}
          </Button>
        </Space>
      }
    >
      <Typography.Paragraph type="secondary">{t('developer.apiKeysIntro')}</Typography.Paragraph>
      <Table<ApiKey>
        rowKey="id"
        size="middle"
        loading={keys === null}
        dataSource={keys ?? []}
        pagination={false}
        locale={{ emptyText: <Empty description={t('developer.noKeys')} /> }}
        columns={[
          {
            title: t('developer.name'),
            dataIndex: 'name',
            render: (v: string | null) => (v === null ? <Typography.Text type="secondary">{t('developer.unnamed')}</Typography.Text> : v),
          },
          { title: t('developer.keyId'), dataIndex: 'keyId', render: (v: string) => <Copyable value={v} label={t('developer.copyKeyId')} /> },
          { title: t('developer.created'), dataIndex: 'createdAt', render: (v: string) => <DateTime value={v} /> },
          { title: t('developer.lastUsed'), dataIndex: 'lastUsedAt', render: (v: string | null) => (v ? <DateTime value={v} /> : t('developer.never')) },
          {
            title: t('developer.actions'),
            key: 'actions',
            render: (_: unknown, key: ApiKey) => (
              <Popconfirm
                title={t('developer.deleteKeyTitle')}
                description={t('developer.deleteKeyText')}
                okText={t('developer.delete')}
                okButtonProps={{ danger: true }}
                cancelText={t('developer.cancel')}
                onConfirm={() => remove(key)}
              >
                <Button danger size="small" icon={<DeleteOutlined />}>
                  {t('developer.delete')}
                </Button>
              </Popconfirm>
            ),
          },
        ]}
      />
      <Modal
        open={creating}
        title={t('developer.newKey')}
        okText={t('developer.create')}
        cancelText={t('developer.cancel')}
        confirmLoading={busy}
        onOk={() => void create()}
        onCancel={() => setCreating(false)}
        destroyOnHidden
      >
        <Form form={form} layout="vertical" requiredMark={false}>
          <Form.Item
            name="name"
            label={t('developer.nameOptional')}
            rules={[
              { max: 60, message: t('developer.nameRule') },
              { whitespace: true, message: t('developer.nameRule') },
            ]}
          >
            <Input count={{ show: true, max: 60 }} autoFocus />
          </Form.Item>
        </Form>
      </Modal>
      <Modal
        open={!!made}
        title={t('developer.keyMadeTitle')}
        closable={false}
        maskClosable={false}
        // The private key leaves the page with the dialog, not only from sight.
        destroyOnHidden
        footer={
          <Space>
            <Button icon={<DownloadOutlined />} onClick={() => made && saveFile(`api-key-${made.keyId}.pem`, made.privateKey)}>
              {t('developer.downloadKey')}
            </Button>
            <Button type="primary" onClick={() => setMade(null)}>
              {t('developer.savedIt')}
            </Button>
          </Space>
        }
      >
        <Alert type="warning" showIcon message={t('developer.keyOnce')} style={{ marginBottom: 16 }} />
        {made && (
          <Descriptions column={1} size="small" bordered>
            <Descriptions.Item label={t('developer.keyId')}>
              <Copyable value={made.keyId} label={t('developer.copyKeyId')} />
            </Descriptions.Item>
            <Descriptions.Item label={t('developer.privateKey')}>
              <Typography.Paragraph
                copyable={{ text: made.privateKey, icon: [<CopyOutlined key="c" aria-label={t('developer.copyPrivateKey')} />, undefined] }}
                style={{ marginBottom: 0 }}
              >
                <pre style={{ ...PRE, maxHeight: 220, fontSize: 11 }}>{made.privateKey}</pre>
              </Typography.Paragraph>
            </Descriptions.Item>
          </Descriptions>
        )}
      </Modal>
    </Card>
  );
}

function WebhookTab() {
  const { t } = useTranslation();
  const { message, modal } = App.useApp();
  const [key, setKey] = useState<NotificationKey | null>(null);
  const [failed, setFailed] = useState(false);
  const [shown, setShown] = useState(false);
  const [url, setUrl] = useState('');
  const [urlError, setUrlError] = useState<string | null>(null);
  const [busy, setBusy] = useState<string | null>(null);
  const [test, setTest] = useState<{ httpCode: number | null; error: string | null; delivered: boolean } | null>(null);
  const accountId = store.get('userId');

  useEffect(() => {
    api<NotificationKey>('GET', `/api/main/developer/key/notification/${encodeURIComponent(accountId ?? '')}`).then(
      (k) => {
        setKey(k);
        setUrl(k.webhookUrl ?? '');
      },
      () => setFailed(true),
    );
  }, [accountId]);

  if (failed) return <Empty description={t('developer.webhookUnavailable')} />;
  if (!key) return <Card loading />;

  const run = async (what: string, fn: () => Promise<void>) => {
    setBusy(what);
    try {
      await fn();
    } catch {
      /* said by the HTTP helper */
    } finally {
      setBusy(null);
    }
  };
  const saveUrl = () =>
    run('url', async () => {
      setUrlError(null);
      try {
        const k = await api<NotificationKey>('PUT', `/api/main/developer/key/notification/callbackUrl/${key.id}`, { webhookUrl: url.trim() }, { quiet: true });
        setKey(k);
        message.success(t('developer.urlSaved'));
      } catch (err) {
        setUrlError((err as HttpError).message);
      }
    });
  const toggle = (on: boolean) =>
    run('status', async () =>
      setKey(await api<NotificationKey>('PUT', `/api/main/developer/key/notification/webhookStatus/${key.id}`, { status: on ? 'enabled' : 'disabled' })),
    );
  const rotate = () =>
    modal.confirm({
      title: t('developer.rotateTitle'),
      content: t('developer.rotateText'),
      okText: t('developer.rotate'),
      cancelText: t('developer.cancel'),
      onOk: () =>
        run('rotate', async () => {
          setKey(await api<NotificationKey>('PUT', `/api/main/developer/key/notification/${key.id}`));
          setShown(true);
        }),
    });
  const sendTest = () => run('test', async () => setTest(await api('POST', `/api/main/developer/notification/${key.id}`, {})));

  return (
    <Card title={t('developer.webhookTitle')}>
      <Typography.Paragraph type="secondary">{t('developer.webhookIntro')}</Typography.Paragraph>
      {key.disabledReason === 'failing' && <Alert type="error" showIcon message={t('developer.disabledFailing')} style={{ marginBottom: 16 }} />}
      <Descriptions column={1} bordered size="middle">
        <Descriptions.Item label={t('developer.keyId')}>
          <Copyable value={key.keyId} label={t('developer.copyKeyId')} />
        </Descriptions.Item>
        <Descriptions.Item label={t('developer.secret')}>
          {shown ? (
            <Copyable value={key.secret} label={t('developer.copySecret')} />
          ) : (
            <Button size="small" icon={<EyeOutlined />} onClick={() => setShown(true)}>
              {t('developer.showSecret')}
            </Button>
          )}
          <Button size="small" icon={<KeyOutlined />} style={{ marginLeft: 8 }} loading={busy === 'rotate'} onClick={rotate}>
            {t('developer.rotate')}
          </Button>
          {key.previousSecretUntil && new Date(key.previousSecretUntil) > new Date() && (
            <Typography.Paragraph type="secondary" style={{ margin: '8px 0 0' }}>
              {t('developer.previousUntil')} <DateTime value={key.previousSecretUntil} />
            </Typography.Paragraph>
          )}
        </Descriptions.Item>
        <Descriptions.Item label={<label htmlFor="webhook-url">{t('developer.webhookUrl')}</label>}>
          <Space.Compact style={{ width: '100%', maxWidth: 640 }}>
            <Input
              id="webhook-url"
              value={url}
              placeholder={t('developer.urlPlaceholder')}
              status={urlError ? 'error' : undefined}
              aria-describedby={urlError ? 'webhook-url-error' : undefined}
              onChange={(e) => setUrl(e.target.value)}
              onPressEnter={() => void saveUrl()}
            />
            <Button type="primary" loading={busy === 'url'} disabled={!url.trim() || url.trim() === key.webhookUrl} onClick={() => void saveUrl()}>
              {t('developer.save')}
            </Button>
          </Space.Compact>
          {urlError && (
            <Typography.Text id="webhook-url-error" type="danger" role="alert" style={{ display: 'block', marginTop: 4 }}>
              {urlError}
            </Typography.Text>
          )}
        </Descriptions.Item>
        <Descriptions.Item label={t('developer.status')}>
          <Space>
            <Switch
              checked={key.status === 'enabled'}
              loading={busy === 'status'}
              disabled={!key.webhookUrl}
              onChange={(on) => void toggle(on)}
              aria-label={t('developer.enableWebhook')}
            />
            <span>{t(key.status === 'enabled' ? 'developer.enabled' : 'developer.disabled')}</span>
            <Button icon={<SendOutlined />} disabled={!key.webhookUrl} loading={busy === 'test'} onClick={() => void sendTest()}>
              {t('developer.sendTest')}
            </Button>
          </Space>
          {test && (
            <Alert
              style={{ marginTop: 12 }}
              showIcon
              type={test.delivered ? 'success' : 'error'}
              message={
                test.delivered
                  ? t('developer.testDelivered', { code: test.httpCode })
                  : t('developer.testFailed', { reason: test.error ?? `HTTP ${test.httpCode}` })
              }
            />
          )}
        </Descriptions.Item>
      </Descriptions>
    </Card>
  );
}

interface ServerLog<T> {
  data: Page<T> | null;
  loading: boolean;
  paging: Paging;
  reload: () => void;
}

/** A log paged on the server (20 rows a page), read again when its filters change, from their first page. */
function useServerPage<T, F extends object>(url: string, filters: F): ServerLog<T> {
  const paging = usePaging();
  const { page, setPage } = paging;
  const [data, setData] = useState<Page<T> | null>(null);
  const [loading, setLoading] = useState(false);
  const key = JSON.stringify(filters);
  const load = useCallback(() => {
    setLoading(true);
    api<Page<T>>('POST', url, { ...JSON.parse(key), page, pageSize: 20 })
      .then(setData, () => setData({ items: [], total: 0 }))
      .finally(() => setLoading(false));
  }, [url, key, page]);
  useEffect(() => load(), [load]);
  useEffect(() => setPage(1), [key, setPage]);
  return { data, loading, paging, reload: load };
}

/** A log's card: its filters, its rows (a row or its button opens the drawer with that row whole), the drawer. */
function LogCard<T extends { id: string }>(props: {
  title: string;
  filters: ReactNode;
  log: ServerLog<T>;
  empty: string;
  columns: TableColumnsType<T>;
  open: T | null;
  setOpen: (row: T | null) => void;
  drawer: Pick<DrawerProps, 'title' | 'extra' | 'children'>;
}) {
  const { t } = useTranslation();
  const { log, setOpen } = props;
  const details: TableColumnsType<T>[number] = {
    title: t('developer.details'),
    key: 'open',
    render: (_: unknown, row: T) => (
      <Button size="small" onClick={(e) => (e.stopPropagation(), setOpen(row))}>
        {t('developer.details')}
      </Button>
    ),
  };
  return (
    <Card title={props.title} extra={<Button icon={<ReloadOutlined />} onClick={log.reload} aria-label={t('developer.reload')} />}>
      <Space wrap style={{ marginBottom: 16 }}>
        {props.filters}
      </Space>
      <PagedTable<T>
        data={log.data}
        loading={log.loading}
        paging={log.paging}
        pager={{ showSizeChanger: false }}
        empty={props.empty}
        onRow={(row) => ({ onClick: () => setOpen(row), style: { cursor: 'pointer' } })}
        columns={[...props.columns, details]}
      />
      <Drawer open={!!props.open} width={640} onClose={() => setOpen(null)} {...props.drawer} />
    </Card>
  );
}

function ApiLogTab() {
  const { t } = useTranslation();
  const [filters, setFilters] = useState<{ httpCode?: number; method?: string; traceId?: string }>({});
  const [traceId, setTraceId] = useState('');
  const [open, setOpen] = useState<ApiLog | null>(null);
  const log = useServerPage<ApiLog, typeof filters>('/api/main/developer/log/api', filters);
  return (
    <LogCard<ApiLog>
      title={t('developer.apiLogTitle')}
      log={log}
      empty={t('developer.noApiCalls')}
      open={open}
      setOpen={setOpen}
      filters={
        <>
          <Select
            allowClear
            placeholder={t('developer.method')}
            aria-label={t('developer.method')}
            style={{ width: 130 }}
            options={['GET', 'POST', 'PUT', 'PATCH', 'DELETE'].map((m) => ({ value: m, label: m }))}
            onChange={(method?: string) => setFilters((f) => ({ ...f, method }))}
          />
          <Select
            allowClear
            placeholder={t('developer.httpCode')}
            aria-label={t('developer.httpCode')}
            style={{ width: 150 }}
            options={[200, 400, 401, 403, 404, 409, 429, 500].map((c) => ({ value: c, label: String(c) }))}
            onChange={(httpCode?: number) => setFilters((f) => ({ ...f, httpCode }))}
          />
          <Input.Search
            allowClear
            placeholder={t('developer.traceId')}
            aria-label={t('developer.traceId')}
            style={{ width: 260 }}
            value={traceId}
            onChange={(e) => setTraceId(e.target.value)}
            onSearch={(v) => setFilters((f) => ({ ...f, traceId: v.trim() || undefined }))}
          />
        </>
      }
      columns={[
        { title: t('developer.time'), dataIndex: 'at', render: (v: string) => <DateTime value={v} /> },
        { title: t('developer.method'), dataIndex: 'method' },
        { title: t('developer.path'), dataIndex: 'path', ellipsis: true },
        { title: t('developer.httpCode'), dataIndex: 'httpCode', render: (v: number) => <Tag color={codeColor(v)}>{v}</Tag> },
        { title: t('developer.traceId'), dataIndex: 'traceId', render: (v: string) => <Typography.Text code>{v}</Typography.Text> },
        { title: t('developer.ip'), dataIndex: 'ip' },
      ]}
      drawer={{
        title: open ? `${open.method} ${open.path}` : '',
        children: open && (
          <>
            <Descriptions column={1} size="small" bordered style={{ marginBottom: 16 }}>
              <Descriptions.Item label={t('developer.time')}>
                <DateTime value={open.at} />
              </Descriptions.Item>
              <Descriptions.Item label={t('developer.httpCode')}>
                <Tag color={codeColor(open.httpCode)}>{open.httpCode}</Tag>
              </Descriptions.Item>
              <Descriptions.Item label={t('developer.traceId')}>
                <Copyable value={open.traceId} label={t('developer.copyTraceId')} />
              </Descriptions.Item>
              <Descriptions.Item label={t('developer.duration')}>{open.durationMs === null ? '—' : `${open.durationMs} ms`}</Descriptions.Item>
              <Descriptions.Item label={t('developer.ip')}>{open.ip ?? '—'}</Descriptions.Item>
            </Descriptions>
            <Typography.Title level={5}>{t('developer.headers')}</Typography.Title>
            <Pre text={open.headers} />
            <Typography.Title level={5}>{t('developer.body')}</Typography.Title>
            <Pre text={open.body} />
            <Typography.Title level={5}>{t('developer.response')}</Typography.Title>
            <Pre text={open.response} />
          </>
        ),
      }}
    />
  );
}

function NotificationLogTab() {
  const { t } = useTranslation();
  const { message } = App.useApp();
  const [types, setTypes] = useState<EventType[]>([]);
  const [filters, setFilters] = useState<{ eventType?: string; subtype?: string; failed?: boolean }>({});
  const [open, setOpen] = useState<NotificationLog | null>(null);
  const [replaying, setReplaying] = useState(false);
  const log = useServerPage<NotificationLog, typeof filters>('/api/main/developer/log/notification', filters);
  const accountId = store.get('userId');
  useEffect(() => {
    const types: Promise<EventType[]> = api('GET', '/api/main/developer/log/notification/type');
    types.then(setTypes, () => setTypes([]));
  }, []);
  const typeLabel = (type: string) => types.find((x) => x.type === type)?.label ?? type;
  const subtypeLabel = (type: string, sub: string | null) =>
    sub ? (types.find((x) => x.type === type)?.subtypes.find((s) => s.subtype === sub)?.label ?? sub) : '—';
  const subtypes = types.find((x) => x.type === filters.eventType)?.subtypes ?? [];
  const replay = async (row: NotificationLog) => {
    setReplaying(true);
    try {
      const key = await api<NotificationKey>('GET', `/api/main/developer/key/notification/${encodeURIComponent(accountId ?? '')}`);
      const r = await api<{ httpCode: number | null; error: string | null; delivered: boolean }>('POST', `/api/main/developer/notification/${key.id}`, {
        logId: row.id,
      });
      if (r.delivered) message.success(t('developer.testDelivered', { code: r.httpCode }));
      else message.error(t('developer.testFailed', { reason: r.error ?? `HTTP ${r.httpCode}` }));
      log.reload();
    } catch {
      /* said by the HTTP helper */
    } finally {
      setReplaying(false);
    }
  };
  const result = (row: NotificationLog): ReactNode =>
    row.httpCode === null ? <Tag color="red">{t('developer.notSent')}</Tag> : <Tag color={codeColor(row.httpCode)}>{row.httpCode}</Tag>;
  return (
    <LogCard<NotificationLog>
      title={t('developer.notificationLogTitle')}
      log={log}
      empty={t('developer.noDeliveries')}
      open={open}
      setOpen={setOpen}
      filters={
        <>
          <Select
            allowClear
            placeholder={t('developer.eventType')}
            aria-label={t('developer.eventType')}
            style={{ width: 170 }}
            options={types.map((x) => ({ value: x.type, label: x.label }))}
            onChange={(eventType?: string) => setFilters((f) => ({ ...f, eventType, subtype: undefined }))}
          />
          <Select
            allowClear
            placeholder={t('developer.subtype')}
            aria-label={t('developer.subtype')}
            style={{ width: 220 }}
            disabled={!filters.eventType}
            value={filters.subtype}
            options={subtypes.map((s) => ({ value: s.subtype, label: s.label }))}
            onChange={(subtype?: string) => setFilters((f) => ({ ...f, subtype }))}
          />
          <Select
            allowClear
            placeholder={t('developer.outcome')}
            aria-label={t('developer.outcome')}
            style={{ width: 170 }}
            options={[
              { value: 'failed', label: t('developer.failedOnly') },
              { value: 'ok', label: t('developer.deliveredOnly') },
            ]}
            onChange={(v?: string) => setFilters((f) => ({ ...f, failed: v === undefined ? undefined : v === 'failed' }))}
          />
        </>
      }
      columns={[
        { title: t('developer.sentAt'), dataIndex: 'sentAt', render: (v: string) => <DateTime value={v} /> },
        { title: t('developer.eventType'), dataIndex: 'eventType', render: (v: string) => typeLabel(v) },
        { title: t('developer.subtype'), dataIndex: 'subtype', render: (v: string | null, row: NotificationLog) => subtypeLabel(row.eventType, v) },
        { title: t('developer.url'), dataIndex: 'url', ellipsis: true },
        { title: t('developer.httpCode'), dataIndex: 'httpCode', render: (_: unknown, row: NotificationLog) => result(row) },
        { title: t('developer.attempt'), dataIndex: 'attempt', align: 'right' as const },
      ]}
      drawer={{
        title: open ? `${typeLabel(open.eventType)} · ${subtypeLabel(open.eventType, open.subtype)}` : '',
        extra: open && (
          <Button type="primary" icon={<SendOutlined />} loading={replaying} onClick={() => void replay(open)}>
            {t('developer.replay')}
          </Button>
        ),
        children: open && (
          <>
            <Descriptions column={1} size="small" bordered style={{ marginBottom: 16 }}>
              <Descriptions.Item label={t('developer.sentAt')}>
                <DateTime value={open.sentAt} />
              </Descriptions.Item>
              <Descriptions.Item label={t('developer.url')}>{open.url}</Descriptions.Item>
              <Descriptions.Item label={t('developer.httpCode')}>{result(open)}</Descriptions.Item>
              <Descriptions.Item label={t('developer.attempt')}>{open.attempt}</Descriptions.Item>
              {open.messageId && (
                <Descriptions.Item label={t('developer.messageId')}>
                  <Copyable value={open.messageId} label={t('developer.copyMessageId')} />
                </Descriptions.Item>
              )}
              {open.error && <Descriptions.Item label={t('developer.error')}>{open.error}</Descriptions.Item>}
            </Descriptions>
            <Typography.Title level={5}>{t('developer.body')}</Typography.Title>
            <Pre text={open.payload} />
            <Typography.Title level={5}>{t('developer.response')}</Typography.Title>
            <Pre text={open.response} />
          </>
        ),
      }}
    />
  );
}

export function DeveloperPage() {
  const { t } = useTranslation();
  const [params, setParams] = useSearchParams();
  const tab: Tab = (TABS as readonly string[]).includes(params.get('tab') ?? '') ? (params.get('tab') as Tab) : 'apiKeys';
  return (
    <>
      <Typography.Title level={3}>{t('menu.developerView')}</Typography.Title>
      <Tabs
        activeKey={tab}
        onChange={(k) => setParams({ tab: k }, { replace: true })}
        destroyOnHidden
        items={[
          { key: 'apiKeys', label: t('developer.tabs.apiKeys'), children: <ApiKeysTab /> },
          { key: 'webhook', label: t('developer.tabs.webhook'), children: <WebhookTab /> },
          { key: 'apiLog', label: t('developer.tabs.apiLog'), children: <ApiLogTab /> },
          { key: 'notificationLog', label: t('developer.tabs.notificationLog'), children: <NotificationLogTab /> },
        ]}
      />
    </>
  );
}
