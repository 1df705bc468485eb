/**
 * The rule engine's event side: the `autoflow` consumer of the event log. For each batch it loads the
 * enabled, active rules of the batch's organisations for the triggers its events can fire (indexed by organisation and
 * trigger type: an event meets only the rules that can fire on it), the facts of the events' SIMs, and the validated
 * lists the rules name; the matcher (matcher.ts) decides; each firing is a run-history row, unique per rule, SIM and
 * crossing, written in the transaction that moves the consumer's cursor, so a batch handed over again fires nothing
 * twice. The actions are recorded as pending, in order, and the run is due for the action runner (actions.ts).
 */
import type { TriggerType } from '../../common/autoflow-rule.js';
import type { Queryable } from '../db/db.js';
import { appendEvents, type DomainEvent } from '../events/event-log.js';
import { inScope, triggerFires, triggersOf, type SimFacts } from './matcher.js';
import { RULE_FIRED, ruleFiredData, type FiredEvent } from './webhook-body.js';
import { ACTIVE_RULE_COLUMNS, activeRuleOf, actsAt, type ActiveRule, type ActiveRuleRow } from './rule-repo.js';

/** The event log consumer's name. */
export const CONSUMER = 'autoflow';

/** A rule as the engine keeps it between batches: its typed ICCIDs as a set (scope membership is one lookup). */
interface CachedRule extends ActiveRule {
  iccids?: ReadonlySet<string>;
}

/**
 * Rules by id with the version (updated_at) they were read at. A batch reads only the ids and versions of the rules
 * that can fire on it and loads in full only those changed since (a rule of 1,000 typed ICCIDs is not parsed again for
 * every batch). Per process; a rule's every change moves its updated_at.
 */
const ruleCache = new Map<string, { version: string; rule: CachedRule }>();
/** Validated uploads by token: a token names one file's content for good (bound to its hash), so it never goes stale. */
const listCache = new Map<string, ReadonlySet<string>>();
const LIST_CACHE_MAX = 500;

/** The enabled rules in their active period for these organisations and triggers, by "org|trigger". */
async function rulesIndex(q: Queryable, orgIds: string[], triggers: TriggerType[]): Promise<Map<string, CachedRule[]>> {
  const heads = await q.query<{ id: string; v: string }>(
    `SELECT id, updated_at::text AS v FROM autoflow_rules WHERE org_id = ANY($1::text[]) AND trigger = ANY($2::text[]) AND ${actsAt('now()')}`,
    [orgIds, triggers],
  );
  const stale = heads.rows.filter((h) => ruleCache.get(h.id)?.version !== h.v).map((h) => h.id);
  if (stale.length) {
    const r = await q.query<ActiveRuleRow & { v: string }>(
      `SELECT ${ACTIVE_RULE_COLUMNS}, updated_at::text AS v FROM autoflow_rules WHERE id = ANY($1::text[])`,
      [stale],
    );
    for (const row of r.rows) {
      const rule: CachedRule = { ...activeRuleOf(row), iccids: row.scope.type === 'iccids' ? new Set(row.scope.iccids ?? []) : undefined };
      ruleCache.set(row.id, { version: row.v, rule });
    }
  }
  const index = new Map<string, CachedRule[]>();
  for (const h of heads.rows) {
    const rule = ruleCache.get(h.id)?.rule;
    if (!rule) continue;
    const key = `${rule.orgId}|${rule.trigger.type}`;
    const list = index.get(key);
    if (list) list.push(rule);
    else index.set(key, [rule]);
  }
  return index;
}

async function simFacts(q: Queryable, iccids: string[]): Promise<Map<string, SimFacts>> {
  const r = await q.query<{ org_id: string; id: string; iccid: string; tags: string[]; product_type: string; pool_id: string | null; imei: string | null }>(
    'SELECT org_id, id, iccid, tags, product_type, pool_id, imei FROM sims WHERE iccid = ANY($1::text[])',
    [iccids],
  );
  return new Map(
    r.rows.map((s) => [s.iccid, { orgId: s.org_id, simId: s.id, iccid: s.iccid, tags: s.tags, productType: s.product_type, poolId: s.pool_id, imei: s.imei }]),
  );
}

async function uploadedLists(q: Queryable, rules: ActiveRule[]): Promise<Map<string, ReadonlySet<string>>> {
  const tokens = [
    ...new Set(rules.flatMap((r) => [r.scope.type === 'file' ? r.scope.fileToken : undefined, r.trigger.imeiFileToken]).filter((t): t is string => !!t)),
  ];
  const missing = tokens.filter((t) => !listCache.has(t));
  if (missing.length) {
    const r = await q.query<{ token: string; items: string[] }>('SELECT token, items FROM autoflow_scope_files WHERE token = ANY($1::text[])', [missing]);
    if (listCache.size + r.rows.length > LIST_CACHE_MAX) listCache.clear();
    for (const f of r.rows) listCache.set(f.token, new Set(f.items));
  }
  return new Map(tokens.filter((t) => listCache.has(t)).map((t) => [t, listCache.get(t)!]));
}

/** The consumer's work for one batch: match, and write one run per firing (none twice). Returns the runs written. */
export async function matchEvents(events: DomainEvent[], q: Queryable): Promise<number> {
  const relevant = events.filter((e) => e.subject && triggersOf(e).length > 0);
  if (!relevant.length) return 0;
  const index = await rulesIndex(q, [...new Set(relevant.map((e) => e.orgId))], [...new Set(relevant.flatMap((e) => triggersOf(e)))]);
  if (!index.size) return 0;
  const sims = await simFacts(q, [...new Set(relevant.map((e) => e.subject!))]);
  const lists = await uploadedLists(q, [...index.values()].flat());
  const runs: Array<{ orgId: string; rule: ActiveRule; event: DomainEvent; sim: SimFacts; trigger: string; eventId: string; detail: unknown }> = [];
  for (const e of relevant) {
    const sim = sims.get(e.subject!);
    // A SIM transferred since the event belongs to another organisation now: its old rules no longer watch it.
    if (!sim || sim.orgId !== e.orgId) continue;
    for (const type of triggersOf(e)) {
      for (const rule of index.get(`${e.orgId}|${type}`) ?? []) {
        if (!inScope(rule.scope, sim, rule.scope.type === 'iccids' ? rule.iccids : rule.scope.fileToken ? lists.get(rule.scope.fileToken) : undefined))
          continue;
        const imeis = rule.trigger.imeiFileToken ? lists.get(rule.trigger.imeiFileToken) : rule.trigger.imeis ? new Set(rule.trigger.imeis) : undefined;
        if (!triggerFires(rule.trigger, e, sim, imeis)) continue;
        runs.push({
          orgId: e.orgId,
          rule,
          event: e,
          sim,
          trigger: type,
          eventId: e.id,
          detail: { event: { type: e.type, subtype: e.subtype, data: e.data, at: e.at.toISOString() } },
        });
      }
    }
  }
  return writeRuns(
    q,
    runs.map((x) => ({ rule: x.rule, sim: x.sim, trigger: x.trigger, crossing: `event:${x.eventId}`, eventId: x.eventId, event: x.event, detail: x.detail })),
  );
}

/** A firing to write: the rule, the SIM, the crossing that makes it unique, and what fired it. */
export interface Firing {
  rule: ActiveRule;
  sim: Pick<SimFacts, 'simId' | 'iccid'>;
  trigger: string;
  /** Unique per rule and SIM: `event:<id>` for an event, `<trigger>:<key>` for a scheduled crossing. */
  crossing: string;
  eventId: string | null;
  /** What the webhook's rule_fired carries as its event. */
  event: FiredEvent;
  detail: unknown;
}

/**
 * Write the runs of these firings (none twice: unique per rule, SIM and crossing), each due for the action runner
 * (actions.ts) at once, with a rule_fired event for the rules that notify the webhook and the rules' run counts.
 * Returns the runs written. Shared by the event consumer and the scheduled evaluation (schedule.ts).
 */
export async function writeRuns(q: Queryable, runs: Firing[]): Promise<number> {
  if (!runs.length) return 0;
  const written = await q.query<{ id: string; rule_id: string; iccid: string; crossing: string }>(
    `INSERT INTO autoflow_runs (org_id, rule_id, sim_id, iccid, trigger, crossing, event_id, detail, actions, status, next_at)
     SELECT o, r, s, i, t, c, e::bigint, d::jsonb, a::jsonb, 'pending', now()
       FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[]) AS x(o, r, s, i, t, c, e, d, a)
     ON CONFLICT (rule_id, iccid, crossing) WHERE crossing IS NOT NULL DO NOTHING
     RETURNING id::text, rule_id, iccid, crossing`,
    [
      runs.map((x) => x.rule.orgId),
      runs.map((x) => x.rule.id),
      runs.map((x) => x.sim.simId),
      runs.map((x) => x.sim.iccid),
      runs.map((x) => x.trigger),
      runs.map((x) => x.crossing),
      runs.map((x) => x.eventId),
      runs.map((x) => JSON.stringify(x.detail)),
      // The webhook is notified through the event log in this transaction (below): queued with the run.
      runs.map((x) => JSON.stringify(x.rule.actions.map((a) => ({ ...a, outcome: a.type === 'webhook' ? 'queued' : 'pending' })))),
    ],
  );
  // Runs written now (not a crossing seen before) whose rule notifies the webhook: a rule_fired event each.
  const byKey = new Map(runs.map((x) => [`${x.rule.id}|${x.sim.iccid}|${x.crossing}`, x]));
  const notify = written.rows
    .map((w) => ({ w, run: byKey.get(`${w.rule_id}|${w.iccid}|${w.crossing}`)! }))
    .filter(({ run }) => run && run.rule.actions.some((a) => a.type === 'webhook'));
  await appendEvents(
    q,
    notify.map(({ w, run }) => ({
      orgId: run.rule.orgId,
      ...RULE_FIRED,
      subject: run.sim.iccid,
      data: ruleFiredData(run.rule, run.sim.iccid, run.event, w.id),
    })),
  );
  const perRule = new Map<string, number>();
  for (const w of written.rows) perRule.set(w.rule_id, (perRule.get(w.rule_id) ?? 0) + 1);
  if (perRule.size) {
    await q.query(
      `UPDATE autoflow_rules r SET run_count = r.run_count + x.n, last_run_at = now()
         FROM unnest($1::text[], $2::int[]) AS x(id, n) WHERE r.id = x.id`,
      [[...perRule.keys()], [...perRule.values()]],
    );
  }
  return written.rows.length;
}

/** The consumer's handler (startConsumer's `handle`). */
export const handleEvents = async (events: DomainEvent[], q: Queryable): Promise<void> => {
  await matchEvents(events, q);
};
