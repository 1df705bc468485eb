/**
 * Invoices (finance), invoice detail (financeDetailsPage) and SIM invoice detail (financeSimDetailsPage), from
 * schemas/invoices.json and invoice-lines.json; the PDF is made by the server.
 */
import { ArrowLeftOutlined, FilePdfOutlined, UnorderedListOutlined } from '@ant-design/icons';
import { useOne } from '@refinedev/core';
import { Alert, Button, Space } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate, useParams, useSearchParams } from 'react-router';
import { RESOURCES } from '../../common/resource-registry';
import { download, saveFile } from '../providers/http';
import { ResourceListPage } from './resource-list-page';
import { ResourceShowPage } from './resource-show-page';

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
  const [busy, setBusy] = useState(false);
  const pdf = async (inv: Invoice) => {
    setBusy(true);
    try {
      saveFile(await download('GET', `/api/customer/cube/v2/api/customer/bills/${encodeURIComponent(inv.id)}/download/pdf`), `${inv.billId}.pdf`);
    } catch {
      // The HTTP helper has already said why.
    } finally {
      setBusy(false);
    }
  };
  return (
    <ResourceShowPage
      resource={RESOURCES.invoices}
      id={id}
      title={t('invoices.one')}
      onBack={() => navigate(`/${lang}/finance`)}
      before={(record) => (overdue(record as Invoice) ? <Alert type="error" showIcon message={t('invoices.overdue')} /> : null)}
      extra={(record) => (
        <>
          <Button icon={<UnorderedListOutlined />} onClick={() => navigate(`/${lang}/financeSimDetailsPage?id=${encodeURIComponent(id)}`)}>
            {t('invoices.simDetails')}
          </Button>
          <Button type="primary" icon={<FilePdfOutlined />} loading={busy} onClick={() => void pdf(record as Invoice)}>
            {t('invoices.pdf')}
          </Button>
        </>
      )}
    />
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
