/**
 * The other invoice types and the settlement details on the invoice pages: a credit note issued against a
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
import { maxChars, numberIn } from '../../components/form-rules';
import { FormDialog, useSubmit } from '../../components/submit-dialog';
import { api } from '../../providers/http';
import { formatMoney, numberFormat } from '../../../common/numbers';
import { ruleMessage } from '../../../common/validation-messages';

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
  /** What is left to credit on the invoice: its total less the credit notes issued (null for a type never credited). */
  creditLeftMinor: number | null;
}

/** The largest deposit in major units: a deposit's one line holds numeric(12, 4) (the server's DEPOSIT_MAX_MINOR). */
const DEPOSIT_MAX = 99_999_999.99;

/** Major units (two decimals) to integer minor units, without floating-point drift (19.99 → 1999). */
const toMinor = (major: number) => Math.round(major * 100);

function useMinorMoney() {
  const { i18n } = useTranslation();
  return (minor: number, currency: string) => formatMoney(minor, currency, i18n.language);
}

/** The invoice's settlement details and the organisation's deposit; read again when round changes. */
export function SettlementCard({ base, round, onOpen }: { base: string; round: number; onOpen: (id: string) => void }) {
  const { t, i18n } = useTranslation();
  const money = useMinorMoney();
  const [s, setS] = useState<Settlement | null>(null);
  useEffect(() => {
    let live = true;
    api<Settlement>('GET', `${base}/settlement`, undefined, { quiet: true }).then(
      (d) => live && setS(d),
      () => undefined,
    );
    return () => void (live = false);
  }, [base, round]);
  const none = <Typography.Text type="secondary">—</Typography.Text>;
  const percent = (bp: number) => numberFormat(i18n.language, { style: 'percent', maximumFractionDigits: 2 }).format(bp / 10000);
  return (
    <Card
      size="small"
      title={t('invoiceTypes.settlement')}
      loading={!s}
      data-testid="settlement-card"
      extra={s?.editable ? <Tag>{t('invoiceTypes.editableDraft')}</Tag> : null}
    >
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
            <Descriptions.Item label={t('fields.creditLimitMinor')}>
              {s.creditLimitMinor === null ? none : money(s.creditLimitMinor, s.currency)}
            </Descriptions.Item>
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

type SettlementValues = Omit<
  Settlement,
  | 'status'
  | 'editable'
  | 'creditFor'
  | 'creditForBillId'
  | 'depositPaidMinor'
  | 'depositRequestedMinor'
  | 'depositAppliedMinor'
  | 'depositLeftMinor'
  | 'creditLimitMinor'
  | 'taxRateBp'
> & { creditLimit: number | null; taxPercent: number };

/** Edit a draft's settlement details; the organisation's billing profile takes them for the invoices to come. */
export function SettlementDialog({ open, url, onClose, onDone }: { open: boolean; url: string; onClose: () => void; onDone: () => void }) {
  const { t, i18n } = useTranslation();
  const lang = i18n.language;
  const [form] = Form.useForm<SettlementValues>();
  const currency = Form.useWatch('currency', form);
  // The fields stay disabled until the current details have arrived: filled in on arrival, they would otherwise
  // replace whatever the person had typed meanwhile (a slow answer lost the IBAN just entered).
  const [loadedFor, setLoadedFor] = useState<string | null>(null);
  useEffect(() => {
    if (!open) return;
    let live = true;
    setLoadedFor(null);
    api<Settlement>('GET', url).then(
      (s) => {
        if (!live) return;
        form.setFieldsValue({ ...s, creditLimit: s.creditLimitMinor === null ? null : s.creditLimitMinor / 100, taxPercent: s.taxRateBp / 100 });
        setLoadedFor(url);
      },
      () => undefined,
    );
    return () => void (live = false);
  }, [open, url, form]);
  const loaded = loadedFor === url;
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
    <FormDialog
      open={open}
      title={t('invoiceTypes.settlementTitle')}
      okText={t('invoiceTypes.save')}
      onCancel={onClose}
      width={620}
      {...dialog}
      help={t('invoiceTypes.settlementHelp')}
      form={form}
      name="settlement"
      disabled={!loaded}
      okButtonProps={{ disabled: !loaded }}
    >
      <Form.Item name="settlementCustomer" label={t('fields.settlementCustomer')} rules={[maxChars(t, lang, t('fields.settlementCustomer'), 100)]}>
        <Input count={{ show: true, max: 100 }} />
      </Form.Item>
      <div style={{ display: 'grid', gridTemplateColumns: 'repeat(auto-fit, minmax(240px, 1fr))', columnGap: 16 }}>
        <Form.Item name="bankName" label={t('fields.bankName')} rules={[maxChars(t, lang, t('fields.bankName'), 100)]}>
          <Input count={{ show: true, max: 100 }} />
        </Form.Item>
        <Form.Item
          name="bic"
          label={t('fields.bic')}
          normalize={upper}
          rules={[
            maxChars(t, lang, t('fields.bic'), 11),
            { pattern: /^[A-Z]{6}[A-Z0-9]{2}([A-Z0-9]{3})?$/, message: ruleMessage(t, lang, t('fields.bic'), 'pattern') },
          ]}
        >
          <Input />
        </Form.Item>
      </div>
      <Form.Item
        name="iban"
        label={t('fields.iban')}
        normalize={upper}
        rules={[
          maxChars(t, lang, t('fields.iban'), 34),
          {
            validator: async (_, v?: string) => {
              if (!v || v.length > 34) return;
              if (!/^[A-Z]{2}[0-9]{2}[A-Z0-9]{11,30}$/.test(v)) throw new Error(ruleMessage(t, lang, t('fields.iban'), 'pattern'));
              if (!ibanOk(v)) throw new Error(ruleMessage(t, lang, t('fields.iban'), 'iban'));
            },
          },
        ]}
      >
        <Input />
      </Form.Item>
      <div style={{ display: 'grid', gridTemplateColumns: 'repeat(auto-fit, minmax(170px, 1fr))', columnGap: 16 }}>
        <Form.Item name="currency" label={t('fields.currency')} rules={[{ required: true }]}>
          <Select showSearch options={CURRENCIES.map((c) => ({ value: c, label: c }))} />
        </Form.Item>
        <Form.Item
          name="creditLimit"
          label={t('fields.creditLimitMinor')}
          rules={[numberIn(t, lang, t('fields.creditLimitMinor'), 0, CREDIT_MAX_MINOR / 100, 2)]}
        >
          <InputNumber style={{ width: '100%' }} addonAfter={currency} />
        </Form.Item>
        <Form.Item name="taxPercent" label={t('fields.taxRateBp')} rules={[{ required: true }, numberIn(t, lang, t('fields.taxRateBp'), 0, 99.99, 2)]}>
          <InputNumber style={{ width: '100%' }} addonAfter="%" />
        </Form.Item>
      </div>
    </FormDialog>
  );
}

/**
 * A credit note against the invoice (its address is `base`): an amount (tax included) and a reason; the note opens
 * when issued. At most what is left to credit may be credited, the invoice's total less the notes already issued
 * (the settlement answer's creditLeftMinor, the server's own limit): the dialog says it, and an amount above it is
 * kept as typed and refused in the server's words, naming what is left.
 */
export function CreditDialog({
  open,
  base,
  currency,
  onClose,
  onDone,
}: {
  open: boolean;
  base: string;
  currency: string;
  onClose: () => void;
  onDone: (id: string) => void;
}) {
  const { t, i18n } = useTranslation();
  const lang = i18n.language;
  const [form] = Form.useForm<{ amount: number; reason: string }>();
  const [leftMinor, setLeftMinor] = useState<number | null>(null);
  useEffect(() => {
    if (!open) return;
    let live = true;
    setLeftMinor(null);
    api<Settlement>('GET', `${base}/settlement`).then(
      (s) => live && setLeftMinor(Math.max(0, s.creditLeftMinor ?? 0)),
      () => undefined,
    );
    return () => void (live = false);
  }, [open, base]);
  const left = leftMinor === null ? '' : formatMoney(leftMinor, currency, lang);
  // A refusal the dialog could not foresee (another note issued meanwhile) is shown by the HTTP helper.
  const { dialog } = useSubmit(
    (v: { amount: number; reason: string }) =>
      api<{ id: string; billId: string }>('POST', `${base}/credit`, { amountMinor: toMinor(v.amount), reason: v.reason.trim() }),
    (note) => onDone(note.id),
    { form, reset: true, success: (note) => t('invoiceTypes.credited', { bill: note.billId }) },
  );
  const withinLeft = {
    validator: async (_: unknown, value: unknown) => {
      if (leftMinor === null || value === null || value === undefined || value === '' || !Number.isFinite(Number(value))) return;
      if (toMinor(Number(value)) > leftMinor) throw new Error(t(leftMinor > 0 ? 'errors.creditAboveLeft' : 'errors.creditNothingLeft', { left }));
    },
  };
  const help = (
    <>
      {t('invoiceTypes.creditHelp')} {leftMinor !== null && <Typography.Text strong>{t('invoiceTypes.creditLeft', { left })}</Typography.Text>}
    </>
  );
  return (
    <FormDialog
      open={open}
      title={t('invoiceTypes.creditTitle')}
      okText={t('invoiceTypes.credit')}
      onCancel={onClose}
      {...dialog}
      help={help}
      form={form}
      name="credit"
      disabled={leftMinor === null}
    >
      <Form.Item
        name="amount"
        label={`${t('fields.amount')} (${currency})`}
        rules={[{ required: true }, numberIn(t, lang, t('fields.amount'), 0.01, CREDIT_MAX_MINOR / 100, 2), withinLeft]}
      >
        <InputNumber step={0.01} style={{ width: '100%' }} />
      </Form.Item>
      <Form.Item name="reason" label={t('fields.reason')} rules={[{ required: true, whitespace: true }, maxChars(t, lang, t('fields.reason'), 200)]}>
        <Input.TextArea count={{ show: true, max: 200 }} autoSize={{ minRows: 2 }} />
      </Form.Item>
    </FormDialog>
  );
}

/** Request a deposit (an invoice of type predeposit, issued at once, without tax); the new invoice opens. */
export function DepositButton({ onDone }: { onDone: (id: string) => void }) {
  const { t, i18n } = useTranslation();
  const lang = i18n.language;
  const [open, setOpen] = useState(false);
  const [form] = Form.useForm<{ amount: number; reason?: string }>();
  const { dialog } = useSubmit(
    (v: { amount: number; reason?: string }) =>
      api<{ id: string; billId: string }>('POST', '/api/customer/cube/v2/api/customer/bills/predeposit', {
        amountMinor: toMinor(v.amount),
        ...(v.reason?.trim() ? { reason: v.reason.trim() } : {}),
      }),
    (dep) => {
      setOpen(false);
      onDone(dep.id);
    },
    { form, success: (dep) => t('invoiceTypes.depositRequestedOk', { bill: dep.billId }) },
  );
  return (
    <>
      <Button onClick={() => setOpen(true)}>{t('invoiceTypes.requestDeposit')}</Button>
      <FormDialog
        open={open}
        title={t('invoiceTypes.requestDeposit')}
        okText={t('invoiceTypes.request')}
        onCancel={() => setOpen(false)}
        {...dialog}
        help={t('invoiceTypes.depositHelp')}
        form={form}
        name="deposit"
      >
        <Form.Item name="amount" label={t('fields.amount')} rules={[{ required: true }, numberIn(t, lang, t('fields.amount'), 0.01, DEPOSIT_MAX, 2)]}>
          <InputNumber step={0.01} style={{ width: '100%' }} />
        </Form.Item>
        <Form.Item name="reason" label={t('fields.reason')} rules={[maxChars(t, lang, t('fields.reason'), 200)]}>
          <Input.TextArea count={{ show: true, max: 200 }} autoSize={{ minRows: 2 }} />
        </Form.Item>
      </FormDialog>
    </>
  );
}
