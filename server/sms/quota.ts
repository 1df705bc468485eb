/**
 * The organisation's SMS quota as a balance (018_sms.sql): sms_quota is the allowance its parent set, sms_used what
 * was handed to the network against it. Units are taken under the organisation's row lock in the caller's
 * transaction, so two senders at once are one after the other and cannot overdraw it, and a send that fails later in
 * that transaction takes nothing.
 */
import type { Queryable } from '../db/db.js';

export interface SmsQuota {
  quota: number;
  used: number;
  /** What may still be sent: quota - used, never below zero. */
  remaining: number;
}

const of = (r: { quota: number; used: number }): SmsQuota => ({
  quota: Number(r.quota),
  used: Number(r.used),
  remaining: Math.max(0, Number(r.quota) - Number(r.used)),
});

/** The organisation's quota as it stands (no lock). */
export async function smsQuotaOf(q: Queryable, orgId: string): Promise<SmsQuota> {
  const r = (await q.query<{ quota: number; used: number }>('SELECT sms_quota AS quota, sms_used AS used FROM organisations WHERE id = $1', [orgId])).rows[0];
  return of(r ?? { quota: 0, used: 0 });
}

/**
 * Take up to wanted units of the organisation's quota in q's transaction and answer how many were granted (0 when it
 * is exhausted). The row stays locked until the transaction ends.
 */
export async function takeSmsQuota(q: Queryable, orgId: string, wanted: number): Promise<{ granted: number; after: SmsQuota }> {
  const row = (
    await q.query<{ quota: number; used: number }>('SELECT sms_quota AS quota, sms_used AS used FROM organisations WHERE id = $1 FOR UPDATE', [orgId])
  ).rows[0];
  const now = of(row ?? { quota: 0, used: 0 });
  const granted = Math.max(0, Math.min(Math.floor(wanted), now.remaining));
  if (granted > 0) await q.query('UPDATE organisations SET sms_used = sms_used + $2 WHERE id = $1', [orgId, granted]);
  return { granted, after: of({ quota: now.quota, used: now.used + granted }) };
}

/** Give back units taken for SMS the network refused at hand-off (they were never sent). */
export async function returnSmsQuota(q: Queryable, orgId: string, units: number): Promise<void> {
  if (units > 0) await q.query('UPDATE organisations SET sms_used = greatest(0, sms_used - $2) WHERE id = $1', [orgId, Math.floor(units)]);
}
