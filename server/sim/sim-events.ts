/**
 * The one writer of sim_events rows for the network side: every change the network causes is an event, and a change
 * of lifecycle state is also a row of the audit trail (by the system: no account).
 */
import type { Queryable } from '../db/db.js';
import { audit, auditMany } from '../http/audit.js';

export interface SimEvent {
  orgId: string;
  simId: string;
  iccid: string;
  type: 'status_change' | 'bundle_change' | 'location' | 'session' | 'network_change';
  from?: string | null;
  to?: string | null;
  detail: Record<string, unknown>;
  accountId?: string | null;
  at: Date;
}

/** Append a SIM event with source 'network' in q's transaction (and, for a change of state, its audit row). */
export async function networkEvent(q: Queryable, e: SimEvent): Promise<void> {
  await q.query(
    `INSERT INTO sim_events (org_id, sim_id, iccid, type, from_status, to_status, detail, account_id, source, at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 'network', $9)`,
    [e.orgId, e.simId, e.iccid, e.type, e.from ?? null, e.to ?? null, JSON.stringify(e.detail), e.accountId ?? null, e.at.toISOString()],
  );
  if (e.type === 'status_change') {
    await audit(q, null, {
      accountId: e.accountId ?? null,
      orgId: e.orgId,
      action: String(e.detail.action ?? 'status_change'),
      entity: 'sim',
      entityId: e.iccid,
      before: { status: e.from ?? null, subStatus: e.detail.fromSub ?? null },
      after: { status: e.to ?? null, subStatus: e.detail.toSub ?? null, source: 'network' },
    });
  }
}

/** Several SIM events at once, in their order, with the audit rows of their changes of state: a batch of reports. */
export async function networkEvents(q: Queryable, events: SimEvent[]): Promise<void> {
  if (!events.length) return;
  await q.query(
    `INSERT INTO sim_events (org_id, sim_id, iccid, type, from_status, to_status, detail, account_id, source, at)
     SELECT o, s, i, t, f, tt, d::jsonb, a, 'network', at::timestamptz
       FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[]) WITH ORDINALITY AS x(o, s, i, t, f, tt, d, a, at, n)
      ORDER BY n`,
    [
      events.map((e) => e.orgId),
      events.map((e) => e.simId),
      events.map((e) => e.iccid),
      events.map((e) => e.type),
      events.map((e) => e.from ?? null),
      events.map((e) => e.to ?? null),
      events.map((e) => JSON.stringify(e.detail)),
      events.map((e) => e.accountId ?? null),
      events.map((e) => e.at.toISOString()),
    ],
  );
  await auditMany(
    q,
    events
      .filter((e) => e.type === 'status_change')
      .map((e) => ({
        accountId: e.accountId ?? null,
        orgId: e.orgId,
        action: String(e.detail.action ?? 'status_change'),
        entity: 'sim',
        entityId: e.iccid,
        before: { status: e.from ?? null, subStatus: e.detail.fromSub ?? null },
        after: { status: e.to ?? null, subStatus: e.detail.toSub ?? null, source: 'network' },
      })),
  );
}
