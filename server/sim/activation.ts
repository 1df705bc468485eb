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
import { appendTaskLog } from '../job/task-log-repo.js';
import type { NetworkAdapter, SimRef } from '../network/adapter.js';
import { defineCycles } from '../bundles/bundle-engine.js';
import { networkEvents, type SimEvent } from './sim-events.js';

/** SIMs sent to the network per request, and progress reported after each. */
const CHUNK = 100;

interface LockedSim extends SimFacts {
  operation_task_id: string | null;
  account_id: string | null;
}

/**
 * The network's answer for one SIM of activation task taskId, in one transaction: the SIM becomes active (ready)
 * with its first pending bundle started, or, refused, keeps its state; either way its slot is freed. An answer for a
 * SIM no longer held by that task (answered before, or the task gave up) changes nothing. (confirmActivations below,
 * for one SIM.)
 */
export function confirmActivation(db: Db, e: { sim: SimRef; taskId: string; ok: boolean; error?: string; at: Date }): Promise<void> {
  return confirmActivations(db, { taskId: e.taskId, at: e.at, answers: [{ sim: e.sim, ok: e.ok, error: e.error }] });
}

/** The network's answers for several SIMs of one activation task, as one report. */
export interface ActivationAnswers {
  taskId: string;
  at: Date;
  answers: Array<{ sim: SimRef; ok: boolean; error?: string }>;
}

/**
 * The same as confirmActivation for many SIMs of one task, set-based in one transaction: the SIMs are locked and read
 * in one query, the lifecycle decides each as it is now, and the slots freed, the bundles started, the SIMs made
 * active and their events and audit rows are each one statement, whatever the number of SIMs. The outcome for each
 * SIM is the one confirmActivation gives it.
 */
export async function confirmActivations(db: Db, e: ActivationAnswers): Promise<void> {
  const seen = new Set<string>();
  const answers = e.answers.filter((a) => !seen.has(a.sim.simId) && (seen.add(a.sim.simId), true));
  if (!answers.length) return;
  await db.tx(async (q) => {
    const locked = (
      await q.query<LockedSim & { org_id: string; id: string }>(
        `SELECT s.org_id, s.id, s.status, s.sub_status AS "subStatus", s.technology, s.operation, s.operation_task_id,
                (s.test_data_status = 'in_test') AS "inTestPeriod",
                EXISTS (SELECT 1 FROM bundle_orders b WHERE b.org_id = s.org_id AND b.sim_id = s.id AND b.status IN ('PENDING', 'IN_USE')) AS "hasAvailableBundle",
                (SELECT t.account_id FROM tasks t WHERE t.id = s.operation_task_id) AS account_id
           FROM sims s JOIN unnest($1::text[], $2::text[]) AS x(org_id, id) ON s.org_id = x.org_id AND s.id = x.id
          ORDER BY s.id FOR UPDATE OF s`,
        [answers.map((a) => a.sim.orgId), answers.map((a) => a.sim.simId)],
      )
    ).rows;
    const byId = new Map(locked.map((r) => [r.id, r]));
    const release: SimRef[] = [];
    const activate: Array<{ sim: SimRef; row: LockedSim; status: string; subStatus: string }> = [];
    for (const a of answers) {
      const row = byId.get(a.sim.simId);
      if (!row || row.org_id !== a.sim.orgId || row.operation !== 'activate' || row.operation_task_id !== e.taskId) continue;
      const d = a.ok ? decide({ ...row, operation: null }, 'activate') : null;
      if (d?.ok) activate.push({ sim: a.sim, row, status: d.status, subStatus: d.subStatus });
      else release.push(a.sim);
    }
    const at = e.at.toISOString();
    // The network's answer, in the task's provider log: how many became active, and why others were refused.
    if (activate.length || release.length) {
      const errors = answers
        .filter((a) => !a.ok)
        .slice(0, 20)
        .map((a) => ({ iccid: a.sim.iccid, error: a.error ?? 'refused' }));
      await appendTaskLog(q, [
        {
          orgId: answers[0].sim.orgId,
          taskId: e.taskId,
          provider: 'network',
          level: release.length ? 'warn' : 'info',
          message: 'networkAnswered',
          detail: { activated: activate.length, refused: release.length, ...(errors.length ? { errors } : {}) },
        },
      ]);
    }
    if (release.length) {
      await q.query(
        `UPDATE sims s SET operation = NULL, operation_task_id = NULL, operation_started_at = NULL, updated_at = now()
           FROM unnest($1::text[], $2::text[]) AS x(org_id, id) WHERE s.org_id = x.org_id AND s.id = x.id`,
        [release.map((r) => r.orgId), release.map((r) => r.simId)],
      );
    }
    if (!activate.length) return;
    const orgs = activate.map((a) => a.sim.orgId);
    const ids = activate.map((a) => a.sim.simId);
    // Each SIM's first pending bundle (not a test bundle) starts.
    const bundles = (
      await q.query<{ sim_id: string; id: string; name: string; quota_kb: string | null; expected_expire_at: Date }>(
        `WITH first AS (
           SELECT DISTINCT ON (b.sim_id) b.id FROM bundle_orders b JOIN unnest($1::text[], $2::text[]) AS x(org_id, sim_id) ON b.org_id = x.org_id AND b.sim_id = x.sim_id
            WHERE b.status = 'PENDING' AND b.type <> 'BEFORE_TEST' ORDER BY b.sim_id, b.ordered_at, b.id)
         UPDATE bundle_orders b SET status = 'IN_USE', activated_at = $3,
                expected_expire_at = greatest(coalesce(b.expected_expire_at, $3::timestamptz + make_interval(days => CASE WHEN b.reset_cycle = 'YEAR_366D' THEN 366 ELSE 365 END)), $3::timestamptz)
           FROM first WHERE b.id = first.id
         RETURNING b.sim_id, b.id, b.name, b.quota_kb, b.expected_expire_at`,
        [orgs, ids, at],
      )
    ).rows;
    const bundleOf = new Map(bundles.map((b) => [b.sim_id, b]));
    await q.query(
      `UPDATE sims s SET status = x.status, sub_status = x.sub_status, activated_at = $7::timestamptz, operation = NULL, operation_task_id = NULL, operation_started_at = NULL,
              cycle_start = date_trunc('month', $7::timestamptz AT TIME ZONE 'UTC')::date, cycle_usage_kb = 0,
              cycle_limit_kb = coalesce(x.quota_kb::bigint, s.cycle_limit_kb), expires_at = coalesce(s.expires_at, x.expire_at::timestamptz, $7::timestamptz + interval '365 days'), updated_at = now()
         FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[]) AS x(org_id, id, status, sub_status, quota_kb, expire_at)
        WHERE s.org_id = x.org_id AND s.id = x.id`,
      [
        orgs,
        ids,
        activate.map((a) => a.status),
        activate.map((a) => a.subStatus),
        activate.map((a) => bundleOf.get(a.sim.simId)?.quota_kb ?? null),
        activate.map((a) => {
          const b = bundleOf.get(a.sim.simId);
          return b?.expected_expire_at ? new Date(b.expected_expire_at).toISOString() : null;
        }),
        at,
      ],
    );
    const events: SimEvent[] = [];
    for (const a of activate) {
      const { orgId, simId, iccid } = a.sim;
      events.push({
        orgId,
        simId,
        iccid,
        type: 'status_change',
        from: a.row.status,
        to: a.status,
        accountId: a.row.account_id,
        detail: { action: 'activate', taskId: e.taskId, fromSub: a.row.subStatus, toSub: a.subStatus },
        at: e.at,
      });
    }
    for (const a of activate) {
      const b = bundleOf.get(a.sim.simId);
      if (b)
        events.push({
          orgId: a.sim.orgId,
          simId: a.sim.simId,
          iccid: a.sim.iccid,
          type: 'bundle_change',
          detail: { bundleId: b.id, name: b.name, from: 'PENDING', to: 'IN_USE' },
          at: e.at,
        });
    }
    await networkEvents(q, events);
    // Their cycles are those of the bundles that just started.
    await defineCycles(
      q,
      activate.map((a) => ({ orgId: a.sim.orgId, simId: a.sim.simId })),
      e.at,
    );
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
    const giveUp = (sims: SimRef[], error: string) =>
      confirmActivations(db, { taskId: task.id, at: new Date(), answers: sims.map((sim) => ({ sim, ok: false, error })) });
    const refused: Record<string, string> = { ...(payload.refused ?? {}) };
    const unanswered = new Set<string>();
    try {
      let sentAt = payload.sentAt ? new Date(payload.sentAt) : null;
      if (!sentAt) {
        const sims = await held();
        for (let i = 0; i < sims.length; i += CHUNK) {
          const chunk = sims.slice(i, i + CHUNK);
          const answers = await network.activate(task.id, chunk);
          const byIccid = new Map(chunk.map((s) => [s.iccid, s]));
          const refusedNow: Array<{ sim: SimRef; ok: false; error: string }> = [];
          for (const a of answers) {
            const sim = byIccid.get(a.iccid);
            if (a.ok || !sim) continue;
            refused[a.iccid] = a.error ?? 'refused';
            refusedNow.push({ sim, ok: false, error: refused[a.iccid] });
          }
          await appendTaskLog(db, [{ orgId: task.org_id, taskId: task.id, provider: 'network', message: 'sentToNetwork', detail: { sims: chunk.length } }]);
          await confirmActivations(db, { taskId: task.id, at: new Date(), answers: refusedNow });
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
      for (const sim of left) unanswered.add(sim.iccid);
      await giveUp(left, 'no answer from the network');
    } catch (err) {
      // Failed here (not taken over by another worker): the SIMs get their slots back so they can be asked again.
      if ((err as Error).message !== 'lease lost') await giveUp(await held(), 'failed');
      throw err;
    }
    const states = (
      await db.query<{ iccid: string; status: string }>('SELECT iccid, status FROM sims WHERE org_id = $1 AND iccid = ANY($2::text[])', [task.org_id, iccids])
    ).rows;
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
      audit(q, null, {
        action: 'activate',
        entity: 'sim',
        entityId: iccids.length === 1 ? iccids[0] : null,
        accountId: task.account_id,
        orgId: task.org_id,
        after: { taskId: task.id, activated, failed },
      }),
    );
    return {
      file: { key: `${folder}/${name}`, name, contentType: 'text/csv; charset=utf-8', kind: 'report' as const },
      result: {
        activated: activated.length,
        failed: failed.length,
        answerWaitMinutes: minutes,
        errors: failed.map((iccid) => ({ iccid, message: why(iccid) })),
      },
      issues: failed.length > 0,
    };
  };
}
