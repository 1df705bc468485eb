/**
 * Invoices (finance), invoice detail (financeDetailsPage) and SIM invoice detail (financeSimDetailsPage), from
 * schemas/invoices.json and invoice-lines.json; the PDF is made by the server.
 */
import {
  ArrowLeftOutlined,
  BankOutlined,
  EditOutlined,
  EyeOutlined,
  FilePdfOutlined,
  RollbackOutlined,
  SendOutlined,
  UnorderedListOutlined,
  WalletOutlined,
} from '@ant-design/icons';
import { useOne } from '@refinedev/core';
import { Alert, Button, Skeleton, Space } from 'antd';
import { useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate, useParams } from 'react-router';
import { RESOURCES } from '../../../common/resource-registry';
import { pageTexts } from '../../components/page-texts';
import { download, saveFile } from '../../providers/http';
import { currentAbility } from '../../shell/ability';
import { CorrectDialog, InvoiceHistory, PublishButton, SettleDialog } from './invoice-lifecycle';
import { DetailsDownload, RunInvoicesButton } from './invoice-tasks';
import { CreditDialog, DepositButton, SettlementCard, SettlementDialog } from './invoice-types';
import { ResourceListPage } from '../../resources/resource-list-page';
import { ResourceShowPage, usePageAddress } from '../../resources/resource-show-page';

/** The invoice pages' own words (versions, payments, actions), fetched with the pages (src/components/page-texts.ts). */
const useInvoiceTexts = pageTexts(
  import.meta.glob<Record<string, unknown>>('./invoice-locales/*.json', { import: 'default' }),
  'invoiceActions.publish',
).useReady;
const BILLS = '/api/customer/cube/v2/api/customer/bills';

type Invoice = Record<string, unknown> & {
  id: string;
  billId: string;
  status: string;
  dueDate: string;
  currency: string;
  billingCycle?: string;
  version?: number;
};
type Dialog = 'correct' | 'settle' | 'credit' | 'settlement';

export function InvoicesPage() {
  const { t } = useTranslation();
  const { lang } = useParams();
  const navigate = useNavigate();
  const ready = useInvoiceTexts();
  const open = (id: string) => `/${lang}/financeDetailsPage?id=${encodeURIComponent(id)}`;
  const can = (action: string) => ready && currentAbility().can(action, 'customer-bill-cube');
  // Running the invoice job for a closed month (generate), and a deposit requested here, where the organisation's
  // invoices are: the new invoice opens.
  const extra = (
    <Space>
      {can('generate') && <RunInvoicesButton bills={BILLS} />}
      {can('deposit') && <DepositButton onDone={(id) => navigate(open(id))} />}
    </Space>
  );
  return <ResourceListPage resource={RESOURCES.invoices} title={t('menu.finance')} extra={extra} showPath={(row) => open(String(row.id))} />;
}

/** Published and past its due date (SPEC.md section 9's due date, a UTC calendar day). */
// A credit note is owed to the customer, not by it: never overdue.
const overdue = (inv: Invoice) => inv.status === 'published' && inv.type !== 'credit' && inv.dueDate < new Date().toISOString().slice(0, 10);

export function InvoiceDetailPage() {
  const { t } = useTranslation();
  const { navigate, lang, id } = usePageAddress();
  const [busy, setBusy] = useState<string | null>(null);
  const [dialog, setDialog] = useState<Dialog | null>(null);
  // Bumped after an action, so the versions and payments are read again with the record.
  const [round, setRound] = useState(0);
  const ready = useInvoiceTexts();
  const ability = currentAbility();
  const may = (action: string) => ability.can(action, 'customer-bill-cube');
  const fetchFile = async (key: string, url: string, name: string) => {
    setBusy(key);
    try {
      saveFile(await download('GET', url), name);
    } catch {
      // The HTTP helper has already said why.
    } finally {
      setBusy(null);
    }
  };
  if (!ready) return <Skeleton active paragraph={{ rows: 8 }} />;
  const base = `${BILLS}/${encodeURIComponent(id)}`;
  const openInvoice = (v: string) => navigate(`/${lang}/financeDetailsPage?id=${encodeURIComponent(v)}`);
  // An action that opens its dialog: shown when the invoice's state and the role allow it, in this order.
  const dialogButtons = (actions: Array<[shown: boolean, key: Dialog, icon: ReactNode, label: string]>) =>
    actions.map(([shown, key, icon, label]) =>
      shown ? (
        <Button key={key} icon={icon} onClick={() => setDialog(key)}>
          {t(label)}
        </Button>
      ) : null,
    );
  return (
    <ResourceShowPage
      key={id}
      resource={RESOURCES.invoices}
      id={id}
      title={t('invoices.one')}
      onBack={() => navigate(`/${lang}/finance`)}
      before={(record) => (overdue(record as Invoice) ? <Alert type="error" showIcon message={t('invoices.overdue')} /> : null)}
      extra={(record, reload) => {
        const inv = record as Invoice & { version: number; type: string; isCurrent: boolean; amountInclTax: number };
        const after = () => {
          setDialog(null);
          setRound((n) => n + 1);
          reload();
        };
        // A correction or a credit note opens the invoice it made.
        const opened = (v: string) => {
          setDialog(null);
          openInvoice(v);
        };
        const correctable = inv.isCurrent && inv.type === 'post_payment' && (inv.status === 'draft' || inv.status === 'published');
        const creditable = inv.isCurrent && (inv.type === 'post_payment' || inv.type === 'advance') && (inv.status === 'published' || inv.status === 'paid');
        return (
          <>
            <Button icon={<UnorderedListOutlined />} onClick={() => navigate(`/${lang}/financeSimDetailsPage?id=${encodeURIComponent(id)}`)}>
              {t('invoices.simDetails')}
            </Button>
            {may('export') && <DetailsDownload url={`${base}/details/download`} fallbackName={`${inv.billId}-details`} />}
            {inv.status === 'draft' && (
              <Button
                icon={<EyeOutlined />}
                loading={busy === 'preview'}
                onClick={() => void fetchFile('preview', `${base}/preview/pdf`, `${inv.billId}-preview.pdf`)}
              >
                {t('invoiceActions.preview')}
              </Button>
            )}
            {dialogButtons([
              [correctable && may('correct'), 'correct', <EditOutlined />, 'invoiceActions.correct'],
              [inv.status === 'draft' && inv.isCurrent && may('settlement'), 'settlement', <BankOutlined />, 'invoiceTypes.editSettlement'],
              [creditable && may('credit'), 'credit', <RollbackOutlined />, 'invoiceTypes.credit'],
              [inv.status === 'published' && inv.type !== 'credit' && may('settle'), 'settle', <WalletOutlined />, 'invoiceActions.settle'],
            ])}
            {inv.status === 'draft' && may('publish') && <PublishButton url={`${base}/publish`} icon={<SendOutlined />} onDone={after} />}
            <Button
              type="primary"
              icon={<FilePdfOutlined />}
              loading={busy === 'pdf'}
              onClick={() => void fetchFile('pdf', `${base}/download/pdf`, `${inv.billId}.pdf`)}
            >
              {t('invoices.pdf')}
            </Button>
            <CorrectDialog open={dialog === 'correct'} url={`${base}/versions`} onClose={() => setDialog(null)} onDone={opened} />
            <SettleDialog
              open={dialog === 'settle'}
              url={`${base}/settles`}
              currency={inv.currency}
              onClose={() => setDialog(null)}
              onDone={after}
              onOpen={openInvoice}
            />
            <SettlementDialog open={dialog === 'settlement'} url={`${base}/settlement`} onClose={() => setDialog(null)} onDone={after} />
            <CreditDialog open={dialog === 'credit'} base={base} currency={inv.currency} onClose={() => setDialog(null)} onDone={opened} />
          </>
        );
      }}
    >
      <Space direction="vertical" size="middle" style={{ width: '100%' }}>
        <SettlementCard base={base} round={round} onOpen={openInvoice} />
        <InvoiceHistory base={base} round={round} onOpen={openInvoice} />
      </Space>
    </ResourceShowPage>
  );
}

/** An invoice as a filter names it: its number, "v2" after the first version, and its month in the reader's language. */
function invoiceScope(inv: Pick<Invoice, 'billId' | 'version' | 'billingCycle'>, language: string): string {
  const version = inv.version && inv.version > 1 ? ` v${inv.version}` : '';
  const [y, m] = (inv.billingCycle ?? '').split('-').map(Number);
  const month = y && m ? new Intl.DateTimeFormat(language, { year: 'numeric', month: 'long', timeZone: 'UTC' }).format(Date.UTC(y, m - 1, 1)) : '';
  return `${inv.billId}${version}${month ? ` · ${month}` : ''}`;
}

export function InvoiceSimDetailsPage() {
  const { t, i18n } = useTranslation();
  const { navigate, lang, id } = usePageAddress();
  // Opened without an invoice (a bookmark, the route table): nothing to ask for, and no error toast for it.
  const { result } = useOne<Invoice>({
    resource: 'invoices',
    id,
    meta: { one: RESOURCES.invoices['x-admin'].show!.call },
    errorNotification: false,
    queryOptions: { enabled: id !== '' },
  });
  return (
    <Space direction="vertical" size="middle" style={{ width: '100%' }}>
      <Button icon={<ArrowLeftOutlined />} onClick={() => navigate(`/${lang}/financeDetailsPage?id=${encodeURIComponent(id)}`)}>
        {t('resources.back')}
      </Button>
      <ResourceListPage
        resource={RESOURCES.invoiceLines}
        title={t('invoices.simDetailsOf', { bill: result?.billId ?? '…' })}
        fixedFilters={{ invoiceId: id }}
        // The Invoice filter names the invoice the lines are of: its number (and version after the first) and month.
        fixedShown={{ invoiceId: result?.billId ? invoiceScope(result, i18n.language) : '…' }}
        cellContext={{ currency: result?.currency }}
      />
    </Space>
  );
}
