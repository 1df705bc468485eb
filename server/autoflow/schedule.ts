/**
 * The rule engine's scheduled side: usage, SMS-count, expiry and no-connection triggers are conditions on a
 * SIM's state, not events, so a job evaluates them every few minutes over the rollups the network's writer keeps
 * (sims.cycle_usage_kb, usage_sim_hourly, usage_daily, bundle_orders.used_kb, sims.expires_at, sims.last_session_at),
 * never over CDRs. The rules are grouped by organisation and trigger kind (and window): one query per group reads the
 * measure once for the organisation's SIMs and joins it to the group's rules, each with its threshold and its scope as a
 * set (typed or uploaded ICCIDs, tags, product type, pool), answered by the rule and SIM pairs that meet it now, each
 * with a key (the cycle's start, the expiry date, the last session).
 *
 * Once per crossing: a SIM that meets the condition is "tripped" (autoflow_trips) until it no longer does (the value
 * fell back, the cycle reset, the SIM connected) or its key changes (a new cycle, a new expiry date). A run is written
 * only for a trip row this evaluation inserted; two instances evaluating at once meet at the row's primary key and one
 * of them inserts it (exactly once), and a lease keeps them from doing the work twice in the first place.
 * A usage threshold crossed is also an event of the log (usage.threshold_crossed).
 */
import type { FastifyBaseLogger } from 'fastify';
import { type RuleTrigger, type TriggerType } from '../../common/autoflow-rule.js';
import type { Db, Queryable } from '../db/db.js';
import { newId } from '../db/ids.js';
import { appendEvents } from '../events/event-log.js';
import { writeRuns, type Firing } from './engine.js';
import { ACTIVE_RULE_COLUMNS, activeRuleOf, actsAt, type ActiveRule, type ActiveRuleRow } from './rule-repo.js';
import { endedBefore } from '../job/hand-back.js';

/** The triggers evaluated on a schedule. */
export const SCHEDULED_TRIGGERS: readonly TriggerType[] = ['data_usage', 'data_usage_percent', 'sms_mo', 'sms_mt', 'expiry_reminder', 'no_connection'];
/** Usage triggers whose crossing is also an event of the log. */
const USAGE_TRIGGERS: ReadonlySet<string> = new Set(['data_usage', 'data_usage_percent', 'sms_mo', 'sms_mt']);
/** Minutes between two evaluations. */
export const SCHEDULE_MINUTES = 5;

const KB_PER: Record<string, number> = { KB: 1, MB: 1024, GB: 1024 * 1024 };
const epochMs = (col: string) => `coalesce((extract(epoch from ${col}) * 1000)::bigint::text, '')`;

interface Met {
  rule_id: string;
  sim_id: string;
  iccid: string;
  key: string;
  value: string | number | null;
}

/**
 * What one trigger kind measures per SIM: `v` selects the SIMs of the organisation ($1) that may meet the least demanding
 * rule of the group ($4) at the time ($2), with their scope facts (tags, product_type, pool_id), key, value and measures
 * a and b; `cond` says whether the measure meets one rule r (r.n: the rule's threshold in the measure's unit).
 */
interface Measure {
  v: string;
  cond: string;
  /** The group's bound: the least demanding rule's n (smallest for "at least" triggers, largest for expiry). */
  bound: 'min' | 'max';
}
const SIM_COLS = 's.id AS sim_id, s.iccid, s.tags, s.product_type, s.pool_id';

function measureOf(type: TriggerType, window: string): Measure | null {
  switch (type) {
    case 'data_usage':
      return window === 'rolling_24h'
        ? {
            v: `SELECT ${SIM_COLS}, '' AS key, u.v AS value, u.v AS a, 0 AS b
                  FROM (SELECT sim_id, sum(volume_kb) AS v FROM usage_sim_hourly
                         WHERE org_id = $1 AND hour > $2::timestamptz - interval '24 hours' GROUP BY sim_id HAVING sum(volume_kb) >= $4::bigint) u
                  JOIN sims s ON s.org_id = $1 AND s.id = u.sim_id`,
            cond: 'v.a >= r.n',
            bound: 'min',
          }
        : {
            v: `SELECT ${SIM_COLS}, coalesce(s.cycle_start::text, '') AS key, s.cycle_usage_kb AS value, s.cycle_usage_kb AS a, 0 AS b
                  FROM sims s WHERE s.org_id = $1 AND s.cycle_usage_kb >= $4::bigint`,
            cond: 'v.a >= r.n',
            bound: 'min',
          };
    case 'data_usage_percent':
      // The bundles in use for data; the cycle's start is the key (a new cycle re-arms). Compared as 100 × used ≥ n × quota.
      return {
        v: `SELECT ${SIM_COLS}, coalesce(s.cycle_start::text, '') AS key, round(100.0 * b.used / b.quota, 1) AS value, b.used AS a, b.quota AS b
              FROM (SELECT sim_id, sum(used_kb) AS used, sum(quota_kb) AS quota FROM bundle_orders
                     WHERE org_id = $1 AND status = 'IN_USE' AND service_type <> 'sms' AND quota_kb > 0
                     GROUP BY sim_id HAVING 100 * sum(used_kb) >= $4::bigint * sum(quota_kb)) b
              JOIN sims s ON s.org_id = $1 AND s.id = b.sim_id`,
        cond: '100 * v.a >= r.n * v.b',
        bound: 'min',
      };
    case 'sms_mo':
    case 'sms_mt': {
      const col = type === 'sms_mo' ? 'sms_mo' : 'sms_mt';
      // SMS are rolled up per SIM and UTC day: the cycle counts from its first day; "24 hours" are the UTC days the
      // last 24 hours touch (today and yesterday; docs/decisions.md).
      return window === 'rolling_24h'
        ? {
            v: `SELECT ${SIM_COLS}, '' AS key, d.v AS value, d.v AS a, 0 AS b
                  FROM (SELECT sim_id, sum(${col}) AS v FROM usage_daily
                         WHERE org_id = $1 AND day >= ($2::timestamptz - interval '24 hours')::date AND day <= $2::timestamptz::date
                         GROUP BY sim_id HAVING sum(${col}) >= $4::bigint) d
                  JOIN sims s ON s.org_id = $1 AND s.id = d.sim_id`,
            cond: 'v.a >= r.n',
            bound: 'min',
          }
        : {
            v: `SELECT ${SIM_COLS}, coalesce(s.cycle_start::text, '') AS key, sum(d.${col}) AS value, sum(d.${col}) AS a, 0 AS b
                  FROM usage_daily d JOIN sims s ON s.org_id = $1 AND s.id = d.sim_id
                 WHERE d.org_id = $1 AND d.day >= coalesce(s.cycle_start, date_trunc('month', $2::timestamptz)::date) AND d.day <= $2::timestamptz::date
                   AND d.day >= ($2::timestamptz - interval '400 days')::date
                 GROUP BY s.id HAVING sum(d.${col}) >= $4::bigint`,
            cond: 'v.a >= r.n',
            bound: 'min',
          };
    }
    case 'expiry_reminder':
      // a: seconds left; a rule of n days meets an expiry within n days.
      return {
        v: `SELECT ${SIM_COLS}, ${epochMs('s.expires_at')} AS key, ceil(extract(epoch from s.expires_at - $2::timestamptz) / 86400) AS value,
                   extract(epoch from s.expires_at - $2::timestamptz) AS a, 0 AS b
              FROM sims s WHERE s.org_id = $1 AND s.expires_at > $2::timestamptz AND s.expires_at <= $2::timestamptz + make_interval(days => $4::int)
               AND s.status IN ('pre_activated', 'active', 'paused')`,
        cond: 'v.a <= r.n * 86400',
        bound: 'max',
      };
    case 'no_connection':
      // An active SIM not online whose last session began more than N hours ago; its next session re-arms it.
      return {
        v: `SELECT ${SIM_COLS}, ${epochMs('s.last_session_at')} AS key, floor(extract(epoch from $2::timestamptz - s.last_session_at) / 3600) AS value,
                   extract(epoch from $2::timestamptz - s.last_session_at) AS a, 0 AS b
              FROM sims s WHERE s.org_id = $1 AND s.status = 'active' AND s.connection_status <> 'online'
               AND s.last_session_at < $2::timestamptz - make_interval(hours => $4::int)`,
        cond: 'v.a > r.n * 3600',
        bound: 'min',
      };
    default:
      return null;
  }
}

/** A rule's threshold in its measure's unit (KB for data, a percentage, a count, days, hours). */
function thresholdOf(t: RuleTrigger): number {
  switch (t.type) {
    case 'data_usage':
      return (t.threshold ?? 0) * (KB_PER[t.unit ?? 'KB'] ?? 1);
    case 'data_usage_percent':
      return t.percent ?? 100;
    case 'sms_mo':
    case 'sms_mt':
      return t.count ?? 1;
    case 'expiry_reminder':
      return t.days ?? 1;
    default:
      return t.hours ?? 1;
  }
}

/**
 * The SIMs meeting each rule of one group (one organisation, one trigger kind and window) at `now`: one query for the
 * group. The measure is read once for the organisation's SIMs; scope membership is a join on a set (typed or uploaded
 * ICCIDs, tags, product type, pool), never a scan per rule.
 */
async function meetingGroup(q: Queryable, orgId: string, rules: ActiveRule[], now: Date): Promise<Met[]> {
  const t = rules[0].trigger;
  const m = measureOf(t.type, t.window ?? 'cycle');
  if (!m) return [];
  const rs = rules.map((r) => ({
    id: r.id,
    n: thresholdOf(r.trigger),
    st: r.scope.type,
    iccids: r.scope.type === 'iccids' ? (r.scope.iccids ?? []) : [],
    tags: r.scope.type === 'tags' ? (r.scope.tags ?? []) : [],
    product_type: r.scope.type === 'product_type' ? (r.scope.productType ?? '') : null,
    pool_id: r.scope.type === 'pool' ? (r.scope.poolId ?? '') : null,
    file_token: r.scope.type === 'file' ? (r.scope.fileToken ?? '') : null,
  }));
  const bound = m.bound === 'min' ? Math.min(...rs.map((r) => r.n)) : Math.max(...rs.map((r) => r.n));
  const cols = 'r.id AS rule_id, v.sim_id, v.iccid, v.key, v.value';
  const sql = `
    WITH r AS (SELECT * FROM jsonb_to_recordset($3::jsonb)
                 AS r(id text, n numeric, st text, iccids text[], tags text[], product_type text, pool_id text, file_token text)
                WHERE $2::timestamptz IS NOT NULL),
         v AS MATERIALIZED (${m.v})
    SELECT ${cols} FROM r JOIN v ON r.st = 'all' AND ${m.cond}
    UNION ALL
    SELECT ${cols} FROM r CROSS JOIN LATERAL unnest(r.iccids) AS i(iccid) JOIN v ON v.iccid = i.iccid
     WHERE r.st = 'iccids' AND ${m.cond}
    UNION ALL
    SELECT ${cols} FROM r JOIN autoflow_scope_files f ON r.st = 'file' AND f.token = r.file_token
      CROSS JOIN LATERAL unnest(f.items) AS i(iccid) JOIN v ON v.iccid = i.iccid
     WHERE ${m.cond}
    UNION ALL
    SELECT DISTINCT ${cols} FROM (SELECT r.*, g.tag FROM r CROSS JOIN LATERAL unnest(r.tags) AS g(tag) WHERE r.st = 'tags') r
      JOIN (SELECT v.*, vt.tag FROM v CROSS JOIN LATERAL unnest(v.tags) AS vt(tag)) v ON v.tag = r.tag
     WHERE ${m.cond}
    UNION ALL
    SELECT ${cols} FROM r JOIN v ON r.st = 'product_type' AND v.product_type = r.product_type AND ${m.cond}
    UNION ALL
    SELECT ${cols} FROM r JOIN v ON r.st = 'pool' AND v.pool_id = r.pool_id AND ${m.cond}`;
  return (await q.query<Met>(sql, [orgId, now.toISOString(), JSON.stringify(rs), bound])).rows;
}

/**
 * How many SIMs a rule would act on if it were evaluated now: the SIMs of its scope meeting its condition, by the very
 * query an evaluation runs (meetingGroup, a group of one), read only (nothing tripped, nothing written). Null for a
 * trigger that is not evaluated on a schedule (an event fires it, so nothing meets it "now").
 */
export async function simsMeetingNow(q: Queryable, rule: Pick<ActiveRule, 'orgId' | 'trigger' | 'scope'>, now: Date): Promise<number | null> {
  if (!SCHEDULED_TRIGGERS.includes(rule.trigger.type)) return null;
  const met = await meetingGroup(q, rule.orgId, [{ id: 'preview', name: '', actions: [], ...rule }], now);
  return new Set(met.map((m) => m.sim_id)).size;
}

/** The enabled rules in their active period with a scheduled trigger. */
export async function scheduledRules(q: Queryable, now: Date): Promise<ActiveRule[]> {
  const r = await q.query<ActiveRuleRow>(
    `SELECT ${ACTIVE_RULE_COLUMNS} FROM autoflow_rules WHERE trigger = ANY($1::text[]) AND ${actsAt('$2')} ORDER BY org_id, id`,
    [SCHEDULED_TRIGGERS, now.toISOString()],
  );
  return r.rows.map(activeRuleOf);
}

/** What a firing of this trigger says about its condition. */
function conditionOf(t: RuleTrigger): Record<string, unknown> {
  switch (t.type) {
    case 'data_usage':
      return { threshold: t.threshold, unit: t.unit, window: t.window, valueUnit: 'KB' };
    case 'data_usage_percent':
      return { percent: t.percent };
    case 'sms_mo':
    case 'sms_mt':
      return { count: t.count, window: t.window };
    case 'expiry_reminder':
      return { days: t.days };
    default:
      return { hours: t.hours };
  }
}

/** Trip the rule and SIM pairs that meet their rule: the pairs this call inserted (a pair already tripped is not). */
async function trip(q: Queryable, orgId: string, met: Met[], now: Date): Promise<Array<{ rule_id: string; sim_id: string }>> {
  if (!met.length) return [];
  const r = await q.query<{ rule_id: string; sim_id: string }>(
    `INSERT INTO autoflow_trips (org_id, rule_id, sim_id, key, tripped_at)
     SELECT $1, m.rule_id, m.sim_id, m.key, $5 FROM unnest($2::text[], $3::text[], $4::text[]) AS m(rule_id, sim_id, key)
     ON CONFLICT (rule_id, sim_id) DO NOTHING RETURNING rule_id, sim_id`,
    [orgId, met.map((m) => m.rule_id), met.map((m) => m.sim_id), met.map((m) => m.key), now.toISOString()],
  );
  return r.rows;
}

/**
 * Evaluate one group of rules (one organisation, one trigger kind and window) in q's transaction: re-arm what no longer
 * meets its rule, trip and fire what newly does.
 */
export async function evaluateGroup(q: Queryable, orgId: string, rules: ActiveRule[], now: Date): Promise<{ fired: number; rearmed: number }> {
  if (!rules.length) return { fired: 0, rearmed: 0 };
  const met = await meetingGroup(q, orgId, rules, now);
  const rearmed = await q.query(
    `DELETE FROM autoflow_trips t WHERE t.rule_id = ANY($1::text[])
        AND NOT EXISTS (SELECT 1 FROM unnest($2::text[], $3::text[], $4::text[]) AS m(rule_id, sim_id, key)
                         WHERE m.rule_id = t.rule_id AND m.sim_id = t.sim_id AND m.key = t.key)`,
    [rules.map((r) => r.id), met.map((m) => m.rule_id), met.map((m) => m.sim_id), met.map((m) => m.key)],
  );
  if (!met.length) return { fired: 0, rearmed: rearmed.rowCount };
  const tripped = await trip(q, orgId, met, now);
  if (!tripped.length) return { fired: 0, rearmed: rearmed.rowCount };
  const fresh = new Set(tripped.map((r) => `${r.rule_id}|${r.sim_id}`));
  const byId = new Map(rules.map((r) => [r.id, r]));
  const firings: Firing[] = met
    .filter((m) => fresh.has(`${m.rule_id}|${m.sim_id}`))
    .map((m) => {
      const rule = byId.get(m.rule_id)!;
      const t = rule.trigger;
      const data = { iccid: m.iccid, value: m.value === null ? null : Number(m.value), ...conditionOf(t) };
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
  if (USAGE_TRIGGERS.has(rules[0].trigger.type)) {
    await appendEvents(
      q,
      firings.map((f) => ({
        orgId,
        type: 'usage',
        subtype: 'threshold_crossed',
        subject: f.sim.iccid,
        at: now,
        data: { ruleId: f.rule.id, trigger: f.rule.trigger.type, ...(f.event.data as Record<string, unknown>) },
      })),
    );
  }
  return { fired, rearmed: rearmed.rowCount };
}

/** Evaluate one rule (a group of one) in q's transaction. */
export async function evaluateRule(q: Queryable, rule: ActiveRule, now: Date): Promise<{ fired: number; rearmed: number }> {
  return evaluateGroup(q, rule.orgId, [rule], now);
}

/** The groups one query each evaluates: the rules of one organisation, trigger kind and window. */
export function groupRules(rules: ActiveRule[]): ActiveRule[][] {
  const groups = new Map<string, ActiveRule[]>();
  for (const r of rules) {
    const key = `${r.orgId}|${r.trigger.type}|${r.trigger.window ?? ''}`;
    const g = groups.get(key);
    if (g) g.push(r);
    else groups.set(key, [r]);
  }
  return [...groups.values()];
}

/** One evaluation of every scheduled rule, one query and one transaction per group. Returns what it did. */
export async function evaluateScheduled(db: Db, now: Date): Promise<{ rules: number; groups: number; fired: number; rearmed: number }> {
  const rules = await scheduledRules(db, now);
  const groups = groupRules(rules);
  let fired = 0;
  let rearmed = 0;
  for (const group of groups) {
    const r = await db.tx((q) => evaluateGroup(q, group[0].orgId, group, now));
    fired += r.fired;
    rearmed += r.rearmed;
  }
  return { rules: rules.length, groups: groups.length, fired, rearmed };
}

/**
 * Arm every scheduled rule as of `now` without firing it: the crossings met now are tripped (the same query and keys as
 * an evaluation), and no run, event or action is written. For rules whose earlier evaluations a database never saw (the
 * demo seed's rules have "run" for weeks: what they meet at seed time fired back then); a crossing after `now` fires as
 * usual. Runs in q's transaction; returns the rules looked at and the trips written.
 */
export async function armScheduled(q: Queryable, now: Date): Promise<{ rules: number; armed: number }> {
  const rules = await scheduledRules(q, now);
  let armed = 0;
  for (const group of groupRules(rules)) {
    armed += (await trip(q, group[0].orgId, await meetingGroup(q, group[0].orgId, group, now), now)).length;
  }
  return { rules: rules.length, armed };
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

/**
 * Run the evaluation on this instance whenever it is due and this instance holds the lease. Returns stop, which waits
 * for an evaluation in progress, or until `handBack` aborts (the evaluation's lease then runs out by itself).
 */
export function startSchedule(
  db: Db,
  log: FastifyBaseLogger,
  opts: { everyMs?: number; pollMs?: number; clock?: () => Date; onFired?: () => void } = {},
): (handBack?: AbortSignal) => Promise<void> {
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
  // Looked at often enough that an evaluation starts within a tenth of the interval of its time (at most every 30 s).
  const timer = setInterval(
    () => {
      if (running) return;
      running = tick()
        .catch((err) => log.error({ err }, 'autoflow scheduled evaluation failed'))
        .finally(() => (running = null));
    },
    opts.pollMs ?? Math.max(100, Math.min(30_000, Math.floor(everyMs / 10))),
  );
  timer.unref();
  return async (handBack) => {
    clearInterval(timer);
    await endedBefore(running, handBack);
  };
}
