/** Mobile-terminated SMS through the network adapter: stored, handed to the network, then sent (and counted) or failed. */
import type { Db } from '../db/db.js';
import { newId } from '../db/ids.js';
import type { NetworkAdapter, SimRef } from '../network/adapter.js';
import { countSms } from '../network-reports/network-reports.js';

/** Store an MT SMS for sim and hand it to the network; delivery (and any answer) comes back as network reports. */
export async function sendMtSms(
  db: Db,
  network: NetworkAdapter,
  sim: SimRef,
  sms: { content: string; accountId: string | null; scheduleId?: string | null },
): Promise<{ id: string; status: 'sent' | 'failed' }> {
  const id = newId();
  await db.query(
    `INSERT INTO sms_records (org_id, id, sim_id, iccid, msisdn, direction, content, status, account_id, schedule_id) VALUES ($1, $2, $3, $4, $5, 'MT', $6, 'pending', $7, $8)`,
    [sim.orgId, id, sim.simId, sim.iccid, sim.msisdn, sms.content, sms.accountId, sms.scheduleId ?? null],
  );
  const answer = await network.sendSms(sim, { id, content: sms.content }).catch((err: Error) => ({ iccid: sim.iccid, ok: false, error: err.message }));
  return db.tx(async (q) => {
    const at = new Date();
    if (!answer.ok) {
      await q.query(`UPDATE sms_records SET status = 'failed', error = $3 WHERE org_id = $1 AND id = $2`, [
        sim.orgId,
        id,
        answer.error ?? 'Refused by the network',
      ]);
      return { id, status: 'failed' as const };
    }
    await q.query(`UPDATE sms_records SET status = 'sent', sent_at = $3 WHERE org_id = $1 AND id = $2`, [sim.orgId, id, at.toISOString()]);
    await countSms(q, { orgId: sim.orgId, simId: sim.simId, iccid: sim.iccid, direction: 'MT', at });
    return { id, status: 'sent' as const };
  });
}
