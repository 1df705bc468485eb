/**
 * The rule engine's event side (issue 18): the `autoflow` consumer of the event log. For each batch it loads the
 * enabled, active rules of the batch's organisations for the triggers its events can fire (indexed by organisation and
 * trigger type: an event meets only the rules that can fire on it), the facts of the events' SIMs, and the validated
 * lists the rules name; the matcher (matcher.ts) decides; each firing is a run-history row, unique per rule, SIM and
 * crossing, written in the transaction that moves the consumer's cursor, so a batch handed over again fires nothing
 * twice. The actions are recorded as pending, in order; running them (as jobs with retries) comes next.
 */
import type { RuleAction, RuleScope, RuleTrigger, TriggerType } from '../../common/autoflow-rule.js';
import type { Queryable } from '../db/db.js';
import { appendEvents, type DomainEvent } from '../events/event-log.js';
import { inScope, triggerFires, triggersOf, type SimFacts } from './matcher.js';
import { RULE_FIRED, ruleFiredData } from './webhook-body.js';

/** The event log consumer's name. */
export const CONSUMER = 'autoflow';

interface ActiveRule {
  id: string;
  name: string;
  orgId: string;
  trigger: RuleTrigger;
  scope: RuleScope;
  actions: RuleAction[];
}

/** The enabled rules in their active period for these organisations and triggers, by "org|trigger". */
async function rulesIndex(q: Queryable, orgIds: string[], triggers: TriggerType[]): Promise<Map<string, ActiveRule[]>> {
  const r = await q.query<{ id: string; name: string; org_id: string; trigger: TriggerType; condition: Record<string, unknown>; scope: RuleScope; actions: RuleAction[] }>(
    `SELECT id, name, org_id, trigger, condition, scope, actions FROM autoflow_rules
      WHERE org_id = ANY($1::text[]) AND trigger = ANY($2::text[]) AND status = 'enabled'
        AND (activation_at IS NULL OR activation_at <= now()) AND (expiry_at IS NULL OR expiry_at > now())`,
    [orgIds, triggers],
  );
  const index = new Map<string, ActiveRule[]>();
  for (const row of r.rows) {
    const key = `${row.org_id}|${row.trigger}`;
    const rule: ActiveRule = { id: row.id, name: row.name, orgId: row.org_id, trigger: { type: row.trigger, ...row.condition } as RuleTrigger, scope: row.scope, actions: row.actions };
    index.set(key, [...(index.get(key) ?? []), rule]);
  }
  return index;
}

async function simFacts(q: Queryable, iccids: string[]): Promise<Map<string, SimFacts>> {
  const r = await q.query<{ org_id: string; id: string; iccid: string; tags: string[]; product_type: string; pool_id: string | null; imei: string | null }>(
    'SELECT org_id, id, iccid, tags, product_type, pool_id, imei FROM sims WHERE iccid = ANY($1::text[])',
    [iccids],
  );
  return new Map(r.rows.map((s) => [s.iccid, { orgId: s.org_id, simId: s.id, iccid: s.iccid, tags: s.tags, productType: s.product_type, poolId: s.pool_id, imei: s.imei }]));
}

async function uploadedLists(q: Queryable, rules: ActiveRule[]): Promise<Map<string, Set<string>>> {
  const tokens = [...new Set(rules.flatMap((r) => [r.scope.type === 'file' ? r.scope.fileToken : undefined, r.trigger.imeiFileToken]).filter((t): t is string => !!t))];
  if (!tokens.length) return new Map();
  const r = await q.query<{ token: string; items: string[] }>('SELECT token, items FROM autoflow_scope_files WHERE token = ANY($1::text[])', [tokens]);
  return new Map(r.rows.map((f) => [f.token, new Set(f.items)]));
}

/** The consumer's work for one batch: match, and write one run per firing (none twice). Returns the runs written. */
export async function matchEvents(events: DomainEvent[], q: Queryable): Promise<number> {
  const relevant = events.filter((e) => e.subject && triggersOf(e).length > 0);
  if (!relevant.length) return 0;
  const index = await rulesIndex(q, [...new Set(relevant.map((e) => e.orgId))], [...new Set(relevant.flatMap((e) => triggersOf(e)))]);
  if (!index.size) return 0;
  const sims = await simFacts(q, [...new Set(relevant.map((e) => e.subject!))]);
  const lists = await uploadedLists(q, [...index.values()].flat());
  const runs: Array<{ orgId: string; rule: ActiveRule; event: DomainEvent; sim: SimFacts; trigger: string; eventId: string; detail: unknown; actions: unknown }> = [];
  for (const e of relevant) {
    const sim = sims.get(e.subject!);
    // A SIM transferred since the event belongs to another organisation now: its old rules no longer watch it.
    if (!sim || sim.orgId !== e.orgId) continue;
    for (const type of triggersOf(e)) {
      for (const rule of index.get(`${e.orgId}|${type}`) ?? []) {
        if (!inScope(rule.scope, sim, rule.scope.fileToken ? lists.get(rule.scope.fileToken) : undefined)) continue;
        const imeis = rule.trigger.imeiFileToken ? lists.get(rule.trigger.imeiFileToken) : rule.trigger.imeis ? new Set(rule.trigger.imeis) : undefined;
        if (!triggerFires(rule.trigger, e, sim, imeis)) continue;
        runs.push({
          orgId: e.orgId, rule, event: e, sim, trigger: type, eventId: e.id,
          detail: { event: { type: e.type, subtype: e.subtype, data: e.data, at: e.at.toISOString() } },
          // The webhook is notified through the event log in this transaction (below): queued with the run.
          actions: rule.actions.map((a) => ({ ...a, outcome: a.type === 'webhook' ? 'queued' : 'pending' })),
        });
      }
    }
  }
  if (!runs.length) return 0;
  const written = await q.query<{ id: string; rule_id: string; iccid: string; event_id: string }>(
    `INSERT INTO autoflow_runs (org_id, rule_id, sim_id, iccid, trigger, crossing, event_id, detail, actions, status)
     SELECT o, r, s, i, t, 'event:' || e, e::bigint, d::jsonb, a::jsonb, 'pending'
       FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[]) AS x(o, r, s, i, t, e, d, a)
     ON CONFLICT (rule_id, iccid, crossing) WHERE crossing IS NOT NULL DO NOTHING
     RETURNING id::text, rule_id, iccid, event_id::text`,
    [
      runs.map((x) => x.orgId), runs.map((x) => x.rule.id), runs.map((x) => x.sim.simId), runs.map((x) => x.sim.iccid), runs.map((x) => x.trigger),
      runs.map((x) => x.eventId), runs.map((x) => JSON.stringify(x.detail)), runs.map((x) => JSON.stringify(x.actions)),
    ],
  );
  // Runs written now (not a crossing seen before) whose rule notifies the webhook: a rule_fired event each.
  const byKey = new Map(runs.map((x) => [`${x.rule.id}|${x.sim.iccid}|${x.eventId}`, x]));
  const notify = written.rows
    .map((w) => ({ w, run: byKey.get(`${w.rule_id}|${w.iccid}|${w.event_id}`)! }))
    .filter(({ run }) => run && run.rule.actions.some((a) => a.type === 'webhook'));
  await appendEvents(
    q,
    notify.map(({ w, run }) => ({ orgId: run.orgId, ...RULE_FIRED, subject: run.sim.iccid, data: ruleFiredData(run.rule, run.sim.iccid, run.event, w.id) })),
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
