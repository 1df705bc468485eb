/**
 * The other invoice types and the settlement details on the invoice pages (issue 20): a credit note issued against a
 * published or paid invoice, a deposit requested from the invoice list, and an invoice's settlement details (party,
 * bank, credit limit, currency, tax rate) with the organisation's deposit, edited on a draft. Money is sent in integer
 * minor units; the forms show major units with two decimals. The server decides what a state allows.
 */
import { Button, Card, Descriptions, Form, Input, InputNumber, Select, Tag, Typography } from 'antd';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { CURRENCIES } from '../../../common/currencies';
import { CREDIT_MAX_MINOR, ibanOk, type Settlement as SettlementDetails } from '../../../common/enterprise';
import { LayoutTables } from '../../components/layout-tables';
import { FormDialog, useSubmit } from '../../components/submit-dialog';
import { api } from '../../providers/http';

/** The settlement answer: the details, the invoice's state and what it credits, the organisation's deposit. */
interface Settlement extends SettlementDetails {
  status: string;
  editable: boolean;
  /** A credit note's credited invoice. */
  creditFor: string | null;
  creditForBillId: string | null;
  depositPaidMinor: number;
  depositRequestedMinor: number;
  /** What this invoice drew on the deposit when it was issued. */
  depositAppliedMinor: number;
  /** The organisation's paid deposit not yet drawn on. */
  depositLeftMinor: number;
}

/** Major units (two decimals) to integer minor units, without floating-point drift (19.99 → 1999). */
const toMinor = (major: number) => Math.round(major * 100);

function useMinorMoney() {
  const { i18n } = useTranslation();
  return (minor: number, currency: string) => new Intl.NumberFormat(i18n.language, { style: 'currency', currency }).format(minor / 100);
}

/** The invoice's settlement details and the organisation's deposit; read again when round changes. */
export function SettlementCard({ base, round, onOpen }: { base: string; round: number; onOpen: (id: string) => void }) {
  const { t, i18n } = useTranslation();
  const money = useMinorMoney();
  const [s, setS] = useState<Settlement | null>(null);
  useEffect(() => {
    let live = true;
    api<Settlement>('GET', `${base}/settlement`, undefined, { quiet: true }).then((d) => live && setS(d), () => undefined);
    return () => void (live = false);
  }, [base, round]);
  const none = <Typography.Text type="secondary">—</Typography.Text>;
  const percent = (bp: number) => new Intl.NumberFormat(i18n.language, { style: 'percent', maximumFractionDigits: 2 }).format(bp / 10000);
  return (
    <Card size="small" title={t('invoiceTypes.settlement')} loading={!s} data-testid="settlement-card" extra={s?.editable ? <Tag>{t('invoiceTypes.editableDraft')}</Tag> : null}>
      {s && (
        <LayoutTables>
          <Descriptions size="small" column={{ xs: 1, md: 2, xl: 3 }}>
            {s.creditFor && (
              <Descriptions.Item label={t('invoiceTypes.creditFor')}>
                <Typography.Link onClick={() => onOpen(s.creditFor!)}>{s.creditForBillId}</Typography.Link>
              </Descriptions.Item>
            )}
            <Descriptions.Item label={t('fields.settlementCustomer')}>{s.settlementCustomer ?? none}</Descriptions.Item>
            <Descriptions.Item label={t('fields.bankName')}>{s.bankName ?? none}</Descriptions.Item>
            <Descriptions.Item label={t('fields.iban')}>{s.iban ? <Typography.Text copyable>{s.iban}</Typography.Text> : none}</Descriptions.Item>
            <Descriptions.Item label={t('fields.bic')}>{s.bic ?? none}</Descriptions.Item>
            <Descriptions.Item label={t('fields.creditLimitMinor')}>{s.creditLimitMinor === null ? none : money(s.creditLimitMinor, s.currency)}</Descriptions.Item>
            <Descriptions.Item label={t('fields.currency')}>{s.currency}</Descriptions.Item>
            <Descriptions.Item label={t('fields.taxRateBp')}>{percent(s.taxRateBp)}</Descriptions.Item>
            <Descriptions.Item label={t('invoiceTypes.depositPaid')}>{money(s.depositPaidMinor, s.currency)}</Descriptions.Item>
            <Descriptions.Item label={t('invoiceTypes.depositRequested')}>{money(s.depositRequestedMinor, s.currency)}</Descriptions.Item>
            {s.depositAppliedMinor > 0 && (
              <Descriptions.Item label={t('invoiceTypes.depositApplied')}>
                <span data-testid="deposit-applied">{money(s.depositAppliedMinor, s.currency)}</span>
              </Descriptions.Item>
            )}
            <Descriptions.Item label={t('invoiceTypes.depositLeft')}>
              <span data-testid="deposit-left">{money(s.depositLeftMinor, s.currency)}</span>
            </Descriptions.Item>
          </Descriptions>
        </LayoutTables>
      )}
    </Card>
  );
}

type SettlementValues = Omit<Settlement, 'status' | 'editable' | 'creditFor' | 'creditForBillId' | 'depositPaidMinor' | 'depositRequestedMinor' | 'depositAppliedMinor' | 'depositLeftMinor' | 'creditLimitMinor' | 'taxRateBp'> & { creditLimit: number | null; taxPercent: number };

/** Edit a draft's settlement details; the organisation's billing profile takes them for the invoices to come. */
export function SettlementDialog({ open, url, onClose, onDone }: { open: boolean; url: string; onClose: () => void; onDone: () => void }) {
  const { t } = useTranslation();
  const [form] = Form.useForm<SettlementValues>();
  const currency = Form.useWatch('currency', form);
  useEffect(() => {
    if (!open) return;
    let live = true;
    api<Settlement>('GET', url).then(
      (s) => live && form.setFieldsValue({ ...s, creditLimit: s.creditLimitMinor === null ? null : s.creditLimitMinor / 100, taxPercent: s.taxRateBp / 100 }),
      () => undefined,
    );
    return () => void (live = false);
  }, [open, url, form]);
  const text = (s: string | null | undefined) => (s === undefined || s === null || s.trim() === '' ? null : s.trim());
  const { dialog } = useSubmit(
    (v: SettlementValues) =>
      api('PUT', url, {
        settlementCustomer: text(v.settlementCustomer),
        bankName: text(v.bankName),
        iban: text(v.iban),
        bic: text(v.bic),
        creditLimitMinor: v.creditLimit === null || v.creditLimit === undefined ? null : toMinor(v.creditLimit),
        currency: v.currency,
        taxRateBp: Math.round(v.taxPercent * 100),
      }),
    onDone,
    { form, success: () => t('invoiceTypes.settlementSaved') },
  );
  const upper = (v: string) => v?.toUpperCase().replace(/\s+/g, '');
  return (
    <FormDialog open={open} title={t('invoiceTypes.settlementTitle')} okText={t('invoiceTypes.save')} onCancel={onClose} width={620} {...dialog} help={t('invoiceTypes.settlementHelp')} form={form} name="settlement">
      <Form.Item name="settlementCustomer" label={t('fields.settlementCustomer')} rules={[{ max: 100 }]}>
        <Input maxLength={100} />
      </Form.Item>
      <div style={{ display: 'grid', gridTemplateColumns: 'repeat(auto-fit, minmax(240px, 1fr))', columnGap: 16 }}>
        <Form.Item name="bankName" label={t('fields.bankName')} rules={[{ max: 100 }]}>
          <Input maxLength={100} />
        </Form.Item>
        <Form.Item name="bic" label={t('fields.bic')} normalize={upper} rules={[{ pattern: /^[A-Z]{6}[A-Z0-9]{2}([A-Z0-9]{3})?$/, message: t('rules.pattern') }]}>
          <Input maxLength={11} />
        </Form.Item>
      </div>
      <Form.Item
        name="iban"
        label={t('fields.iban')}
        normalize={upper}
        rules={[
          {
            validator: async (_, v?: string) => {
              if (!v) return;
              if (!/^[A-Z]{2}[0-9]{2}[A-Z0-9]{11,30}$/.test(v)) throw new Error(t('rules.pattern'));
              if (!ibanOk(v)) throw new Error(t('rules.iban'));
            },
          },
        ]}
      >
        <Input maxLength={34} />
      </Form.Item>
      <div style={{ display: 'grid', gridTemplateColumns: 'repeat(auto-fit, minmax(170px, 1fr))', columnGap: 16 }}>
        <Form.Item name="currency" label={t('fields.currency')} rules={[{ required: true }]}>
          <Select showSearch options={CURRENCIES.map((c) => ({ value: c, label: c }))} />
        </Form.Item>
        <Form.Item name="creditLimit" label={t('fields.creditLimitMinor')}>
          <InputNumber min={0} max={CREDIT_MAX_MINOR / 100} precision={2} style={{ width: '100%' }} addonAfter={currency} />
        </Form.Item>
        <Form.Item name="taxPercent" label={t('fields.taxRateBp')} rules={[{ required: true }]}>
          <InputNumber min={0} max={99.99} precision={2} style={{ width: '100%' }} addonAfter="%" />
        </Form.Item>
      </div>
    </FormDialog>
  );
}

/** A credit note against the invoice: an amount (tax included) and a reason; the note opens when issued. */
export function CreditDialog({ open, url, currency, max, onClose, onDone }: { open: boolean; url: string; currency: string; max: number; onClose: () => void; onDone: (id: string) => void }) {
  const { t } = useTranslation();
  const [form] = Form.useForm<{ amount: number; reason: string }>();
  // A refusal (what is left to credit, when the amount is above it) is shown by the HTTP helper.
  const { dialog } = useSubmit(
    (v: { amount: number; reason: string }) => api<{ id: string; billId: string }>('POST', url, { amountMinor: toMinor(v.amount), reason: v.reason.trim() }),
    (note) => onDone(note.id),
    { form, reset: true, success: (note) => t('invoiceTypes.credited', { bill: note.billId }) },
  );
  return (
    <FormDialog open={open} title={t('invoiceTypes.creditTitle')} okText={t('invoiceTypes.credit')} onCancel={onClose} {...dialog} help={t('invoiceTypes.creditHelp')} form={form} name="credit">
      <Form.Item name="amount" label={`${t('fields.amount')} (${currency})`} rules={[{ required: true }]}>
        <InputNumber min={0.01} max={Math.max(0.01, max)} precision={2} step={0.01} style={{ width: '100%' }} />
      </Form.Item>
      <Form.Item name="reason" label={t('fields.reason')} rules={[{ required: true, whitespace: true, max: 200 }]}>
        <Input.TextArea maxLength={200} showCount autoSize={{ minRows: 2 }} />
      </Form.Item>
    </FormDialog>
  );
}

/** Request a deposit (an invoice of type predeposit, issued at once, without tax); the new invoice opens. */
export function DepositButton({ onDone }: { onDone: (id: string) => void }) {
  const { t } = useTranslation();
  const [open, setOpen] = useState(false);
  const [form] = Form.useForm<{ amount: number; reason?: string }>();
  const { dialog } = useSubmit(
    (v: { amount: number; reason?: string }) =>
      api<{ id: string; billId: string }>('POST', '/api/customer/cube/v2/api/customer/bills/predeposit', { amountMinor: toMinor(v.amount), ...(v.reason?.trim() ? { reason: v.reason.trim() } : {}) }),
    (dep) => {
      setOpen(false);
      onDone(dep.id);
    },
    { form, success: (dep) => t('invoiceTypes.depositRequestedOk', { bill: dep.billId }) },
  );
  return (
    <>
      <Button onClick={() => setOpen(true)}>{t('invoiceTypes.requestDeposit')}</Button>
      <FormDialog open={open} title={t('invoiceTypes.requestDeposit')} okText={t('invoiceTypes.request')} onCancel={() => setOpen(false)} {...dialog} help={t('invoiceTypes.depositHelp')} form={form} name="deposit">
        <Form.Item name="amount" label={t('fields.amount')} rules={[{ required: true }]}>
          <InputNumber min={0.01} max={99_999_999.99} precision={2} step={0.01} style={{ width: '100%' }} />
        </Form.Item>
        <Form.Item name="reason" label={t('fields.reason')} rules={[{ max: 200 }]}>
          <Input.TextArea maxLength={200} showCount autoSize={{ minRows: 2 }} />
        </Form.Item>
      </FormDialog>
    </>
  );
}
