/**
 * The autoflow action runner: each run is a durable job. A runner claims due runs with a lease
 * (FOR UPDATE SKIP LOCKED; a run whose runner stopped is claimed again when its lease ends) and carries out the
 * rule's actions in order, recording each action's outcome on the run row:
 *
 * - done (with what it did), failed (with a reason code), retrying (with its attempts; the run is due again after a
 *   backoff of retryBaseMs doubled per attempt, at most an hour), queued (the webhook, carried by the event log).
 * - An action that changes the database (suspend, resume, throttle, tag, e-mail's outbox rows) is marked done in the
 *   transaction of its change, guarded by the claim: a retried or taken-over job never applies it twice.
 * - An SMS, and an e-mail through SMTP, leave the system: the action is marked "sending" (committed) before it goes;
 *   a job that finds an action still "sending" knows a runner stopped in the middle and gives it up as failed
 *   ("interrupted") instead of sending it a second time. A refusal by the network at hand-off sent nothing and is
 *   tried again.
 * - A suspend or resume is asked of the network first and written after; the change is written with source
 *   "autoflow", which the matcher never fires on, so a rule's own action cannot set it off again.
 * - A run whose rule was disabled or deleted before its actions ran is stopped: its remaining actions are "skipped".
 */
import type { FastifyBaseLogger } from 'fastify';
import { translate } from '../../common/i18n.js';
import type { Language } from '../../common/limits.js';
import type { RuleAction } from '../../common/autoflow-rule.js';
import type { Db, Queryable } from '../db/db.js';
import { newId } from '../db/ids.js';
import { flowControlOf, type FlowControl, type RuleControl } from '../domain/bundle-cycle.js';
import { decide, type SimFacts } from '../domain/lifecycle.js';
import { audit } from '../http/audit.js';
import type { Mailer } from '../identity/mailer.js';
import type { NetworkAdapter, SimRef } from '../network/adapter.js';
import { syncPolicies } from '../bundles/bundle-engine.js';
import { sendSmsBatch } from '../sms/send.js';

import type { ActionOutcome } from '../../common/autoflow-rule.js';
export type { ActionOutcome };

/** An action as the run history keeps it: the rule's action and what became of it. */
export interface ActionState extends RuleAction {
  outcome: ActionOutcome;
  /** Why it failed or is being retried: a code (the console words it). */
  reason?: string;
  /** Attempts that failed and were retried. */
  attempts?: number;
  /** What it did (an SMS's id, "already" when the SIM was already so). */
  result?: Record<string, unknown>;
  /** When the outcome was reached. */
  at?: string;
}

const TERMINAL: ReadonlySet<ActionOutcome> = new Set(['queued', 'done', 'failed', 'skipped']);

export interface ActionRunnerOptions {
  /** The first retry waits this long; each further one twice as long (at most an hour). */
  retryBaseMs?: number;
  /** An action failing this many times is given up as failed. */
  maxAttempts?: number;
  leaseSeconds?: number;
  /** Runs claimed per round. */
  batch?: number;
}

interface ClaimedRun {
  id: string;
  org_id: string;
  rule_id: string;
  sim_id: string | null;
  iccid: string | null;
  trigger: string;
  at: Date | string;
  actions: ActionState[];
}

type Step = { outcome: 'done'; result?: Record<string, unknown> } | { outcome: 'failed'; reason: string } | { outcome: 'retry'; reason: string };

class LeaseLost extends Error {}

/** The SIM row a database action holds while it changes it. */
interface HeldSim {
  status: string;
  tags: string[];
  flow_control_policy: FlowControl;
  overage_control: FlowControl;
  coverage_barred: boolean;
  pool_stopped: boolean;
  rule_control: RuleControl;
}

export class ActionRunner {
  readonly id = `autoflow-${newId(8)}`;
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<number> | null = null;
  private again = false;
  /** Set by stop(): nothing more is claimed, and claimed runs not begun are given back. */
  private stopping = false;
  private readonly retryBaseMs: number;
  private readonly maxAttempts: number;
  private readonly leaseSeconds: number;
  private readonly batch: number;

  constructor(
    private readonly db: Db,
    private readonly network: NetworkAdapter,
    private readonly mailer: Mailer,
    private readonly log: FastifyBaseLogger,
    opts: ActionRunnerOptions = {},
  ) {
    this.retryBaseMs = opts.retryBaseMs ?? 30_000;
    this.maxAttempts = opts.maxAttempts ?? 5;
    this.leaseSeconds = opts.leaseSeconds ?? 60;
    this.batch = opts.batch ?? 50;
  }

  start(pollMs: number): void {
    this.timer = setInterval(() => this.wake(), pollMs);
    this.timer.unref();
  }

  /**
   * Claim nothing more: the run being carried out finishes its actions (each a short call to the network or a mail),
   * the runs claimed with it that have not begun are given back at once for the next instance.
   */
  async stop(): Promise<void> {
    this.stopping = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running?.catch(() => undefined);
  }

  /** Run what is due now (e.g. after the engine wrote runs); a round in progress runs once more after it. */
  wake(): void {
    if (this.stopping) return;
    if (this.running) {
      this.again = true;
      return;
    }
    void this.drain().catch((err) => this.log.error({ err }, 'autoflow action runner'));
  }

  private async drain(): Promise<void> {
    do {
      this.again = false;
      while (!this.stopping && (await this.runOnce()) > 0);
    } while (this.again && !this.stopping);
  }

  /** Claim up to a batch of due runs and carry them out; returns how many were claimed. Tests call this. */
  runOnce(): Promise<number> {
    if (this.running) return this.running;
    this.running = this.round().finally(() => (this.running = null));
    return this.running;
  }

  private async round(): Promise<number> {
    if (this.stopping) return 0;
    const claimed = (
      await this.db.query<ClaimedRun>(
        // Carried out in the order they fell due (RETURNING alone gives no order): a SIM's runs one after another.
        `WITH next AS (SELECT id FROM autoflow_runs
                        WHERE ended_at IS NULL AND next_at <= now() AND (lease_until IS NULL OR lease_until < now())
                        ORDER BY next_at, id LIMIT $2 FOR UPDATE SKIP LOCKED),
              claimed AS (
                UPDATE autoflow_runs r SET claimed_by = $1, lease_until = now() + make_interval(secs => $3), attempts = r.attempts + 1
                  FROM next WHERE r.id = next.id
                RETURNING r.id, r.next_at, r.org_id, r.rule_id, r.sim_id, r.iccid, r.trigger, r.at, r.actions)
         SELECT id::text AS id, org_id, rule_id, sim_id, iccid, trigger, at, actions FROM claimed ORDER BY claimed.next_at, claimed.id`,
        [this.id, this.batch, this.leaseSeconds],
      )
    ).rows;
    for (const run of claimed) {
      if (this.stopping) {
        // Not begun: back to the queue as it was, due now, for the next instance.
        await this.db
          .query(
            'UPDATE autoflow_runs SET claimed_by = NULL, lease_until = NULL, attempts = greatest(attempts - 1, 0) WHERE id = $1::bigint AND claimed_by = $2 AND ended_at IS NULL',
            [run.id, this.id],
          )
          .catch(() => undefined);
        continue;
      }
      try {
        await this.carryOut(run);
      } catch (err) {
        if (err instanceof LeaseLost) this.log.warn({ runner: this.id, run: run.id }, 'autoflow run taken over by another instance');
        else {
          this.log.error({ err, run: run.id }, 'autoflow run failed; it is tried again');
          await this.release(run, this.retryBaseMs).catch(() => undefined);
        }
      }
    }
    return claimed.length;
  }

  /** Carry out the run's actions from the first one not finished, in order. */
  private async carryOut(run: ClaimedRun): Promise<void> {
    const rule = (
      await this.db.query<{ status: string; name: string; created_by: string | null }>('SELECT status, name, created_by FROM autoflow_rules WHERE id = $1', [
        run.rule_id,
      ])
    ).rows[0];
    const actions = run.actions;
    if (!rule || rule.status !== 'enabled') {
      // A rule disabled (or deleted) since it fired does no more.
      const stopped = actions.map((a) =>
        TERMINAL.has(a.outcome) ? a : { ...a, outcome: 'skipped' as const, reason: 'ruleDisabled', at: new Date().toISOString() },
      );
      await this.end(this.db, run, stopped);
      return;
    }
    for (let i = 0; i < actions.length; i++) {
      const a = actions[i];
      if (TERMINAL.has(a.outcome)) continue;
      const step = await this.step(run, rule, i, a);
      if (step === 'applied') continue;
      if (step.outcome === 'retry') {
        const attempts = (a.attempts ?? 0) + 1;
        if (attempts < this.maxAttempts) {
          actions[i] = { ...a, outcome: 'retrying', reason: step.reason, attempts, at: new Date().toISOString() };
          await this.save(this.db, run, actions);
          await this.release(run, Math.min(3_600_000, this.retryBaseMs * 2 ** (attempts - 1)));
          return;
        }
        actions[i] = { ...a, outcome: 'failed', reason: step.reason, attempts, at: new Date().toISOString() };
      } else {
        actions[i] = {
          ...a,
          outcome: step.outcome,
          ...(step.outcome === 'failed' ? { reason: step.reason } : { result: step.result }),
          at: new Date().toISOString(),
        };
      }
      await this.save(this.db, run, actions);
    }
    await this.end(this.db, run, actions);
  }

  /**
   * One action. Database changes are made and marked done here in one transaction ('applied'); what leaves the
   * system answers a Step that carryOut records.
   */
  private async step(run: ClaimedRun, rule: { name: string; created_by: string | null }, i: number, a: ActionState): Promise<Step | 'applied'> {
    if (!run.sim_id || !run.iccid) return { outcome: 'failed', reason: 'simNotFound' };
    switch (a.type) {
      case 'suspend':
      case 'resume':
        return this.lifecycle(run, i, a, a.type);
      case 'throttle': {
        // The rule's throttle is one of the data policy's causes (migration 027): the network is told the strongest of
        // it, the bundle's overage and an out-of-coverage bar, right after the commit (the bundle job retries what was
        // not told).
        const step = await this.inTx(run, i, async (q, sim) => {
          const policy = `throttle_${a.speedKbps}` as RuleControl;
          if (sim.rule_control === policy) return { outcome: 'done', result: { already: true } };
          const flow = flowControlOf(sim.coverage_barred || sim.pool_stopped, sim.overage_control, policy);
          const changed = flow !== sim.flow_control_policy;
          await q.query(
            `UPDATE sims SET rule_control = $3, flow_control_policy = $4, policy_unsent = policy_unsent OR $5::boolean,
                    flow_control_at = CASE WHEN $5::boolean THEN now() ELSE flow_control_at END, updated_at = now()
              WHERE org_id = $1 AND id = $2`,
            [run.org_id, run.sim_id, policy, flow, changed],
          );
          if (changed) await simEvent(q, run, 'info_change', { field: 'flowControlPolicy', from: sim.flow_control_policy, to: flow });
          return { outcome: 'done', result: { speedKbps: a.speedKbps } };
        });
        if (step === 'applied') await syncPolicies(this.db, this.network, { only: [{ orgId: run.org_id, simId: run.sim_id }] }).catch(() => 0);
        return step;
      }
      case 'tag':
        return this.inTx(run, i, async (q, sim) => {
          if (sim.tags.includes(a.tag!)) return { outcome: 'done', result: { already: true } };
          if (sim.tags.length >= 10) return { outcome: 'failed', reason: 'tagsFull' };
          await q.query('UPDATE sims SET tags = array_append(tags, $3), updated_at = now() WHERE org_id = $1 AND id = $2', [run.org_id, run.sim_id, a.tag]);
          await simEvent(q, run, 'tag_change', { from: sim.tags, to: [...sim.tags, a.tag] });
          return { outcome: 'done', result: { tag: a.tag } };
        });
      case 'sms':
        return this.sms(run, i, a);
      case 'email':
        return this.email(run, rule, i, a);
      case 'webhook':
        // Queued by the engine with the run (a rule_fired event); kept for runs written before that.
        return { outcome: 'done' };
    }
  }

  /** A database action: the SIM locked, the change and its outcome written together under the claim. */
  private async inTx(run: ClaimedRun, i: number, fn: (q: Queryable, sim: HeldSim) => Promise<Step>): Promise<Step | 'applied'> {
    return this.db.tx(async (q) => {
      const sim = (
        await q.query<HeldSim>(
          'SELECT status, tags, flow_control_policy, overage_control, coverage_barred, pool_stopped, rule_control FROM sims WHERE org_id = $1 AND id = $2 FOR UPDATE',
          [run.org_id, run.sim_id],
        )
      ).rows[0];
      if (!sim) return { outcome: 'failed', reason: 'simNotFound' } as Step;
      const step = await fn(q, sim);
      if (step.outcome !== 'done') return step;
      run.actions[i] = { ...run.actions[i], outcome: 'done', result: step.result, at: new Date().toISOString() };
      await this.save(q, run, run.actions);
      return 'applied' as const;
    });
  }

  /** Suspend or resume: asked of the network, then written (source autoflow) with the outcome in one transaction. */
  private async lifecycle(run: ClaimedRun, i: number, a: ActionState, action: 'suspend' | 'resume'): Promise<Step | 'applied'> {
    const target = action === 'suspend' ? 'paused' : 'active';
    const first = await lockFacts(this.db, run);
    if (!first) return { outcome: 'failed', reason: 'simNotFound' };
    // Already so (e.g. this action's change committed before a runner stopped): nothing to apply twice.
    if (first.status === target) return this.markDone(run, i, { already: true });
    const d = decide(first, action);
    if (!d.ok) return d.refusal === 'requestInProgress' ? { outcome: 'retry', reason: d.refusal } : { outcome: 'failed', reason: d.refusal };
    const ref: SimRef = { orgId: run.org_id, simId: run.sim_id!, iccid: run.iccid!, imsi: first.imsi, msisdn: first.msisdn };
    let ok = false;
    try {
      ok = (await this.network[action]([ref])).some((x) => x.iccid === run.iccid && x.ok);
    } catch (err) {
      this.log.warn({ err, run: run.id, action }, 'network refused an autoflow action');
    }
    if (!ok) return { outcome: 'retry', reason: 'network' };
    return this.db.tx(async (q) => {
      const sim = await lockFacts(q, run);
      if (!sim) return { outcome: 'failed', reason: 'simNotFound' } as Step;
      let result: Record<string, unknown> = { already: true };
      if (sim.status !== target) {
        const again = decide(sim, action);
        if (!again.ok)
          return (again.refusal === 'requestInProgress' ? { outcome: 'retry', reason: again.refusal } : { outcome: 'failed', reason: again.refusal }) as Step;
        await q.query('UPDATE sims SET status = $3, sub_status = $4, updated_at = now() WHERE org_id = $1 AND id = $2', [
          run.org_id,
          run.sim_id,
          again.status,
          again.subStatus,
        ]);
        await simEvent(q, run, 'status_change', { action, fromSub: sim.subStatus, toSub: again.subStatus }, { from: sim.status, to: again.status });
        await audit(q, null, {
          accountId: null,
          orgId: run.org_id,
          action,
          entity: 'sim',
          entityId: run.iccid,
          before: { status: sim.status, subStatus: sim.subStatus },
          after: { status: again.status, subStatus: again.subStatus, source: 'autoflow', ruleId: run.rule_id },
        });
        result = { from: sim.status, to: again.status };
      }
      run.actions[i] = { ...a, outcome: 'done', result, at: new Date().toISOString() };
      await this.save(q, run, run.actions);
      return 'applied' as const;
    });
  }

  private async markDone(run: ClaimedRun, i: number, result: Record<string, unknown>): Promise<'applied'> {
    run.actions[i] = { ...run.actions[i], outcome: 'done', result, at: new Date().toISOString() };
    await this.save(this.db, run, run.actions);
    return 'applied';
  }

  /** Mark the action "sending" (committed) before it leaves: a later job finding it so does not send it again. */
  private async sending(run: ClaimedRun, i: number, a: ActionState): Promise<boolean> {
    if (a.outcome === 'sending') return false;
    run.actions[i] = { ...a, outcome: 'sending', at: new Date().toISOString() };
    await this.save(this.db, run, run.actions);
    return true;
  }

  private async sms(run: ClaimedRun, i: number, a: ActionState): Promise<Step> {
    if (!(await this.sending(run, i, a))) return { outcome: 'failed', reason: 'interrupted' };
    let r;
    try {
      r = (await sendSmsBatch(this.db, this.network, { orgId: run.org_id, accountId: null, iccids: [run.iccid!], content: a.text!, smsType: 'text' }))
        .results[0];
    } catch (err) {
      this.log.warn({ err, run: run.id }, 'autoflow SMS failed');
      return { outcome: 'failed', reason: (err as { statusCode?: number }).statusCode === 400 ? 'content' : 'error' };
    }
    if (r.ok) return { outcome: 'done', result: { smsId: r.smsId } };
    // The network refused it at hand-off: nothing was sent and its quota unit was given back; try again.
    if (r.reason === 'network') return { outcome: 'retry', reason: 'network' };
    return { outcome: 'failed', reason: r.reason ?? 'error' };
  }

  private async email(run: ClaimedRun, rule: { name: string; created_by: string | null }, i: number, a: ActionState): Promise<Step | 'applied'> {
    if (!(await this.sending(run, i, a))) return { outcome: 'failed', reason: 'interrupted' };
    // In the creator's language (the organisation's default when the creator is gone).
    const lang = ((await this.db.query<{ locale: Language }>('SELECT locale FROM accounts WHERE id = $1', [rule.created_by])).rows[0]?.locale ??
      'en-US') as Language;
    const at = new Date(run.at).toISOString().replace('T', ' ').slice(0, 19);
    const params = { rule: rule.name, iccid: run.iccid, at, trigger: translate(lang, `mail.autoflowTrigger.${run.trigger}`) };
    return this.db.tx(async (q) => {
      for (const to of a.emails ?? []) {
        await this.mailer.send(
          { to, kind: 'notice', subject: translate(lang, 'mail.autoflowSubject', params), text: translate(lang, 'mail.autoflowBody', params) },
          q,
        );
      }
      run.actions[i] = { ...run.actions[i], outcome: 'done', result: { sent: (a.emails ?? []).length }, at: new Date().toISOString() };
      await this.save(q, run, run.actions);
      return 'applied' as const;
    });
  }

  /** Write the actions' outcomes, if this runner still holds the run. */
  private async save(q: Queryable, run: ClaimedRun, actions: ActionState[]): Promise<void> {
    const r = await q.query('UPDATE autoflow_runs SET actions = $3::jsonb WHERE id = $1::bigint AND claimed_by = $2 AND ended_at IS NULL', [
      run.id,
      this.id,
      JSON.stringify(actions),
    ]);
    if (r.rowCount !== 1) throw new LeaseLost();
  }

  /** Every action finished: the run's outcome (failed if one failed, skipped if stopped), the claim let go. */
  private async end(q: Queryable, run: ClaimedRun, actions: ActionState[]): Promise<void> {
    const status = actions.some((a) => a.outcome === 'failed') ? 'failed' : actions.some((a) => a.outcome === 'skipped') ? 'skipped' : 'success';
    const r = await q.query(
      `UPDATE autoflow_runs SET actions = $3::jsonb, status = $4, ended_at = now(), next_at = NULL, claimed_by = NULL, lease_until = NULL
        WHERE id = $1::bigint AND claimed_by = $2 AND ended_at IS NULL`,
      [run.id, this.id, JSON.stringify(actions), status],
    );
    if (r.rowCount !== 1) throw new LeaseLost();
  }

  /** Give the run back, due again in laterMs. */
  private async release(run: ClaimedRun, laterMs: number): Promise<void> {
    await this.db.query(
      `UPDATE autoflow_runs SET claimed_by = NULL, lease_until = NULL, next_at = now() + make_interval(secs => $3)
        WHERE id = $1::bigint AND claimed_by = $2 AND ended_at IS NULL`,
      [run.id, this.id, Math.max(0, laterMs) / 1000],
    );
  }
}

interface LockedSim extends SimFacts {
  imsi: string | null;
  msisdn: string | null;
}

/** The lifecycle facts of the run's SIM, locked (as the console's SIM actions read them). */
async function lockFacts(q: Queryable, run: ClaimedRun): Promise<LockedSim | undefined> {
  await q.query('SELECT id FROM sims WHERE org_id = $1 AND id = $2 FOR UPDATE', [run.org_id, run.sim_id]);
  return (
    await q.query<LockedSim>(
      `SELECT s.status, s.sub_status AS "subStatus", s.technology, s.imsi, s.msisdn,
              CASE WHEN s.operation_task_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM tasks t WHERE t.id = s.operation_task_id AND t.status = 'processing') THEN NULL
                   WHEN s.operation_task_id IS NULL AND s.operation_started_at < now() - interval '5 minutes' THEN NULL
                   ELSE s.operation END AS operation,
              (s.test_data_status = 'in_test') AS "inTestPeriod",
              EXISTS (SELECT 1 FROM bundle_orders b WHERE b.org_id = s.org_id AND b.sim_id = s.id AND b.status IN ('PENDING', 'IN_USE')) AS "hasAvailableBundle"
         FROM sims s WHERE s.org_id = $1 AND s.id = $2`,
      [run.org_id, run.sim_id],
    )
  ).rows[0];
}

/** A SIM event of the autoflow's own change (source autoflow: the matcher never fires on it). */
async function simEvent(
  q: Queryable,
  run: ClaimedRun,
  type: string,
  detail: Record<string, unknown>,
  status: { from?: string; to?: string } = {},
): Promise<void> {
  await q.query(
    `INSERT INTO sim_events (org_id, sim_id, iccid, type, from_status, to_status, detail, source) VALUES ($1, $2, $3, $4, $5, $6, $7, 'autoflow')`,
    [run.org_id, run.sim_id, run.iccid, type, status.from ?? null, status.to ?? null, JSON.stringify({ ...detail, ruleId: run.rule_id, runId: run.id })],
  );
}
