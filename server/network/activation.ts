/**
 * Activation as a task through the network (SPEC.md section 8, Activation). POST /sim/active decides SIM by SIM,
 * takes each accepted SIM's operation slot for one sim_activate task and answers at once; this job asks the network
 * adapter to activate them, and each SIM becomes active when the network confirms it (confirmActivation, the
 * "activation completed" report), which also frees its slot. A SIM the network refuses, or does not answer within
 * the stated time (ACTIVATION_ANSWER_MINUTES), gets its slot back unchanged and is listed in the task's report.
 */
import { translate } from '../../common/i18n.js';
import type { Language } from '../../common/limits.js';
import type { Db } from '../db/db.js';
import { decide, type SimFacts } from '../domain/lifecycle.js';
import { audit } from '../http/audit.js';
import { csvWriter } from '../job/table-writers.js';
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

/** How long the network has to answer an activation before its task gives up on it, unless configured. */
export const ACTIVATION_ANSWER_MINUTES = 10;

/** What an activation task keeps between its runs: when its SIMs went to the network, and those refused outright. */
interface ActivationPayload {
  iccids?: string[];
  lang?: Language;
  sentAt?: string;
  refused?: Record<string, string>;
}

/**
 * The sim_activate job: the SIMs still holding this task's slot go to the network, in chunks, with progress, once
 * (payload.sentAt records it, so a restart does not ask again). The network answers each SIM through its reports; while
 * some are unanswered the task waits without holding a job slot (JobResult.laterMs), looking again every pollMs, and
 * answerWaitMs after the request it gives up on the rest: they get their slots back and the task ends as "issues".
 * Its CSV report lists every SIM with its outcome, the stated time included for those never answered.
 */
export function activationJob(network: NetworkAdapter, opts: { answerWaitMs?: number; pollMs?: number } = {}): JobHandler {
  const answerWaitMs = opts.answerWaitMs ?? ACTIVATION_ANSWER_MINUTES * 60_000;
  const pollMs = opts.pollMs ?? 30_000;
  return async ({ db, store, task, progress }) => {
    const payload = task.payload as ActivationPayload;
    const iccids = (payload.iccids ?? []).slice();
    const lang = payload.lang ?? 'en-US';
    const held = async () =>
      (
        await db.query<SimRef>(
          `SELECT org_id AS "orgId", id AS "simId", iccid, imsi, msisdn FROM sims WHERE org_id = $1 AND operation = 'activate' AND operation_task_id = $2 ORDER BY iccid`,
          [task.org_id, task.id],
        )
      ).rows;
    const giveUp = (sim: SimRef, error: string) => confirmActivation(db, { sim, taskId: task.id, ok: false, error, at: new Date() });
    const refused: Record<string, string> = { ...(payload.refused ?? {}) };
    const unanswered = new Set<string>();
    try {
      let sentAt = payload.sentAt ? new Date(payload.sentAt) : null;
      if (!sentAt) {
        const sims = await held();
        for (let i = 0; i < sims.length; i += CHUNK) {
          const chunk = sims.slice(i, i + CHUNK);
          const answers = await network.activate(task.id, chunk);
          for (const a of answers) {
            const sim = chunk.find((s) => s.iccid === a.iccid);
            if (a.ok || !sim) continue;
            refused[a.iccid] = a.error ?? 'refused';
            await giveUp(sim, refused[a.iccid]);
          }
          await progress(((i + chunk.length) / sims.length) * 95);
        }
        sentAt = new Date();
        await db.query(`UPDATE tasks SET payload = payload || $2::jsonb WHERE id = $1`, [task.id, JSON.stringify({ sentAt: sentAt.toISOString(), refused })]);
      }
      // Waiting for the network's reports (a real network answers later): the task is looked at again, not held.
      const left = await held();
      const waitMs = sentAt.getTime() + answerWaitMs - Date.now();
      if (left.length && waitMs > 0) {
        await progress(95);
        return { result: {}, laterMs: Math.min(pollMs, waitMs) };
      }
      for (const sim of left) {
        unanswered.add(sim.iccid);
        await giveUp(sim, 'no answer from the network');
      }
    } catch (err) {
      // Failed here (not taken over by another worker): the SIMs get their slots back so they can be asked again.
      if ((err as Error).message !== 'lease lost') for (const sim of await held()) await giveUp(sim, 'failed');
      throw err;
    }
    const states = (await db.query<{ iccid: string; status: string }>('SELECT iccid, status FROM sims WHERE org_id = $1 AND iccid = ANY($2::text[])', [task.org_id, iccids])).rows;
    const active = new Set(states.filter((s) => s.status === 'active').map((s) => s.iccid));
    const activated = iccids.filter((i) => active.has(i));
    const failed = iccids.filter((i) => !active.has(i));
    const minutes = Math.round(answerWaitMs / 60_000);
    const t = (key: string, params: Record<string, unknown> = {}) => translate(lang, `upload.report.${key}`, params);
    const why = (iccid: string) =>
      unanswered.has(iccid) ? t('noAnswer', { minutes }) : refused[iccid] ? t('networkRefused', { error: refused[iccid] }) : t('failed');
    // The task's report: every SIM of the request, what became of it, and why not.
    const folder = `${task.org_id}/reports/${task.id}`;
    await store.discardDrafts(folder);
    const name = `activation-${task.id}.csv`;
    const writer = csvWriter(store.draft(`${folder}/${name}`));
    await writer.header(['ICCID', t('outcome'), t('message')]);
    for (const iccid of iccids) await writer.row([iccid, active.has(iccid) ? t('activated') : t('refused'), active.has(iccid) ? null : why(iccid)]);
    await writer.end();
    await db.tx((q) =>
      audit(q, null, { action: 'activate', entity: 'sim', entityId: iccids.length === 1 ? iccids[0] : null, accountId: task.account_id, orgId: task.org_id, after: { taskId: task.id, activated, failed } }),
    );
    return {
      file: { key: `${folder}/${name}`, name, contentType: 'text/csv; charset=utf-8', kind: 'report' as const },
      result: { activated: activated.length, failed: failed.length, answerWaitMinutes: minutes, errors: failed.map((iccid) => ({ iccid, message: why(iccid) })) },
      issues: failed.length > 0,
    };
  };
}
