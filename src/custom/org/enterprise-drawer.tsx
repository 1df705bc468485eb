/**
 * An organisation's enterprise and settlement details (GET /enterprises/selectByOrgCode/{code}, PUT /enterprises), on
 * My organisations. Administrators of that organisation edit them; a settlement customer keeps its legal name.
 */
import { Alert, App, Button, Drawer, Form, Input, InputNumber, Select, Skeleton } from 'antd';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { maxChars, numberIn } from '../../components/form-rules';
import { CURRENCIES } from '../../../common/currencies';
import { INVOICE_TYPES } from '../../../common/enterprise';
import { api } from '../../providers/http';
import { useEnterpriseTexts } from './texts';

interface Enterprise {
  orgCode: string;
  orgName: string;
  settlement: boolean;
  saved: boolean;
  canEdit: boolean;
  legalName: string;
  taxId: string | null;
  address: string | null;
  billingEmail: string | null;
  phone: string | null;
  currency: string;
  invoiceType: string;
  creditLimitMinor: number | null;
  bankName: string | null;
  iban: string | null;
  bic: string | null;
}
type Values = Omit<Enterprise, 'orgCode' | 'orgName' | 'settlement' | 'saved' | 'canEdit' | 'creditLimitMinor'> & { creditLimit: number | null };

const TEXT_FIELDS = ['taxId', 'address', 'billingEmail', 'phone', 'bankName', 'iban', 'bic'] as const;

export function EnterpriseDrawer({ org, onClose }: { org: { code: string; name: string } | null; onClose: () => void }) {
  const { t, i18n } = useTranslation();
  const lang = i18n.language;
  /** A text field's rules: at most `max` characters, said rather than cut. */
  const chars = (label: string, max: number) => [maxChars(t, lang, t(label), max)];
  const ready = useEnterpriseTexts();
  const { message } = App.useApp();
  const [data, setData] = useState<Enterprise | null>(null);
  const [busy, setBusy] = useState(false);
  const [form] = Form.useForm<Values>();
  const currency = Form.useWatch('currency', form);
  useEffect(() => {
    if (!org) return;
    let live = true;
    setData(null);
    api<Enterprise>('GET', `/api/main/enterprises/selectByOrgCode/${encodeURIComponent(org.code)}`).then(
      (d) => {
        if (!live) return;
        setData(d);
        // Money is kept in minor units; the form shows major units (two decimals).
        form.setFieldsValue({ ...d, creditLimit: d.creditLimitMinor === null ? null : d.creditLimitMinor / 100 });
      },
      () => live && onClose(),
    );
    return () => void (live = false);
  }, [org, form, onClose]);
  const save = async () => {
    if (!data) return;
    const v = await form.validateFields();
    const empty = (s: string | null | undefined) => (s === undefined || s === null || s.trim() === '' ? null : s.trim());
    const body = {
      orgCode: data.orgCode,
      legalName: v.legalName,
      currency: v.currency,
      invoiceType: v.invoiceType,
      creditLimitMinor: v.creditLimit === null || v.creditLimit === undefined ? null : Math.round(v.creditLimit * 100),
      ...Object.fromEntries(TEXT_FIELDS.map((f) => [f, empty(v[f])])),
    };
    setBusy(true);
    try {
      const saved = await api<Enterprise>('PUT', '/api/main/enterprises', body);
      setData(saved);
      void message.success(t('enterprise.saved'));
    } catch {
      // The HTTP helper shows the server's reason, naming the field (an IBAN's check digits, 0133).
    } finally {
      setBusy(false);
    }
  };
  const ro = !data?.canEdit;
  return (
    <Drawer
      open={org !== null}
      onClose={onClose}
      width={560}
      title={ready && org ? t('enterprise.title', { name: org.name }) : ''}
      destroyOnHidden
      extra={
        data?.canEdit && (
          <Button type="primary" loading={busy} onClick={() => void save()}>
            {t('enterprise.save')}
          </Button>
        )
      }
    >
      {!data || !ready ? (
        <Skeleton active />
      ) : (
        <>
          {!data.saved && <Alert type="info" showIcon message={t('enterprise.notSaved')} style={{ marginBottom: 16 }} />}
          {ro && <Alert type="warning" showIcon message={t('enterprise.readOnly')} style={{ marginBottom: 16 }} />}
          <Form form={form} layout="vertical" disabled={ro}>
            <Form.Item
              name="legalName"
              label={t('enterprise.legalName')}
              rules={[{ required: true, whitespace: true }, ...chars('enterprise.legalName', 100)]}
              extra={data.settlement ? t('enterprise.settlementLocked') : undefined}
            >
              <Input count={{ show: true, max: 100 }} disabled={ro || (data.settlement && data.saved)} />
            </Form.Item>
            <Form.Item name="taxId" label={t('enterprise.taxId')} rules={chars('enterprise.taxId', 30)}>
              <Input />
            </Form.Item>
            <Form.Item name="address" label={t('enterprise.address')} rules={chars('enterprise.address', 200)}>
              <Input.TextArea count={{ show: true, max: 200 }} rows={2} />
            </Form.Item>
            <Form.Item name="billingEmail" label={t('enterprise.billingEmail')} rules={[{ type: 'email' }, ...chars('enterprise.billingEmail', 254)]}>
              <Input />
            </Form.Item>
            <Form.Item name="phone" label={t('enterprise.phone')} rules={chars('enterprise.phone', 15)}>
              <Input inputMode="numeric" />
            </Form.Item>
            <Form.Item name="currency" label={t('enterprise.currency')} rules={[{ required: true }]}>
              <Select showSearch options={CURRENCIES.map((c) => ({ value: c, label: c }))} />
            </Form.Item>
            <Form.Item name="invoiceType" label={t('enterprise.invoiceType')} rules={[{ required: true }]}>
              <Select options={INVOICE_TYPES.map((k) => ({ value: k, label: t(`enterprise.types.${k}`) }))} />
            </Form.Item>
            <Form.Item name="creditLimit" label={t('enterprise.creditLimit')} rules={[numberIn(t, lang, t('enterprise.creditLimit'), 0, 1_000_000_000, 2)]}>
              <InputNumber style={{ width: '100%' }} addonAfter={currency ?? data.currency} />
            </Form.Item>
            <Form.Item name="bankName" label={t('enterprise.bankName')} rules={chars('enterprise.bankName', 100)}>
              <Input />
            </Form.Item>
            <Form.Item
              name="iban"
              label={t('enterprise.iban')}
              normalize={(v: string) => v?.toUpperCase().replace(/\s+/g, '')}
              rules={chars('enterprise.iban', 42)}
            >
              <Input />
            </Form.Item>
            <Form.Item
              name="bic"
              label={t('enterprise.bic')}
              normalize={(v: string) => v?.toUpperCase().replace(/\s+/g, '')}
              rules={chars('enterprise.bic', 11)}
            >
              <Input />
            </Form.Item>
          </Form>
        </>
      )}
    </Drawer>
  );
}
