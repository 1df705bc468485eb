/**
 * Invoices (finance), invoice detail (financeDetailsPage) and SIM invoice detail (financeSimDetailsPage), from
 * schemas/invoices.json and invoice-lines.json; the PDF is made by the server.
 */
import { ArrowLeftOutlined, DownloadOutlined, EditOutlined, EyeOutlined, FilePdfOutlined, SendOutlined, UnorderedListOutlined, WalletOutlined } from '@ant-design/icons';
import { useOne } from '@refinedev/core';
import { Alert, Button, Skeleton, Space } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate, useParams, useSearchParams } from 'react-router';
import { RESOURCES } from '../../../common/resource-registry';
import { pageTexts } from '../../components/page-texts';
import { download, saveFile } from '../../providers/http';
import { currentAbility } from '../../shell/ability';
import { CorrectDialog, InvoiceHistory, PublishButton, SettleDialog } from './invoice-lifecycle';
import { ResourceListPage } from '../../resources/resource-list-page';
import { ResourceShowPage } from '../../resources/resource-show-page';

/** The invoice pages' own words (versions, payments, actions), fetched with the pages (src/components/page-texts.ts). */
const useInvoiceTexts = pageTexts(import.meta.glob<Record<string, unknown>>('./invoice-locales/*.json', { import: 'default' }), 'invoiceActions.publish').useReady;
const BILLS = '/api/customer/cube/v2/api/customer/bills';

type Invoice = Record<string, unknown> & { id: string; billId: string; status: string; dueDate: string; currency: string };

export function InvoicesPage() {
  const { t } = useTranslation();
  const { lang } = useParams();
  return <ResourceListPage resource={RESOURCES.invoices} title={t('menu.finance')} showPath={(row) => `/${lang}/financeDetailsPage?id=${encodeURIComponent(String(row.id))}`} />;
}

/** Published and past its due date (SPEC.md section 9's due date, a UTC calendar day). */
const overdue = (inv: Invoice) => inv.status === 'published' && inv.dueDate < new Date().toISOString().slice(0, 10);

export function InvoiceDetailPage() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const { lang } = useParams();
  const [params] = useSearchParams();
  const id = params.get('id') ?? '';
  const [busy, setBusy] = useState<string | null>(null);
  const [dialog, setDialog] = useState<'correct' | 'settle' | null>(null);
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
  return (
    <ResourceShowPage
      key={id}
      resource={RESOURCES.invoices}
      id={id}
      title={t('invoices.one')}
      onBack={() => navigate(`/${lang}/finance`)}
      before={(record) => (overdue(record as Invoice) ? <Alert type="error" showIcon message={t('invoices.overdue')} /> : null)}
      extra={(record, reload) => {
        const inv = record as Invoice & { version: number; type: string; isCurrent: boolean };
        const after = () => {
          setDialog(null);
          setRound((n) => n + 1);
          reload();
        };
        const correctable = inv.isCurrent && inv.type === 'post_payment' && (inv.status === 'draft' || inv.status === 'published');
        return (
          <>
            <Button icon={<UnorderedListOutlined />} onClick={() => navigate(`/${lang}/financeSimDetailsPage?id=${encodeURIComponent(id)}`)}>
              {t('invoices.simDetails')}
            </Button>
            {may('export') && (
              <Button icon={<DownloadOutlined />} loading={busy === 'csv'} onClick={() => void fetchFile('csv', `${base}/details/download`, `${inv.billId}-details.csv`)}>
                {t('invoiceActions.detailsCsv')}
              </Button>
            )}
            {inv.status === 'draft' && (
              <Button icon={<EyeOutlined />} loading={busy === 'preview'} onClick={() => void fetchFile('preview', `${base}/preview/pdf`, `${inv.billId}-preview.pdf`)}>
                {t('invoiceActions.preview')}
              </Button>
            )}
            {correctable && may('correct') && (
              <Button icon={<EditOutlined />} onClick={() => setDialog('correct')}>
                {t('invoiceActions.correct')}
              </Button>
            )}
            {inv.status === 'published' && may('settle') && (
              <Button icon={<WalletOutlined />} onClick={() => setDialog('settle')}>
                {t('invoiceActions.settle')}
              </Button>
            )}
            {inv.status === 'draft' && may('publish') && <PublishButton url={`${base}/publish`} icon={<SendOutlined />} onDone={after} />}
            <Button type="primary" icon={<FilePdfOutlined />} loading={busy === 'pdf'} onClick={() => void fetchFile('pdf', `${base}/download/pdf`, `${inv.billId}.pdf`)}>
              {t('invoices.pdf')}
            </Button>
            <CorrectDialog open={dialog === 'correct'} url={`${base}/versions`} onClose={() => setDialog(null)} onDone={(v) => {
              setDialog(null);
              navigate(`/${lang}/financeDetailsPage?id=${encodeURIComponent(v)}`);
            }} />
            <SettleDialog open={dialog === 'settle'} url={`${base}/settles`} currency={inv.currency} onClose={() => setDialog(null)} onDone={after} />
          </>
        );
      }}
    >
      <InvoiceHistory base={base} round={round} onOpen={(v) => navigate(`/${lang}/financeDetailsPage?id=${encodeURIComponent(v)}`)} />
    </ResourceShowPage>
  );
}

export function InvoiceSimDetailsPage() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const { lang } = useParams();
  const [params] = useSearchParams();
  const id = params.get('id') ?? '';
  // Opened without an invoice (a bookmark, the route table): nothing to ask for, and no error toast for it.
  const { result } = useOne<Invoice>({ resource: 'invoices', id, meta: { one: RESOURCES.invoices['x-admin'].show!.call }, errorNotification: false, queryOptions: { enabled: id !== '' } });
  return (
    <Space direction="vertical" size="middle" style={{ width: '100%' }}>
      <Button icon={<ArrowLeftOutlined />} onClick={() => navigate(`/${lang}/financeDetailsPage?id=${encodeURIComponent(id)}`)}>
        {t('resources.back')}
      </Button>
      <ResourceListPage
        resource={RESOURCES.invoiceLines}
        title={t('invoices.simDetailsOf', { bill: result?.billId ?? '…' })}
        fixedFilters={{ invoiceId: id }}
        cellContext={{ currency: result?.currency }}
      />
    </Space>
  );
}
