/**
 * Invoices' work in the task center: the invoice job run for a closed month from the invoices list, and an
 * invoice's lines downloaded as CSV or XLSX, which a large invoice has prepared in the task center instead.
 */
import { CalculatorOutlined, DownloadOutlined } from '@ant-design/icons';
import { Alert, App, Button, Form, Modal, Select, Space, Typography } from 'antd';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate, useParams } from 'react-router';
import { api, downloadOrTask, saveFile } from '../../providers/http';
import { formatNumber } from '../../../common/numbers';

/** The months from earliest to latest (YYYY-MM), newest first. */
function monthsBetween(earliest: string, latest: string): string[] {
  const [y, m] = latest.split('-').map(Number);
  const out: string[] = [];
  for (let back = 0; ; back++) {
    const month = new Date(Date.UTC(y, m - 1 - back, 1)).toISOString().slice(0, 7);
    if (month < earliest) return out;
    out.push(month);
  }
}

/** A month as the reader's language names it ("October 2026", "2026年10月"). */
const monthName = (month: string, lang: string) =>
  new Intl.DateTimeFormat(lang, { year: 'numeric', month: 'long', timeZone: 'UTC' }).format(new Date(`${month}-01T00:00:00Z`));

/** A notice that the task center now holds a task, with the way there. */
function useTaskNotice() {
  const { t } = useTranslation();
  const { notification } = App.useApp();
  const navigate = useNavigate();
  const { lang } = useParams();
  return (message: string) =>
    notification.success({
      message,
      description: (
        <Button type="link" style={{ padding: 0 }} onClick={() => navigate(`/${lang}/taskcenter`)}>
          {t('invoiceActions.openTaskCenter')}
        </Button>
      ),
    });
}

/** "Make invoices": which closed month, what will happen, then the job as a task of the task center. */
export function RunInvoicesButton({ bills }: { bills: string }) {
  const { t, i18n } = useTranslation();
  const notice = useTaskNotice();
  const [open, setOpen] = useState(false);
  const [range, setRange] = useState<{ earliest: string; latest: string } | null>(null);
  const [month, setMonth] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    if (!open) return;
    let live = true;
    void api<{ earliest: string; latest: string }>('GET', `${bills}/generate/months`).then(
      (r) => {
        if (!live) return;
        setRange(r);
        setMonth((m) => m ?? r.latest);
      },
      () => setOpen(false),
    );
    return () => void (live = false);
  }, [open, bills]);
  const run = async () => {
    if (!month) return;
    setBusy(true);
    try {
      await api('POST', `${bills}/generate`, { month });
      setOpen(false);
      notice(t('invoiceActions.runStarted', { month: monthName(month, i18n.language) }));
    } catch {
      // The HTTP helper has said why (the field and the rule).
    } finally {
      setBusy(false);
    }
  };
  return (
    <>
      <Button icon={<CalculatorOutlined />} onClick={() => setOpen(true)}>
        {t('invoiceActions.run')}
      </Button>
      <Modal
        open={open}
        title={t('invoiceActions.runTitle')}
        okText={t('invoiceActions.run')}
        okButtonProps={{ disabled: !month }}
        confirmLoading={busy}
        onOk={() => void run()}
        onCancel={() => setOpen(false)}
        destroyOnHidden
      >
        <Form layout="vertical">
          <Form.Item label={t('invoiceActions.runMonth')} htmlFor="invoice-run-month" extra={t('invoiceActions.runMonthHelp')}>
            <Select
              id="invoice-run-month"
              loading={!range}
              value={month ?? undefined}
              onChange={setMonth}
              options={range ? monthsBetween(range.earliest, range.latest).map((m) => ({ value: m, label: monthName(m, i18n.language) })) : []}
            />
          </Form.Item>
        </Form>
        {month && (
          <Alert type="info" showIcon message={<Typography.Text>{t('invoiceActions.runWhat', { month: monthName(month, i18n.language) })}</Typography.Text>} />
        )}
      </Modal>
    </>
  );
}

/** The invoice's lines as CSV or XLSX: the file at once, or a notice that the task center prepares it. */
export function DetailsDownload({ url, fallbackName }: { url: string; fallbackName: string }) {
  const { t, i18n } = useTranslation();
  const notice = useTaskNotice();
  const [busy, setBusy] = useState(false);
  const fetch = async (format: 'csv' | 'xlsx') => {
    setBusy(true);
    try {
      const got = await downloadOrTask(`${url}?format=${format}`);
      if ('task' in got) notice(t('invoiceActions.detailsQueued', { lines: formatNumber(got.task.quantity, i18n.language) }));
      else saveFile(got.file, `${fallbackName}.${format}`);
    } catch {
      // The HTTP helper has already said why.
    } finally {
      setBusy(false);
    }
  };
  return (
    <Space.Compact>
      <Button icon={<DownloadOutlined />} loading={busy} onClick={() => void fetch('csv')}>
        {t('invoiceActions.detailsCsv')}
      </Button>
      <Button disabled={busy} onClick={() => void fetch('xlsx')} aria-label={t('invoiceActions.detailsXlsx')}>
        XLSX
      </Button>
    </Space.Compact>
  );
}
