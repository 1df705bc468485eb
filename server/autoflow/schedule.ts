/**
 * The rule engine's scheduled side (issue 18): usage, SMS-count, expiry and no-connection triggers are conditions on a
 * SIM's state, not events, so a job evaluates them every few minutes over the rollups the network's writer keeps
 * (sims.cycle_usage_kb, usage_sim_hourly, usage_daily, bundle_orders.used_kb, sims.expires_at, sims.last_session_at),
 * never over CDRs. Each rule is one query: its condition and its scope in SQL, answered by the SIMs that meet it now,
 * each with a key (the cycle's start, the expiry date, the last session).
 *
 * Once per crossing: a SIM that meets the condition is "tripped" (autoflow_trips) until it no longer does (the value
 * fell back, the cycle reset, the SIM connected) or its key changes (a new cycle, a new expiry date). A run is written
 * only for a trip row this evaluation inserted; two instances evaluating at once meet at the row's primary key and one
 * of them inserts it (exactly once), and a lease keeps them from doing the work twice in the first place.
 * A usage threshold crossed is also an event of the log (usage.threshold_crossed).
 */
import type { FastifyBaseLogger } from 'fastify';
import { type RuleAction, type RuleScope, type RuleTrigger, type TriggerType } from '../../common/autoflow-rule.js';
import type { Db, Queryable } from '../db/db.js';
import { newId } from '../db/ids.js';
import { appendEvents } from '../events/event-log.js';
import { writeRuns, type ActiveRule, type Firing } from './engine.js';

/** The triggers evaluated on a schedule. */
export const SCHEDULED_TRIGGERS: readonly TriggerType[] = ['data_usage', 'data_usage_percent', 'sms_mo', 'sms_mt', 'expiry_reminder', 'no_connection'];
/** Usage triggers whose crossing is also an event of the log. */
const USAGE_TRIGGERS: ReadonlySet<string> = new Set(['data_usage', 'data_usage_percent', 'sms_mo', 'sms_mt']);
/** Minutes between two evaluations. */
export const SCHEDULE_MINUTES = 5;

const KB_PER: Record<string, number> = { KB: 1, MB: 1024, GB: 1024 * 1024 };
const epochMs = (col: string) => `coalesce((extract(epoch from ${col}) * 1000)::bigint::text, '')`;

interface Met {
  sim_id: string;
  iccid: string;
  key: string;
  value: string | number | null;
}

/** The SQL predicate of a rule's scope on sims s, its parameters appended to params. */
function scopeSql(scope: RuleScope, params: unknown[]): string {
  const p = (v: unknown) => {
    params.push(v);
    return `$${params.length}`;
  };
  switch (scope.type) {
    case 'all':
      return 'true';
    case 'iccids':
      return `s.iccid = ANY(${p(scope.iccids ?? [])}::text[])`;
    case 'file':
      return `s.iccid IN (SELECT unnest(items) FROM autoflow_scope_files WHERE token = ${p(scope.fileToken ?? '')})`;
    case 'tags':
      return `s.tags && ${p(scope.tags ?? [])}::text[]`;
    case 'product_type':
      return `s.product_type = ${p(scope.productType ?? '')}`;
    case 'pool':
      return `s.pool_id = ${p(scope.poolId ?? '')}`;
  }
}

/** The SIMs of the rule's scope meeting its condition at `now`, with their keys. */
async function meeting(q: Queryable, rule: ActiveRule, now: Date): Promise<Met[]> {
  const t = rule.trigger;
  const params: unknown[] = [rule.orgId, now.toISOString()];
  const scope = scopeSql(rule.scope, params);
  const add = (v: unknown) => {
    params.push(v);
    return `$${params.length}`;
  };
  let sql: string;
  switch (t.type) {
    case 'data_usage': {
      const kb = add((t.threshold ?? 0) * (KB_PER[t.unit ?? 'KB'] ?? 1));
      sql =
        t.window === 'rolling_24h'
          ? `SELECT s.id AS sim_id, s.iccid, '' AS key, u.v AS value
               FROM (SELECT sim_id, sum(volume_kb) AS v FROM usage_sim_hourly
                      WHERE org_id = $1 AND hour > $2::timestamptz - interval '24 hours' GROUP BY sim_id HAVING sum(volume_kb) >= ${kb}) u
               JOIN sims s ON s.org_id = $1 AND s.id = u.sim_id WHERE ${scope}`
          : `SELECT s.id AS sim_id, s.iccid, coalesce(s.cycle_start::text, '') AS key, s.cycle_usage_kb AS value
               FROM sims s WHERE s.org_id = $1 AND s.cycle_usage_kb >= ${kb} AND ${scope}`;
      break;
    }
    case 'data_usage_percent': {
      const pct = add(t.percent ?? 100);
      // The bundles in use for data; the cycle's start is the key (a new cycle re-arms).
      sql = `SELECT s.id AS sim_id, s.iccid, coalesce(s.cycle_start::text, '') AS key, round(b.pct, 1) AS value
               FROM (SELECT sim_id, 100.0 * sum(used_kb) / sum(quota_kb) AS pct FROM bundle_orders
                      WHERE org_id = $1 AND status = 'IN_USE' AND service_type <> 'sms' AND quota_kb > 0
                      GROUP BY sim_id HAVING 100 * sum(used_kb) >= ${pct} * sum(quota_kb)) b
               JOIN sims s ON s.org_id = $1 AND s.id = b.sim_id WHERE ${scope}`;
      break;
    }
    case 'sms_mo':
    case 'sms_mt': {
      const col = t.type === 'sms_mo' ? 'sms_mo' : 'sms_mt';
      const n = add(t.count ?? 1);
      // SMS are rolled up per SIM and UTC day: the cycle counts from its first day; "24 hours" are the UTC days the
      // last 24 hours touch (today and yesterday; docs/decisions.md).
      sql =
        t.window === 'rolling_24h'
          ? `SELECT s.id AS sim_id, s.iccid, '' AS key, d.v AS value
               FROM (SELECT sim_id, sum(${col}) AS v FROM usage_daily
                      WHERE org_id = $1 AND day >= ($2::timestamptz - interval '24 hours')::date AND day <= $2::timestamptz::date
                      GROUP BY sim_id HAVING sum(${col}) >= ${n}) d
               JOIN sims s ON s.org_id = $1 AND s.id = d.sim_id WHERE ${scope}`
          : `SELECT s.id AS sim_id, s.iccid, coalesce(s.cycle_start::text, '') AS key, sum(d.${col}) AS value
               FROM usage_daily d JOIN sims s ON s.org_id = $1 AND s.id = d.sim_id
              WHERE d.org_id = $1 AND d.day >= coalesce(s.cycle_start, date_trunc('month', $2::timestamptz)::date) AND d.day <= $2::timestamptz::date
                AND d.day >= ($2::timestamptz - interval '400 days')::date AND ${scope}
              GROUP BY s.id, s.iccid, s.cycle_start HAVING sum(d.${col}) >= ${n}`;
      break;
    }
    case 'expiry_reminder': {
      const days = add(t.days ?? 1);
      sql = `SELECT s.id AS sim_id, s.iccid, ${epochMs('s.expires_at')} AS key, ceil(extract(epoch from s.expires_at - $2::timestamptz) / 86400) AS value
               FROM sims s WHERE s.org_id = $1 AND s.expires_at > $2::timestamptz AND s.expires_at <= $2::timestamptz + make_interval(days => ${days})
                AND s.status IN ('pre_activated', 'active', 'paused') AND ${scope}`;
      break;
    }
    case 'no_connection': {
      const hours = add(t.hours ?? 1);
      // An active SIM not online whose last session began more than N hours ago; its next session re-arms it.
      sql = `SELECT s.id AS sim_id, s.iccid, ${epochMs('s.last_session_at')} AS key, floor(extract(epoch from $2::timestamptz - s.last_session_at) / 3600) AS value
               FROM sims s WHERE s.org_id = $1 AND s.status = 'active' AND s.connection_status <> 'online'
                AND s.last_session_at < $2::timestamptz - make_interval(hours => ${hours}) AND ${scope}`;
      break;
    }
    default:
      return [];
  }
  // Every query is given the time ($2); one that does not use it still names its type.
  if (!/\$2\b/.test(sql)) sql = `${sql} AND $2::timestamptz IS NOT NULL`;
  return (await q.query<Met>(sql, params)).rows;
}

/** The enabled rules in their active period with a scheduled trigger. */
async function scheduledRules(q: Queryable, now: Date): Promise<ActiveRule[]> {
  const r = await q.query<{ id: string; name: string; org_id: string; trigger: TriggerType; condition: Record<string, unknown>; scope: RuleScope; actions: RuleAction[] }>(
    `SELECT id, name, org_id, trigger, condition, scope, actions FROM autoflow_rules
      WHERE trigger = ANY($1::text[]) AND status = 'enabled'
        AND (activation_at IS NULL OR activation_at <= $2) AND (expiry_at IS NULL OR expiry_at > $2)
      ORDER BY org_id, id`,
    [SCHEDULED_TRIGGERS, now.toISOString()],
  );
  return r.rows.map((row) => ({ id: row.id, name: row.name, orgId: row.org_id, trigger: { type: row.trigger, ...row.condition } as RuleTrigger, scope: row.scope, actions: row.actions }));
}

/** Evaluate one rule in q's transaction: re-arm what no longer meets it, trip and fire what newly does. */
export async function evaluateRule(q: Queryable, rule: ActiveRule, now: Date): Promise<{ fired: number; rearmed: number }> {
  const met = await meeting(q, rule, now);
  const rearmed = await q.query(
    `DELETE FROM autoflow_trips t WHERE t.rule_id = $1
        AND NOT EXISTS (SELECT 1 FROM unnest($2::text[], $3::text[]) AS m(sim_id, key) WHERE m.sim_id = t.sim_id AND m.key = t.key)`,
    [rule.id, met.map((m) => m.sim_id), met.map((m) => m.key)],
  );
  if (!met.length) return { fired: 0, rearmed: rearmed.rowCount };
  const tripped = await q.query<{ sim_id: string }>(
    `INSERT INTO autoflow_trips (org_id, rule_id, sim_id, key, tripped_at)
     SELECT $1, $2, m.sim_id, m.key, $5 FROM unnest($3::text[], $4::text[]) AS m(sim_id, key)
     ON CONFLICT (rule_id, sim_id) DO NOTHING RETURNING sim_id`,
    [rule.orgId, rule.id, met.map((m) => m.sim_id), met.map((m) => m.key), now.toISOString()],
  );
  if (!tripped.rows.length) return { fired: 0, rearmed: rearmed.rowCount };
  const fresh = new Set(tripped.rows.map((r) => r.sim_id));
  const t = rule.trigger;
  const threshold = t.type === 'data_usage' ? { threshold: t.threshold, unit: t.unit, window: t.window, valueUnit: 'KB' } : t.type === 'data_usage_percent' ? { percent: t.percent } : t.type === 'sms_mo' || t.type === 'sms_mt' ? { count: t.count, window: t.window } : t.type === 'expiry_reminder' ? { days: t.days } : { hours: t.hours };
  const firings: Firing[] = met
    .filter((m) => fresh.has(m.sim_id))
    .map((m) => {
      const data = { iccid: m.iccid, value: m.value === null ? null : Number(m.value), ...threshold };
      return {
        rule,
        sim: { simId: m.sim_id, iccid: m.iccid },
        trigger: t.type,
        // A keyed crossing (a cycle, an expiry date, a last session) once per key; an unkeyed one (a rolling window)
        // once per trip.
        crossing: `${t.type}:${m.key || `t${now.getTime()}`}`.slice(0, 100),
        eventId: null,
        event: { type: 'autoflow', subtype: t.type, at: now, data },
        detail: { scheduled: { at: now.toISOString(), ...data } },
      };
    });
  const fired = await writeRuns(q, firings);
  if (USAGE_TRIGGERS.has(t.type)) {
    await appendEvents(q, firings.map((f) => ({ orgId: rule.orgId, type: 'usage', subtype: 'threshold_crossed', subject: f.sim.iccid, at: now, data: { ruleId: rule.id, trigger: t.type, ...(f.event.data as Record<string, unknown>) } })));
  }
  return { fired, rearmed: rearmed.rowCount };
}

/** One evaluation of every scheduled rule, each in its own transaction. Returns what it did. */
export async function evaluateScheduled(db: Db, now: Date): Promise<{ rules: number; fired: number; rearmed: number }> {
  const rules = await scheduledRules(db, now);
  let fired = 0;
  let rearmed = 0;
  for (const rule of rules) {
    const r = await db.tx((q) => evaluateRule(q, rule, now));
    fired += r.fired;
    rearmed += r.rearmed;
  }
  return { rules: rules.length, fired, rearmed };
}

const LEASE = 'scheduled';

/**
 * Take the evaluation's lease if it is free and an evaluation is due (none for everyMs): true when this instance is to
 * evaluate now. The lease lasts leaseSeconds; an instance that stopped mid-evaluation leaves it to run out.
 */
export async function claimSchedule(db: Db, owner: string, everyMs: number, leaseSeconds: number): Promise<boolean> {
  await db.query('INSERT INTO autoflow_schedule_lease (name) VALUES ($1) ON CONFLICT (name) DO NOTHING', [LEASE]);
  const r = await db.query(
    `UPDATE autoflow_schedule_lease SET owner = $2, lease_until = now() + make_interval(secs => $4)
      WHERE name = $1 AND (owner IS NULL OR lease_until < now())
        AND (last_run_at IS NULL OR last_run_at <= now() - make_interval(secs => $3)) RETURNING name`,
    [LEASE, owner, everyMs / 1000, leaseSeconds],
  );
  return r.rowCount === 1;
}

export async function finishSchedule(db: Db, owner: string): Promise<void> {
  await db.query('UPDATE autoflow_schedule_lease SET owner = NULL, lease_until = NULL, last_run_at = now() WHERE name = $1 AND owner = $2', [LEASE, owner]);
}

/** Run the evaluation on this instance whenever it is due and this instance holds the lease. Returns stop. */
export function startSchedule(db: Db, log: FastifyBaseLogger, opts: { everyMs?: number; pollMs?: number; clock?: () => Date; onFired?: () => void } = {}): () => Promise<void> {
  const owner = `${process.pid}-${newId(8)}`;
  const everyMs = opts.everyMs ?? SCHEDULE_MINUTES * 60_000;
  let running: Promise<void> | null = null;
  const tick = async () => {
    if (!(await claimSchedule(db, owner, everyMs, 600))) return;
    try {
      const r = await evaluateScheduled(db, opts.clock?.() ?? new Date());
      if (r.fired) {
        log.info(r, 'autoflow scheduled triggers fired');
        opts.onFired?.();
      }
    } finally {
      await finishSchedule(db, owner);
    }
  };
  const timer = setInterval(() => {
    if (running) return;
    running = tick()
      .catch((err) => log.error({ err }, 'autoflow scheduled evaluation failed'))
      .finally(() => (running = null));
  }, opts.pollMs ?? 30_000);
  timer.unref();
  return async () => {
    clearInterval(timer);
    await running;
  };
}
