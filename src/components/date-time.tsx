/**
 * Every time the console shows goes through here, so it follows the header's UTC/local toggle (stored as TimeZone)
 * and the interface language. Times travel as UTC ISO strings (ARCHITECTURE.md: times are stored in UTC).
 */
import { useCallback } from 'react';
import { useTranslation } from 'react-i18next';
import { useSessionValue } from '../providers/use-session-value';

type Zone = 'UTC' | 'local';

/** A time in the language's format, in UTC (marked so) or the browser's zone. */
export function formatTime(value: string | number | Date, zone: Zone, lang: string): string {
  const date = value instanceof Date ? value : new Date(value);
  if (Number.isNaN(date.getTime())) return '';
  const text = new Intl.DateTimeFormat(lang, { dateStyle: 'medium', timeStyle: 'medium', ...(zone === 'UTC' ? { timeZone: 'UTC' } : {}) }).format(date);
  return zone === 'UTC' ? `${text} UTC` : text;
}

/** A duration as the language writes it, largest two units (e.g. "2 min 5 s"). */
export function formatDuration(ms: number, lang: string): string {
  const total = Math.max(0, Math.round(ms / 1000));
  const parts: Array<[number, 'hour' | 'minute' | 'second']> = [
    [Math.floor(total / 3600), 'hour'],
    [Math.floor((total % 3600) / 60), 'minute'],
    [total % 60, 'second'],
  ];
  const shown = parts.filter(([n], i) => n > 0 || (i === 2 && total === 0));
  return shown
    .slice(0, 2)
    .map(([n, unit]) => new Intl.NumberFormat(lang, { style: 'unit', unit, unitDisplay: 'short' }).format(n))
    .join(' ');
}

/** The formatter of the current zone and language; re-renders its user when either changes. */
export function useTimeFormat(): (value: string | number | Date | null | undefined) => string {
  const zone: Zone = useSessionValue('TimeZone') === 'UTC' ? 'UTC' : 'local';
  const { i18n } = useTranslation();
  return useCallback((value) => (value === null || value === undefined ? '' : formatTime(value, zone, i18n.language)), [zone, i18n.language]);
}

/** A time as text, with the machine-readable value for assistive technology. */
export function DateTime({ value }: { value: string | null | undefined }) {
  const format = useTimeFormat();
  if (!value) return <span aria-hidden>—</span>;
  return <time dateTime={value}>{format(value)}</time>;
}
