/**
 * SMS that a process stopped with (server/sms/send.ts, between storing them and handing them to the network) stay
 * pending with their quota units taken. The hourly maintenance gives up on those older than PENDING_GIVE_UP_MINUTES:
 * they become failed, saying so, and each organisation gets its units back. Whether the network had them is unknown;
 * none is sent again, so no device gets a message twice. Scheduled runs mark their own interrupted messages
 * (server/sms-schedules/), so their records are left to them.
 */
import type { Db } from '../db/db.js';
import { returnSmsQuota } from './quota.js';

/** Far beyond a hand-off's longest wait (1,000 SIMs, 50 at a time, each answer within the adapter's timeout). */
export const PENDING_GIVE_UP_MINUTES = 30;
export const INTERRUPTED = 'Interrupted before it was handed to the network; not sent again';

/** Fail the instant SMS pending since before now − PENDING_GIVE_UP_MINUTES; returns how many. */
export async function sweepPendingSms(db: Db, now: Date): Promise<number> {
  const cutoff = new Date(now.getTime() - PENDING_GIVE_UP_MINUTES * 60_000).toISOString();
  return db.tx(async (q) => {
    const r = await q.query<{ org_id: string; n: number }>(
      `WITH gone AS (
         UPDATE sms_records SET status = 'failed', error = $2
          WHERE status = 'pending' AND created_at < $1 AND direction = 'MT' AND schedule_id IS NULL
          RETURNING org_id)
       SELECT org_id, count(*)::int AS n FROM gone GROUP BY org_id ORDER BY org_id`,
      [cutoff, INTERRUPTED],
    );
    for (const row of r.rows) await returnSmsQuota(q, row.org_id, row.n);
    return r.rows.reduce((sum, row) => sum + row.n, 0);
  });
}
