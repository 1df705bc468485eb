/**
 * Activation as a task through the network (SPEC.md section 8, Activation). POST /sim/active decides SIM by SIM,
 * takes each accepted SIM's operation slot for one sim_activate task and answers at once; this job asks the network
 * adapter to activate them, and each SIM becomes active when the network confirms it (confirmActivation, the
 * "activation completed" report), which also frees its slot. A SIM the network refuses or never answers gets its
 * slot back unchanged and is listed in the task's report.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Db } from '../db/db.js';
import { decide, type SimFacts } from '../domain/lifecycle.js';
import { audit } from '../http/audit.js';
import type { JobHandler } from '../job/worker.js';
import type { NetworkAdapter, SimRef } from './adapter.js';
import { networkEvent } from './sim-events.js';

/** SIMs sent to the network per request, and progress reported after each. */
const CHUNK = 100;

interface LockedSim extends SimFacts {
  operation_task_id: string | null;
  account_id: string | null;
}

/**
 * The network's answer for one SIM of activation task taskId, in one transaction: the SIM becomes active (ready)
 * with its first pending bundle started, or, refused, keeps its state; either way its slot is freed. An answer for a
 * SIM no longer held by that task (answered before, or the task gave up) changes nothing.
 */
export async function confirmActivation(db: Db, e: { sim: SimRef; taskId: string; ok: boolean; error?: string; at: Date }): Promise<void> {
  const { orgId, simId, iccid } = e.sim;
  await db.tx(async (q) => {
    const sim = (
      await q.query<LockedSim>(
        `SELECT s.status, s.sub_status AS "subStatus", s.technology, s.operation, s.operation_task_id,
                (s.test_data_status = 'in_test') AS "inTestPeriod",
                EXISTS (SELECT 1 FROM bundle_orders b WHERE b.org_id = s.org_id AND b.sim_id = s.id AND b.status IN ('PENDING', 'IN_USE')) AS "hasAvailableBundle",
                (SELECT t.account_id FROM tasks t WHERE t.id = s.operation_task_id) AS account_id
           FROM sims s WHERE s.org_id = $1 AND s.id = $2 FOR UPDATE OF s`,
        [orgId, simId],
      )
    ).rows[0];
    if (!sim || sim.operation !== 'activate' || sim.operation_task_id !== e.taskId) return;
    // The lifecycle decides again on the row as it is now: the slot kept other operations out, but a bundle may have ended.
    const d = e.ok ? decide({ ...sim, operation: null }, 'activate') : null;
    const at = e.at.toISOString();
    if (!d?.ok) {
      await q.query('UPDATE sims SET operation = NULL, operation_task_id = NULL, operation_started_at = NULL, updated_at = now() WHERE org_id = $1 AND id = $2', [orgId, simId]);
      return;
    }
    const bundle = (
      await q.query<{ id: string; name: string; quota_kb: string | null; expected_expire_at: Date }>(
        `UPDATE bundle_orders SET status = 'IN_USE', activated_at = $3,
                expected_expire_at = greatest(coalesce(expected_expire_at, $3::timestamptz + make_interval(days => CASE WHEN reset_cycle = 'YEAR_366D' THEN 366 ELSE 365 END)), $3::timestamptz)
          WHERE id = (SELECT id FROM bundle_orders WHERE org_id = $1 AND sim_id = $2 AND status = 'PENDING' AND type <> 'BEFORE_TEST' ORDER BY ordered_at, id LIMIT 1)
          RETURNING id, name, quota_kb, expected_expire_at`,
        [orgId, simId, at],
      )
    ).rows[0];
    await q.query(
      `UPDATE sims SET status = $3, sub_status = $4, activated_at = $5, operation = NULL, operation_task_id = NULL, operation_started_at = NULL,
              cycle_start = date_trunc('month', $5::timestamptz AT TIME ZONE 'UTC')::date, cycle_usage_kb = 0,
              cycle_limit_kb = coalesce($6, cycle_limit_kb), expires_at = coalesce(expires_at, $7, $5::timestamptz + interval '365 days'), updated_at = now()
        WHERE org_id = $1 AND id = $2`,
      [orgId, simId, d.status, d.subStatus, at, bundle?.quota_kb ?? null, bundle?.expected_expire_at ?? null],
    );
    await networkEvent(q, {
      orgId, simId, iccid, type: 'status_change', from: sim.status, to: d.status, accountId: sim.account_id,
      detail: { action: 'activate', taskId: e.taskId, fromSub: sim.subStatus, toSub: d.subStatus }, at: e.at,
    });
    if (bundle) await networkEvent(q, { orgId, simId, iccid, type: 'bundle_change', detail: { bundleId: bundle.id, name: bundle.name, from: 'PENDING', to: 'IN_USE' }, at: e.at });
  });
}

/** The sim_activate job: the SIMs still holding this task's slot go to the network, in chunks, with progress. */
export function activationJob(network: NetworkAdapter, opts: { answerWaitMs?: number; pollMs?: number } = {}): JobHandler {
  const answerWaitMs = opts.answerWaitMs ?? 5 * 60_000;
  const pollMs = opts.pollMs ?? 1000;
  return async ({ db, task, progress }) => {
    const iccids = ((task.payload as { iccids?: string[] }).iccids ?? []).slice();
    const held = async () =>
      (
        await db.query<SimRef>(
          `SELECT org_id AS "orgId", id AS "simId", iccid, imsi, msisdn FROM sims WHERE org_id = $1 AND operation = 'activate' AND operation_task_id = $2 ORDER BY iccid`,
          [task.org_id, task.id],
        )
      ).rows;
    const giveUp = (sim: SimRef, error: string) => confirmActivation(db, { sim, taskId: task.id, ok: false, error, at: new Date() });
    try {
      // After a restart the job starts over: the SIMs already confirmed hold no slot any more and are not asked again.
      const sims = await held();
      for (let i = 0; i < sims.length; i += CHUNK) {
        const chunk = sims.slice(i, i + CHUNK);
        const answers = await network.activate(task.id, chunk);
        for (const a of answers) {
          const sim = chunk.find((s) => s.iccid === a.iccid);
          if (!a.ok && sim) await giveUp(sim, a.error ?? 'refused by the network');
        }
        await progress(((i + chunk.length) / sims.length) * 95);
      }
      // A network that answers later (a real one): wait for its reports, keeping the lease, then give up on the rest.
      const deadline = Date.now() + answerWaitMs;
      let left = await held();
      while (left.length && Date.now() < deadline) {
        await sleep(pollMs);
        await progress(95);
        left = await held();
      }
      for (const sim of left) await giveUp(sim, 'no answer from the network');
    } catch (err) {
      // Failed here (not taken over by another worker): the SIMs get their slots back so they can be asked again.
      if ((err as Error).message !== 'lease lost') for (const sim of await held()) await giveUp(sim, 'failed');
      throw err;
    }
    const states = (await db.query<{ iccid: string; status: string }>('SELECT iccid, status FROM sims WHERE org_id = $1 AND iccid = ANY($2::text[])', [task.org_id, iccids])).rows;
    const active = new Set(states.filter((s) => s.status === 'active').map((s) => s.iccid));
    const activated = iccids.filter((i) => active.has(i));
    const failed = iccids.filter((i) => !active.has(i));
    await db.tx((q) =>
      audit(q, null, { action: 'activate', entity: 'sim', entityId: iccids.length === 1 ? iccids[0] : null, accountId: task.account_id, orgId: task.org_id, after: { taskId: task.id, activated, failed } }),
    );
    return { result: { activated: activated.length, failed: failed.length, errors: failed.map((iccid) => ({ iccid, message: 'Not activated by the network' })) }, issues: failed.length > 0 };
  };
}
