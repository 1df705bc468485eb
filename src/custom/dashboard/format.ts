/**
 * How the dashboard words its figures: bucket names on the UTC+8 clock, a chart's volume unit, a change in percent,
 * and when a stored snapshot was taken.
 */
import { DASHBOARD_OFFSET_MS, type DashboardView } from '../../../common/dashboard';
import type { TooltipContent } from '../../components/svg-chart/chart-parts';
import type { Bucket, Freshness } from './use-dashboard';
import { numberFormat } from '../../../common/numbers';

/** A bucket's instant or name (an hour as ISO, a UTC+8 day YYYY-MM-DD or month YYYY-MM) as a UTC date on the UTC+8 clock. */
function onDashboardClock(label: string, view: DashboardView): Date {
  if (view === '24h') return new Date(new Date(label.replace(/Z$/, ':00Z')).getTime() + DASHBOARD_OFFSET_MS);
  const [y, m = '1', d = '1'] = label.split('-');
  return new Date(Date.UTC(Number(y), Number(m) - 1, Number(d)));
}

const AXIS: Record<DashboardView, Intl.DateTimeFormatOptions> = {
  '24h': { hour: '2-digit', minute: '2-digit', hourCycle: 'h23' },
  week: { month: 'short', day: 'numeric' },
  '6months': { year: 'numeric', month: 'short' },
};
const FULL: Record<DashboardView, Intl.DateTimeFormatOptions> = {
  '24h': { month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' },
  week: { weekday: 'short', year: 'numeric', month: 'short', day: 'numeric' },
  '6months': { year: 'numeric', month: 'long' },
};

/** A bucket's name under its bar: the hour, the day or the month on the dashboard's clock. */
export function bucketLabel(label: string, view: DashboardView, lang: string, full = false): string {
  const date = onDashboardClock(label, view);
  if (Number.isNaN(date.getTime())) return label;
  return new Intl.DateTimeFormat(lang, { ...(full ? FULL : AXIS)[view], timeZone: 'UTC' }).format(date);
}

/** A series of a bucket chart in words: its name, its colour and a bucket's figure as the tooltip writes it. */
export interface SeriesWords {
  name: string;
  color: string;
  value: (bucket: Bucket) => string;
}

/**
 * A bucket's tooltip (and its row of the chart's table): headed by the bucket's full name, one line per series with
 * the bucket's own figure (not the chart's rounded, scaled one), and a total line for a stack when given.
 */
export function bucketTooltip(
  bucket: Bucket,
  view: DashboardView,
  lang: string,
  series: SeriesWords[],
  total?: { label: string; of: (bucket: Bucket) => string },
): TooltipContent {
  return {
    head: bucketLabel(bucket.label, view, lang, true),
    lines: [
      ...series.map((s) => ({ name: s.name, color: s.color, value: s.value(bucket) })),
      ...(total ? [{ name: total.label, value: total.of(bucket) }] : []),
    ],
  };
}

/** The change from the previous period as a fraction (0.25 = 25 % more), or null when there was nothing before. */
export function changeOf(current: number, previous: number): number | null {
  return previous > 0 ? (current - previous) / previous : null;
}

/**
 * A share or change as the language writes a percentage, without its sign (the arrow tells the direction): one
 * decimal under 10 % unless `digits` fixes them (a legend's column reads better with the same number of decimals).
 */
export function percent(fraction: number, lang: string, digits?: number): string {
  const d = digits ?? (Math.abs(fraction) < 0.1 ? 1 : 0);
  return numberFormat(lang, { style: 'percent', minimumFractionDigits: digits ?? 0, maximumFractionDigits: d }).format(Math.abs(fraction));
}

/**
 * The moment to show beside figures read from a stored snapshot, or null when there is nothing to say: figures
 * computed for this call (live), an answer of an older server without the fields, or a time that is no time.
 */
export function snapshotTime(answer: Freshness | null | undefined): string | null {
  if (answer?.live !== false || typeof answer.asOf !== 'string') return null;
  return Number.isNaN(Date.parse(answer.asOf)) ? null : answer.asOf;
}
