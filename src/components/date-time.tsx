/**
 * Every time the console shows goes through here, so it follows the header's UTC/local toggle (stored as TimeZone)
 * and the interface language. Times travel as UTC ISO strings (ARCHITECTURE.md: times are stored in UTC).
 */
import { useCallback } from 'react';
import { useTranslation } from 'react-i18next';
import { useSessionValue } from '../providers/use-session-value';
import { numberFormat } from '../../common/numbers';

type Zone = 'UTC' | 'local';

/**
 * A time in the language's format, in UTC (marked so) or the browser's zone, in two pieces: the date with what joins
 * it to the time (", " or " "), and the time. `withoutYear`: the day and month only, for lists of the last few days.
 */
export function formatTimeParts(value: string | number | Date, zone: Zone, lang: string, withoutYear = false): [date: string, time: string] {
  const date = value instanceof Date ? value : new Date(value);
  if (Number.isNaN(date.getTime())) return ['', ''];
  let parts = new Intl.DateTimeFormat(lang, { dateStyle: 'medium', timeStyle: 'medium', ...(zone === 'UTC' ? { timeZone: 'UTC' } : {}) }).formatToParts(date);
  if (withoutYear) {
    // The year goes with the literal that ties it to the day and month: "2026年" first, ", 2026" or " 2026" after.
    const y = parts.findIndex((p) => p.type === 'year');
    parts = y === 0 ? parts.slice(2) : [...parts.slice(0, y - 1), ...parts.slice(y + 1)];
  }
  // The time starts at its hour, or at the part of the day that some languages write first (zh-TW "晚上11:25:40").
  const at = parts.findIndex((p) => p.type === 'hour' || p.type === 'dayPeriod');
  const text = (from: number, to?: number) =>
    parts
      .slice(from, to)
      .map((p) => p.value)
      .join('');
  const time = text(at);
  return [text(0, at), zone === 'UTC' ? `${time} UTC` : time];
}

/** A time in the language's format, in UTC (marked so) or the browser's zone. */
export function formatTime(value: string | number | Date, zone: Zone, lang: string): string {
  return formatTimeParts(value, zone, lang).join('');
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
    .map(([n, unit]) => numberFormat(lang, { style: 'unit', unit, unitDisplay: 'short' }).format(n))
    .join(' ');
}

/** The formatter of the current zone and language; re-renders its user when either changes. */
export function useTimeFormat(): (value: string | number | Date | null | undefined) => string {
  const zone: Zone = useSessionValue('TimeZone') === 'UTC' ? 'UTC' : 'local';
  const { i18n } = useTranslation();
  return useCallback((value) => (value === null || value === undefined ? '' : formatTime(value, zone, i18n.language)), [zone, i18n.language]);
}

const NOWRAP = { whiteSpace: 'nowrap' } as const;

/**
 * A time as text, with the machine-readable value for assistive technology. Its date and its time each stay on one
 * line: in a narrow column it takes two lines, the date over the time, never a word or a number per line; `oneLine`
 * keeps it all on one. `withoutYear` (a list of the last few days) leaves the year out, the whole time in its title.
 */
export function DateTime({ value, oneLine = false, withoutYear = false }: { value: string | null | undefined; oneLine?: boolean; withoutYear?: boolean }) {
  const zone: Zone = useSessionValue('TimeZone') === 'UTC' ? 'UTC' : 'local';
  const { i18n } = useTranslation();
  if (!value) return <span aria-hidden>—</span>;
  const [date, time] = formatTimeParts(value, zone, i18n.language, withoutYear);
  const title = withoutYear ? formatTime(value, zone, i18n.language) : undefined;
  if (oneLine)
    return (
      <time dateTime={value} title={title} style={NOWRAP}>
        {date + time}
      </time>
    );
  // The space that joins them (if any) is where the line may break.
  const joint = date.slice(date.trimEnd().length);
  return (
    <time dateTime={value} title={title}>
      <span style={NOWRAP}>{date.trimEnd()}</span>
      {joint}
      <span style={NOWRAP}>{time}</span>
    </time>
  );
}
