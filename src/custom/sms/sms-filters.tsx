/**
 * The All SMS filters: direction, status, a time range, ICCID or MSISDN by its whole value or trailing digits (more
 * than one, SPEC.md section 5), content contains. Typed values are applied after the default debounce.
 */
import { Button, DatePicker, Input, Select, Space } from 'antd';
import type { Dayjs } from 'dayjs';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useDebouncedValue } from '../../components/use-debounced-value';

export interface Filters {
  direction?: 'MT' | 'MO';
  status?: string;
  createdAtFrom?: string;
  createdAtTo?: string;
  search?: { field: 'iccid' | 'msisdn'; value: string };
  content?: string;
}

const STATUSES = ['pending', 'sent', 'delivered', 'failed', 'received'];

export function SmsFilters({ value, onChange }: { value: Filters; onChange: (f: Filters) => void }) {
  const { t } = useTranslation();
  const [field, setField] = useState<'iccid' | 'msisdn'>('iccid');
  const [digits, setDigits] = useState('');
  const [content, setContent] = useState('');
  const [range, setRange] = useState<[Dayjs | null, Dayjs | null] | null>(null);
  const typed = useDebouncedValue(JSON.stringify({ field, digits: digits.trim(), content: content.trim() }));

  useEffect(() => {
    const f = JSON.parse(typed) as { field: 'iccid' | 'msisdn'; digits: string; content: string };
    // Digits only, more than one: anything else cannot match and is not asked for.
    const search = /^[0-9]{2,20}$/.test(f.digits) ? { field: f.field, value: f.digits } : undefined;
    const contentFilter = f.content || undefined;
    if (JSON.stringify(search) !== JSON.stringify(value.search) || contentFilter !== value.content) onChange({ ...value, search, content: contentFilter });
    // eslint-disable-next-line react-hooks/exhaustive-deps -- only typing changes these two
  }, [typed]);

  const clear = () => {
    setDigits('');
    setContent('');
    setRange(null);
    onChange({});
  };
  const any = Object.values(value).some((v) => v !== undefined);
  return (
    <Space wrap>
      <Select
        allowClear
        placeholder={t('sms.filters.direction')}
        aria-label={t('sms.filters.direction')}
        style={{ width: 180 }}
        value={value.direction}
        options={(['MT', 'MO'] as const).map((d) => ({ value: d, label: t(`sms.direction.${d}`) }))}
        onChange={(direction?: 'MT' | 'MO') => onChange({ ...value, direction })}
      />
      <Select
        allowClear
        placeholder={t('sms.filters.status')}
        aria-label={t('sms.filters.status')}
        style={{ width: 140 }}
        value={value.status}
        options={STATUSES.map((s) => ({ value: s, label: t(`sms.status.${s}`) }))}
        onChange={(status?: string) => onChange({ ...value, status })}
      />
      <DatePicker.RangePicker
        showTime
        aria-label={t('sms.filters.time')}
        value={range}
        onChange={(r) => {
          setRange(r);
          onChange({ ...value, createdAtFrom: r?.[0]?.toISOString(), createdAtTo: r?.[1]?.toISOString() });
        }}
      />
      <Space.Compact>
        <Select
          aria-label={t('sms.filters.searchField')}
          value={field}
          onChange={setField}
          style={{ width: 100 }}
          options={[
            { value: 'iccid', label: t('sms.fields.iccid') },
            { value: 'msisdn', label: t('sms.fields.msisdn') },
          ]}
        />
        <Input
          allowClear
          inputMode="numeric"
          placeholder={t('sms.filters.search')}
          aria-label={t('sms.filters.search')}
          style={{ width: 220 }}
          value={digits}
          onChange={(e) => setDigits(e.target.value)}
        />
      </Space.Compact>
      <Input
        allowClear
        placeholder={t('sms.filters.content')}
        aria-label={t('sms.filters.content')}
        style={{ width: 180 }}
        value={content}
        onChange={(e) => setContent(e.target.value)}
      />
      {any && <Button onClick={clear}>{t('sms.filters.clear')}</Button>}
    </Space>
  );
}
