/**
 * The checks of a scheduled SMS that a JSON Schema cannot say (SPEC.md sections 5 and 9): the content rules
 * every SMS follows (server/sms/content.ts), weekdays for a repeated schedule, a real time zone, times not in the
 * past and an end after the start, target SIMs without duplicates and all of the organisation, e-mail addresses
 * unique. Each refusal names the field, the rule and, for lists, the offending entries.
 */
import { CODES } from '../../common/errors.js';
import type { ScheduleSettings } from '../../common/sms-schedule.js';
import { ApiError, invalid } from '../http/api-error.js';
import type { Queryable } from '../db/db.js';
import { isTimeZone } from './recurrence.js';
import { assertSmsContent } from '../sms/content.js';

/** A create or update body as it comes (the schema's defaults not yet settled). */
export type ScheduleInput = Pick<ScheduleSettings<string>, 'name' | 'content' | 'smsType' | 'mode' | 'startAt'> &
  Partial<ScheduleSettings<string>> & { iccids: string[] };

/** What is stored: the input with its defaults settled. */
export interface ScheduleValues extends ScheduleSettings<Date> {
  iccids: string[];
}

/** A 400 naming a list field, the rule broken and the entries that broke it (shown in the message and in data). */
export function offenders(field: string, rule: string, list: string[]): ApiError {
  const shown = list.slice(0, 20).join(', ') + (list.length > 20 ? ` (+${list.length - 20})` : '');
  return new ApiError(400, CODES.validation, { field, ruleKey: rule, list: shown, count: list.length }, 'errors.validation', { field, rule, offenders: list });
}

/** The entries of a list that occur more than once (each named once, in first-seen order). */
export function duplicatesOf(list: string[], key: (s: string) => string = (s) => s): string[] {
  const seen = new Set<string>();
  const dup = new Set<string>();
  for (const v of list) {
    const k = key(v);
    if (seen.has(k)) dup.add(v);
    seen.add(k);
  }
  return [...dup];
}

/** The wall-clock HH:MM of an instant in a zone. */
export function localTime(at: Date, zone: string): string {
  const parts = new Intl.DateTimeFormat('en-GB', { timeZone: zone, hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }).formatToParts(at);
  const get = (t: string) => parts.find((p) => p.type === t)?.value ?? '00';
  return `${get('hour')}:${get('minute')}`;
}

/**
 * Check an input against everything but the organisation's SIMs; returns the values to store. `before`, on an edit:
 * the stored start and end, which may have passed since they were set; kept as they are, they are not refused as past
 * (renaming a schedule that started last week changes only its name).
 */
export function checkSchedule(input: ScheduleInput, now: Date, before?: { startAt: Date; endAt: Date | null }): ScheduleValues {
  if (!input.name.trim()) throw invalid('name', 'required');
  // The rules of every SMS (common/sms.ts): "content does not comply", with the rule broken.
  const { content } = assertSmsContent(input.content, input.smsType);
  const timezone = input.timezone ?? 'UTC';
  if (!isTimeZone(timezone)) throw invalid('timezone', 'timezone');
  const startAt = new Date(input.startAt);
  const endAt = input.endAt ? new Date(input.endAt) : null;
  const neverEnds = input.mode === 'repeated' && (input.neverEnds ?? false);
  const weekdays = input.mode === 'repeated' ? [...new Set(input.weekdays ?? [])].sort((a, b) => a - b) : [];
  let sendTime = input.sendTime ?? '';
  if (input.mode === 'once') {
    // A once-only SMS sends at its start; the time shown is that instant's in the schedule's zone.
    if (startAt.getTime() < now.getTime() && startAt.getTime() !== before?.startAt.getTime()) throw invalid('startAt', 'notPast');
    sendTime = localTime(startAt, timezone);
  } else {
    if (!weekdays.length) throw invalid('weekdays', 'minItems', { limit: 1 });
    if (!sendTime) throw invalid('sendTime', 'required');
    if (neverEnds && endAt) throw invalid('endAt', 'endOrNever');
    if (!neverEnds && !endAt) throw invalid('endAt', 'endOrNever');
    if (endAt && endAt.getTime() <= startAt.getTime()) throw invalid('endAt', 'notBefore');
    if (endAt && endAt.getTime() < now.getTime() && endAt.getTime() !== before?.endAt?.getTime()) throw invalid('endAt', 'notPast');
  }
  const iccids = input.iccids.map((s) => s.trim());
  const dupIccids = duplicatesOf(iccids);
  if (dupIccids.length) throw offenders('iccids', 'duplicateIccids', dupIccids);
  const emailNotify = input.emailNotify ?? false;
  const notifyEmails = (input.notifyEmails ?? []).map((e) => e.trim());
  const dupEmails = duplicatesOf(notifyEmails, (e) => e.toLowerCase());
  if (dupEmails.length) throw offenders('notifyEmails', 'duplicateEmails', dupEmails);
  if (emailNotify && !notifyEmails.length) throw invalid('notifyEmails', 'minItems', { limit: 1 });
  return {
    name: input.name.trim(),
    content,
    smsType: input.smsType,
    mode: input.mode,
    weekdays,
    sendTime,
    timezone,
    startAt,
    endAt: input.mode === 'once' || neverEnds ? null : endAt,
    neverEnds,
    iccids,
    emailNotify,
    notifyEmails: emailNotify ? notifyEmails.map((e) => e.toLowerCase()) : [],
  };
}

/** Refuse ICCIDs that are not SIMs of the organisation, all of them named: "Device (ICCID) does not exist". */
export async function checkTargets(q: Queryable, orgId: string, iccids: string[]): Promise<void> {
  const found = new Set(
    (await q.query<{ iccid: string }>('SELECT iccid FROM sims WHERE org_id = $1 AND iccid = ANY($2::text[])', [orgId, iccids])).rows.map((r) => r.iccid),
  );
  const missing = iccids.filter((i) => !found.has(i));
  if (missing.length) {
    const shown = missing.slice(0, 20).join(', ') + (missing.length > 20 ? ` (+${missing.length - 20})` : '');
    throw new ApiError(400, CODES.validation, { list: shown, count: missing.length }, 'errors.deviceMissing', {
      field: 'iccids',
      rule: 'deviceMissing',
      offenders: missing,
    });
  }
}
