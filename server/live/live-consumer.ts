/**
 * The event log's `live` consumer (ARCHITECTURE.md: live SSE is a consumer of the event log). SMS events (an SMS
 * received, delivered or failed) and a scheduled run's end become live events of their organisation, written in the
 * transaction that moves the consumer's cursor; every instance's hub (hub.ts) reads live_events and pushes them to the
 * browsers it holds, so a browser on any instance hears of a change made on any other.
 *
 * One live event per organisation and batch, not one per SMS: a send to 1,000 SIMs delivered at once is one message
 * to each browser of the organisation, which asks for its page again (the ids tell a page whether it shows one).
 */
import type { Queryable } from '../db/db.js';
import type { DomainEvent } from '../events/event-log.js';
import { publishLive } from './hub.js';

export const LIVE_CONSUMER = 'live';

/** At most this many SMS ids ride on one live event; a page seeing the cap asks again whatever it shows. */
export const LIVE_SMS_IDS = 200;

export interface LiveSmsData {
  /** How many SMS changed in this batch. */
  changes: number;
  /** Their ids (the first LIVE_SMS_IDS). */
  smsIds: string[];
  /** Statuses reached: received, delivered, failed. */
  statuses: string[];
  /** Scheduled SMS whose messages changed or whose run ended. */
  scheduleIds: string[];
}

const isLive = (e: DomainEvent) => e.type === 'sms' || (e.type === 'sms_schedule' && e.subtype === 'run_finished');

/** The consumer's handler (startConsumer's `handle`). */
export async function liveHandle(events: DomainEvent[], q: Queryable): Promise<void> {
  const mine = events.filter(isLive);
  if (!mine.length) return;
  const smsIds = [...new Set(mine.filter((e) => e.type === 'sms' && typeof e.data.smsId === 'string').map((e) => e.data.smsId as string))];
  // Which schedule sent each message (an instant SMS has none); the events carry the SMS only.
  const scheduleOf = new Map<string, string>();
  if (smsIds.length) {
    const r = await q.query<{ id: string; schedule_id: string }>(
      'SELECT id, schedule_id FROM sms_records WHERE id = ANY($1::text[]) AND schedule_id IS NOT NULL',
      [smsIds],
    );
    for (const row of r.rows) scheduleOf.set(row.id, row.schedule_id);
  }
  const byOrg = new Map<string, { ids: Set<string>; statuses: Set<string>; schedules: Set<string>; changes: number }>();
  for (const e of mine) {
    const o = byOrg.get(e.orgId) ?? { ids: new Set(), statuses: new Set(), schedules: new Set(), changes: 0 };
    byOrg.set(e.orgId, o);
    if (e.type === 'sms') {
      const id = e.data.smsId as string | undefined;
      o.changes++;
      o.statuses.add(e.subtype);
      if (id) o.ids.add(id);
      const schedule = id && scheduleOf.get(id);
      if (schedule) o.schedules.add(schedule);
    } else if (typeof e.data.scheduleId === 'string') o.schedules.add(e.data.scheduleId);
  }
  for (const [orgId, o] of byOrg) {
    const data: LiveSmsData = { changes: o.changes, smsIds: [...o.ids].slice(0, LIVE_SMS_IDS), statuses: [...o.statuses], scheduleIds: [...o.schedules] };
    await publishLive(q, { type: 'sms', orgId, data });
  }
}
