/**
 * The one writer of sim_events rows for the network side: every change the network causes is an event, and a change
 * of lifecycle state is also a row of the audit trail (by the system: no account).
 */
import type { Queryable } from '../db/db.js';
import { audit } from '../http/audit.js';

export interface SimEvent {
  orgId: string;
  simId: string;
  iccid: string;
  type: 'status_change' | 'bundle_change' | 'location' | 'session';
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
      accountId: e.accountId ?? null, orgId: e.orgId, action: String(e.detail.action ?? 'status_change'), entity: 'sim', entityId: e.iccid,
      before: { status: e.from ?? null, subStatus: e.detail.fromSub ?? null }, after: { status: e.to ?? null, subStatus: e.detail.toSub ?? null, source: 'network' },
    });
  }
}
