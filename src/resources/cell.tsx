/** One value of a resource, shown as its schema says: enum labels as tags, times by the toggle, lists as tags. */
import { Space, Tag, Typography } from 'antd';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import type { ResourceSchema } from '../../common/resources';
import { ROLE_COLORS } from '../../common/roles';
import { DateTime, formatDuration } from '../components/date-time';
import { formatNumber, numberFormat } from '../../common/numbers';

// SPEC.md section 6: role tags red for admin and superadmin, blue for operator, green for user.
const ENUM_COLORS: Record<string, string> = {
  ...ROLE_COLORS,
  active: 'green',
  online: 'green',
  connected: 'cyan',
  pre_activated: 'blue',
  inactive: 'default',
  paused: 'orange',
  expired: 'red',
  terminated: 'default',
  disabled: 'red',
  invited: 'gold',
  published: 'blue',
  paid: 'green',
  obsolete: 'default',
  draft: 'gold',
  ready: 'green',
  failed: 'red',
  pending: 'gold',
  closed: 'default',
  offline: 'default',
  unknown: 'default',
};

/** plain: no copy button (the value is itself a link); row: the record, for a money field's currency. */
export function Cell({
  resource,
  field,
  value,
  plain,
  row,
}: {
  resource: ResourceSchema;
  field: string;
  value: unknown;
  plain?: boolean;
  row?: Record<string, unknown>;
}) {
  const { t, i18n } = useTranslation();
  const p = resource.properties[field];
  const prefix = resource['x-admin'].i18n;
  if (value === null || value === undefined || value === '') return <Typography.Text type="secondary">—</Typography.Text>;
  if (p.enum) return <Tag color={ENUM_COLORS[String(value)] ?? 'default'}>{t(`${prefix}.enum.${field}.${String(value)}`)}</Tag>;
  if (typeof value === 'boolean')
    return value ? <Tag color="blue">{t('resources.yes')}</Tag> : <Typography.Text type="secondary">{t('resources.no')}</Typography.Text>;
  if (p.format === 'date-time') return <DateTime value={String(value)} />;
  // A day (no time, no zone) in the language's own date format, read as the calendar day it is.
  if (p.format === 'date' && typeof value === 'string' && /^\d{4}-\d{2}-\d{2}/.test(value))
    return <time dateTime={value.slice(0, 10)}>{formatDay(value, i18n.language)}</time>;
  if (p['x-country'] && typeof value === 'string') return <>{`${new Intl.DisplayNames([i18n.language], { type: 'region' }).of(value) ?? value} (${value})`}</>;
  if (Array.isArray(value))
    return (
      <>
        {value.map((v) => (
          <Tag key={String(v)}>{String(v)}</Tag>
        ))}
      </>
    );
  if (typeof value === 'number') return <span style={WHOLE}>{formatValue(p, field, value, i18n.language, row)}</span>;
  // A value of one word (an id, a plan code such as EU-POOL-200M) is never broken at its hyphens or mid-word.
  const style = isToken(String(value)) ? WHOLE : undefined;
  if (plain) return <span style={style}>{String(value)}</span>;
  return (
    <Typography.Text copyable={field === resource['x-admin'].key} style={style}>
      {String(value)}
    </Typography.Text>
  );
}

/** Kept on one line: a number with its unit ("50 MB", "€822.00", "53 sec") or a one-word value. */
const WHOLE = { whiteSpace: 'nowrap' } as const;

/** One word of an identifier's length: longer texts without spaces may still wrap rather than widen the table. */
const isToken = (text: string) => text.length <= 32 && !/\s/.test(text);

/** A number as its field means it: money in the row's currency, a percentage, a volume, a duration, or a count. */
function formatValue(p: ResourceSchema['properties'][string], field: string, value: number, lang: string, row?: Record<string, unknown>): string {
  if (p['x-money']) {
    const currency = typeof row?.currency === 'string' ? row.currency : undefined;
    return numberFormat(lang, currency ? { style: 'currency', currency } : { minimumFractionDigits: 2, maximumFractionDigits: 4 }).format(value);
  }
  if (p['x-percent']) return numberFormat(lang, { style: 'percent', maximumFractionDigits: 2 }).format(value);
  // Volumes are stored in KB (ARCHITECTURE.md); shown in the unit that reads best.
  if (field.endsWith('Kb')) return formatKb(value, lang);
  // Likewise a name ending in S is a duration in seconds (a CDR's durationS), shown with its units.
  if (/[a-z]S$/.test(field)) return formatDuration(value * 1000, lang);
  return formatNumber(value, lang);
}

const VOLUME_UNITS = [
  { name: 'TB', divisor: 1024 ** 3 },
  { name: 'GB', divisor: 1024 ** 2 },
  { name: 'MB', divisor: 1024 },
  // As formatKb (Intl's short kilobyte) writes it.
  { name: 'kB', divisor: 1 },
];

/** The unit a chart's largest volume (in KB) reads best in; every value of the chart uses it. */
export function unitFor(maxKb: number): { name: string; divisor: number } {
  return VOLUME_UNITS.find((u) => maxKb >= u.divisor) ?? VOLUME_UNITS[VOLUME_UNITS.length - 1];
}

/** A calendar day (YYYY-MM-DD) in the language's medium date format ("Nov 30, 2026", "2026年11月30日"). */
export function formatDay(day: string, lang: string): string {
  return new Intl.DateTimeFormat(lang, { dateStyle: 'medium', timeZone: 'UTC' }).format(new Date(`${day.slice(0, 10)}T00:00:00Z`));
}

/** A volume in KB as KB, MB, GB or TB with the language's digits. */
export function formatKb(kb: number, lang: string, fractionDigits = 1): string {
  const [value, unit] =
    kb >= 1024 ** 3 ? [kb / 1024 ** 3, 'terabyte'] : kb >= 1024 ** 2 ? [kb / 1024 ** 2, 'gigabyte'] : kb >= 1024 ? [kb / 1024, 'megabyte'] : [kb, 'kilobyte'];
  return numberFormat(lang, { style: 'unit', unit, unitDisplay: 'short', maximumFractionDigits: fractionDigits }).format(value);
}

/** A table cell naming a thing in two lines: its name in bold, and under it, greyed, what tells it apart. */
export function TwoLineCell({ name, detail }: { name: ReactNode; detail: ReactNode }) {
  return (
    <Space direction="vertical" size={0}>
      <Typography.Text strong>{name}</Typography.Text>
      <Typography.Text type="secondary">{detail}</Typography.Text>
    </Space>
  );
}
