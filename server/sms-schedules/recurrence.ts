/**
 * When a scheduled SMS sends (SPEC.md sections 3 and 4): once, at its start, or every chosen weekday at a wall-clock
 * time of the schedule's IANA zone, from its start until its end (exclusive) or for ever. The calendar arithmetic is
 * croner's (ARCHITECTURE.md: never hand-written): a daylight-saving change keeps 09:00 at 09:00 local time, a time the
 * spring change skips runs at the first valid time after the gap on that day, and a time the autumn change repeats
 * runs once, at its first pass (croner's fixed-time rule, the same as Vixie cron). Pure: no I/O.
 */
import { Cron } from 'croner';
import type { ScheduleTiming } from '../../common/sms-schedule.js';

/** A schedule's timing, its times as Dates. */
export type Recurrence = ScheduleTiming<Date>;

/** Whether the runtime knows the zone (an IANA name such as Europe/Berlin, or UTC). */
export function isTimeZone(zone: string): boolean {
  if (!zone || zone.length > 64) return false;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

function cronOf(r: Recurrence): Cron {
  const [h, m] = r.sendTime.split(':').map(Number);
  // Croner's weekday 7 is Sunday as in Vixie cron, so ISO weekdays pass through unchanged.
  const days = [...new Set(r.weekdays)].sort((a, b) => a - b).join(',');
  return new Cron(`0 ${m} ${h} * * ${days}`, {
    timezone: r.timezone,
    startAt: r.startAt,
    ...(r.endAt ? { stopAt: r.endAt } : {}),
    paused: true,
  });
}

/** The first occurrence strictly after `after`, or null when there is none (a once-only schedule's time passed, the end reached). */
export function nextOccurrence(r: Recurrence, after: Date): Date | null {
  if (r.mode === 'once') return r.startAt.getTime() > after.getTime() ? r.startAt : null;
  if (!r.weekdays.length) return null;
  const cron = cronOf(r);
  try {
    return cron.nextRun(after);
  } finally {
    cron.stop();
  }
}

/** The next `n` occurrences strictly after `after` (fewer when the schedule ends). */
export function nextOccurrences(r: Recurrence, after: Date, n: number): Date[] {
  const out: Date[] = [];
  let at: Date | null = after;
  while (out.length < n && at) {
    at = nextOccurrence(r, at);
    if (at) out.push(at);
  }
  return out;
}

/** The last `n` occurrences before `before`, oldest first (a demo history that matches its schedule). */
export function previousOccurrences(r: Recurrence, before: Date, n: number): Date[] {
  if (r.mode === 'once') return r.startAt.getTime() < before.getTime() ? [r.startAt] : [];
  if (!r.weekdays.length) return [];
  const cron = cronOf(r);
  try {
    return cron.previousRuns(n, before).reverse();
  } finally {
    cron.stop();
  }
}
