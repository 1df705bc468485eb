/**
 * An invoice's lifecycle on its detail page: its versions, its payments (settles) and its lines by SKU, and
 * the dialogs of the actions the role may take (publish, correct, record a payment). The server decides what a state
 * allows; the page offers only what the state and the role allow.
 */
import { App, Button, Card, Empty, Form, Input, InputNumber, Popconfirm, Space, Table, Tag, Typography, type TableProps } from 'antd';
import { useEffect, useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { dueDateOf, type DepositDraw } from '../../../common/billing';
import { formatKb } from '../../resources/cell';
import { maxChars, numberIn } from '../../components/form-rules';
import { FormDialog, useSubmit } from '../../components/submit-dialog';
import { api } from '../../providers/http';
import { numberFormat } from '../../../common/numbers';

interface Version {
  id: string;
  billId: string;
  version: number;
  status: string;
  isCurrent: boolean;
  amountInclTax: number;
  currency: string;
  billingDate: string;
  correctionReason: string | null;
}
interface Settle {
  id: number;
  amount: number;
  currency: string;
  paidOn: string;
  reference: string;
  /** deposit: the invoice's draw on the organisation's deposit when it was issued. */
  kind: 'payment' | 'deposit';
  recordedBy: string | null;
}
/** A pool's line of an invoice: the job writes every figure; a seeded invoice names the pool only. */
interface PoolLine {
  poolId: string;
  name: string;
  sims?: number | null;
  usageKb?: number | null;
  sizeKb?: number | null;
  overageKb?: number | null;
  overageAmount?: number | null;
}
interface SkuLine {
  sku: string;
  sims: number;
  bundleQuantity: number;
  bundleAmount: number;
  overageAmount: number;
  amount: number;
}

const STATUS_COLORS: Record<string, string> = { draft: 'default', published: 'blue', paid: 'green', obsolete: 'red' };

function useMoney() {
  const { i18n } = useTranslation();
  return (n: number, currency: string) => numberFormat(i18n.language, { style: 'currency', currency }).format(n);
}

/** A titled card with a small table of all its rows, loading until they come (null). */
function TableCard<T extends object>({ title, rows, ...table }: { title: string; rows: T[] | null } & Pick<TableProps<T>, 'rowKey' | 'columns'>) {
  return (
    <Card size="small" title={title}>
      <Table<T> size="small" loading={!rows} dataSource={rows ?? []} pagination={false} {...table} />
    </Card>
  );
}

/** Versions, payments and the extract of the invoice at base (its API path); read again when round changes. */
export function InvoiceHistory({ base, round, onOpen }: { base: string; round: number; onOpen: (id: string) => void }) {
  const { t, i18n } = useTranslation();
  const money = useMoney();
  // A seeded invoice's pool details carry the pool's name only: a missing figure is shown as missing, not NaN.
  const kb = (n: number | null | undefined) => (n === null || n === undefined ? '—' : formatKb(n, i18n.language));
  const [versions, setVersions] = useState<Version[] | null>(null);
  const [settles, setSettles] = useState<{ items: Settle[]; paid: number; outstanding: number } | null>(null);
  const [extract, setExtract] = useState<SkuLine[] | null>(null);
  const [pools, setPools] = useState<PoolLine[]>([]);
  useEffect(() => {
    let live = true;
    void Promise.all([
      api<{ items: Version[] }>('GET', `${base}/versions`, undefined, { quiet: true }),
      api<{ items: Settle[]; paid: number; outstanding: number }>('GET', `${base}/settles`, undefined, { quiet: true }),
      api<{ items: SkuLine[] }>('GET', `${base}/extract`, undefined, { quiet: true }),
      api<{ items: PoolLine[] }>('GET', `${base}/shared_pool/details`, undefined, { quiet: true }),
    ]).then(
      ([v, s, e, p]) => {
        if (!live) return;
        setVersions(v.items);
        setSettles(s);
        setExtract(e.items);
        setPools(p.items);
      },
      () => undefined,
    );
    return () => void (live = false);
  }, [base, round]);
  const self = versions?.find((v) => base.endsWith(`/${encodeURIComponent(v.id)}`));
  const currency = self?.currency ?? versions?.[0]?.currency ?? 'EUR';
  return (
    <Space direction="vertical" size="middle" style={{ width: '100%' }}>
      <TableCard<Version>
        title={t('invoiceActions.versions')}
        rowKey="id"
        rows={versions}
        columns={[
          {
            key: 'version',
            title: t('invoices.fields.version'),
            render: (_, v) => (
              <Space>
                <span>v{v.version}</span>
                {v.isCurrent && <Tag color="geekblue">{t('invoiceActions.current')}</Tag>}
              </Space>
            ),
          },
          {
            key: 'status',
            title: t('invoices.fields.status'),
            render: (_, v) => <Tag color={STATUS_COLORS[v.status]}>{t(`invoices.enum.status.${v.status}`)}</Tag>,
          },
          { key: 'amount', title: t('invoices.fields.amountInclTax'), align: 'right', render: (_, v) => money(v.amountInclTax, v.currency) },
          { key: 'date', title: t('invoices.fields.billingDate'), dataIndex: 'billingDate' },
          { key: 'reason', title: t('invoices.fields.correctionReason'), render: (_, v) => v.correctionReason ?? '—' },
          {
            key: 'open',
            title: '',
            render: (_, v) =>
              v.id === self?.id ? null : (
                <Button type="link" size="small" onClick={() => onOpen(v.id)}>
                  {t('invoiceActions.openVersion')} v{v.version}
                </Button>
              ),
          },
        ]}
      />
      <Card
        size="small"
        title={t('invoiceActions.settles')}
        extra={
          settles && self ? (
            <Typography.Text type="secondary">
              {t('invoiceActions.paidSoFar', {
                paid: money(settles.paid, currency),
                total: money(self.amountInclTax, currency),
                outstanding: money(settles.outstanding, currency),
              })}
            </Typography.Text>
          ) : null
        }
      >
        <Table<Settle>
          size="small"
          rowKey="id"
          loading={!settles}
          dataSource={settles?.items ?? []}
          pagination={false}
          locale={{ emptyText: <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('invoiceActions.noSettles')} /> }}
          columns={[
            { key: 'paidOn', title: t('invoiceActions.paidOn'), dataIndex: 'paidOn' },
            {
              key: 'reference',
              title: t('invoiceActions.reference'),
              render: (_, s) => (s.kind === 'deposit' ? <Tag color="gold">{t('invoiceActions.fromDeposit')}</Tag> : s.reference),
            },
            { key: 'amount', title: t('invoiceActions.amount'), align: 'right', render: (_, s) => money(s.amount, s.currency) },
            { key: 'by', title: '', render: (_, s) => <Typography.Text type="secondary">{s.recordedBy ?? ''}</Typography.Text> },
          ]}
        />
      </Card>
      <TableCard<SkuLine>
        title={t('invoiceActions.extract')}
        rowKey="sku"
        rows={extract}
        columns={[
          { key: 'sku', title: t('invoices.fields.sku'), render: (_, l) => l.sku || '—' },
          { key: 'sims', title: t('invoiceActions.sims'), dataIndex: 'sims', align: 'right' },
          { key: 'qty', title: t('invoices.fields.bundleQuantity'), dataIndex: 'bundleQuantity', align: 'right' },
          { key: 'bundle', title: t('invoices.fields.bundlePrice'), align: 'right', render: (_, l) => money(l.bundleAmount, currency) },
          { key: 'overage', title: t('invoices.fields.overagePrice'), align: 'right', render: (_, l) => money(l.overageAmount, currency) },
          { key: 'amount', title: t('invoiceActions.amount'), align: 'right', render: (_, l) => money(l.amount, currency) },
        ]}
      />
      {pools.length > 0 && (
        <Card size="small" title={t('invoiceActions.pools')}>
          <Table<PoolLine>
            size="small"
            rowKey="poolId"
            dataSource={pools}
            pagination={false}
            columns={[
              { key: 'name', title: t('invoiceActions.pool'), dataIndex: 'name' },
              { key: 'sims', title: t('invoiceActions.sims'), align: 'right', render: (_, p) => p.sims ?? '—' },
              { key: 'usage', title: t('invoices.fields.usageKb'), align: 'right', render: (_, p) => kb(p.usageKb) },
              { key: 'size', title: t('invoiceActions.poolSize'), align: 'right', render: (_, p) => kb(p.sizeKb) },
              { key: 'overage', title: t('invoices.fields.overageQuantityKb'), align: 'right', render: (_, p) => kb(p.overageKb) },
              {
                key: 'charged',
                title: t('invoices.fields.overagePrice'),
                align: 'right',
                render: (_, p) => (p.overageAmount == null ? '—' : money(Number(p.overageAmount), currency)),
              },
            ]}
          />
        </Card>
      )}
    </Space>
  );
}

/** Publish a draft, after saying when it will be due. */
export function PublishButton({ url, icon, onDone }: { url: string; icon: ReactNode; onDone: () => void }) {
  const { t } = useTranslation();
  const { busy, submit } = useSubmit(() => api('POST', url), onDone, { success: () => t('invoiceActions.published') });
  return (
    <Popconfirm title={t('invoiceActions.publish')} description={t('invoiceActions.publishConfirm', { due: dueDateOf(new Date()) })} onConfirm={submit}>
      <Button icon={icon} loading={busy}>
        {t('invoiceActions.publish')}
      </Button>
    </Popconfirm>
  );
}

/** A correction: a reason, then the new version opens. */
export function CorrectDialog({ open, url, onClose, onDone }: { open: boolean; url: string; onClose: () => void; onDone: (newId: string) => void }) {
  const { t, i18n } = useTranslation();
  const [form] = Form.useForm<{ reason?: string }>();
  const { dialog } = useSubmit(
    ({ reason }: { reason?: string }) => api<{ id: string; version: number }>('POST', url, reason?.trim() ? { reason: reason.trim() } : {}),
    (made) => onDone(made.id),
    { form, reset: true, success: (made) => t('invoiceActions.corrected', { version: made.version }) },
  );
  return (
    <FormDialog
      open={open}
      title={t('invoiceActions.correctTitle')}
      okText={t('invoiceActions.correct')}
      onCancel={onClose}
      {...dialog}
      help={t('invoiceActions.correctHelp')}
      form={form}
    >
      <Form.Item name="reason" label={t('invoiceActions.reason')} rules={[maxChars(t, i18n.language, t('invoiceActions.reason'), 200)]}>
        <Input.TextArea count={{ show: true, max: 200 }} autoSize={{ minRows: 2 }} />
      </Form.Item>
    </FormDialog>
  );
}

/** Record a payment: amount (cents), the day it was paid (not later than today), the bank's reference. */
export function SettleDialog({
  open,
  url,
  currency,
  onClose,
  onDone,
  onOpen,
}: {
  open: boolean;
  url: string;
  currency: string;
  onClose: () => void;
  onDone: () => void;
  onOpen: (id: string) => void;
}) {
  const { t, i18n } = useTranslation();
  const lang = i18n.language;
  const { notification } = App.useApp();
  const money = useMoney();
  const [form] = Form.useForm<{ amount: number; paidOn: string; reference: string }>();
  const today = new Date().toISOString().slice(0, 10);
  // A deposit so paid pays the invoices issued before it (docs/decisions.md): the person is told which, and how much,
  // with links, in a notice that stays until closed (a toast would be gone before the list is read).
  const told = (draws: DepositDraw[]) => {
    const key = `deposit-draws-${url}`;
    notification.success({
      key,
      duration: 0,
      message: t('invoiceActions.settledFromDeposit', { count: draws.length }),
      description: (
        <ul style={{ paddingInlineStart: 20, margin: 0 }} aria-label={t('invoiceActions.drawsList')}>
          {draws.map((d) => (
            <li key={d.invoiceId}>
              <Typography.Link
                onClick={() => {
                  notification.destroy(key);
                  onOpen(d.invoiceId);
                }}
              >
                {d.billId}
              </Typography.Link>{' '}
              {t(d.paid ? 'invoiceActions.drawPaid' : 'invoiceActions.drawPart', { amount: money(d.amount, d.currency) })}
            </li>
          ))}
        </ul>
      ),
    });
  };
  const { dialog } = useSubmit(
    (values: { amount: number; paidOn: string; reference: string }) =>
      api<{ depositDraws?: DepositDraw[] }>('POST', url, { amount: values.amount, paidOn: values.paidOn, reference: values.reference.trim() }),
    (r) => {
      if (r.depositDraws?.length) told(r.depositDraws);
      onDone();
    },
    { form, reset: true, success: (r) => (r.depositDraws?.length ? null : t('invoiceActions.settled')) },
  );
  return (
    <FormDialog
      open={open}
      title={t('invoiceActions.settle')}
      okText={t('invoiceActions.settle')}
      onCancel={onClose}
      {...dialog}
      form={form}
      initialValues={{ paidOn: today }}
    >
      <Form.Item
        name="amount"
        label={`${t('invoiceActions.amount')} (${currency})`}
        rules={[{ required: true }, numberIn(t, lang, t('invoiceActions.amount'), 0.01, 999_999_999_999, 2)]}
      >
        <InputNumber step={0.01} style={{ width: '100%' }} />
      </Form.Item>
      <Form.Item name="paidOn" label={t('invoiceActions.paidOn')} rules={[{ required: true }]}>
        <Input type="date" max={today} />
      </Form.Item>
      <Form.Item
        name="reference"
        label={t('invoiceActions.reference')}
        rules={[{ required: true, whitespace: true }, maxChars(t, lang, t('invoiceActions.reference'), 64)]}
      >
        <Input count={{ show: true, max: 64 }} />
      </Form.Item>
    </FormDialog>
  );
}
