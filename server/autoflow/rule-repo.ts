/**
 * The SQL of autoflow rules (SPEC.md sections 3 and 7): a rule is a row whose trigger, condition, scope and
 * ordered actions together are the document of common/autoflow-rule.ts. Every query names the organisation first.
 */
import {
  conditionOf,
  type AutoflowRuleDocument,
  type ChangeRecord,
  type RuleAction,
  type RuleScope,
  type RuleStatus,
  type RuleTrigger,
  type ScopeSim,
  type TriggerType,
} from '../../common/autoflow-rule.js';
import type { Queryable } from '../db/db.js';
import { whereOf } from '../db/listing.js';

/** A rule as the engine and the schedule act on it. */
export interface ActiveRule {
  id: string;
  name: string;
  orgId: string;
  trigger: RuleTrigger;
  scope: RuleScope;
  actions: RuleAction[];
}

/** A rule acts while enabled and within its active period at `at` (an SQL time: now() or a parameter). */
export const actsAt = (at: string) => `status = 'enabled' AND (activation_at IS NULL OR activation_at <= ${at}) AND (expiry_at IS NULL OR expiry_at > ${at})`;

/** The columns an acting rule is read with (activeRuleOf decodes them). */
export const ACTIVE_RULE_COLUMNS = 'id, name, org_id, trigger, condition, scope, actions';

export interface ActiveRuleRow {
  id: string;
  name: string;
  org_id: string;
  trigger: TriggerType;
  condition: Record<string, unknown>;
  scope: RuleScope;
  actions: RuleAction[];
}

/** A rule's row as the rule it is: its trigger is its type with its stored condition. */
export const activeRuleOf = (row: ActiveRuleRow): ActiveRule => ({
  id: row.id,
  name: row.name,
  orgId: row.org_id,
  trigger: { type: row.trigger, ...row.condition } as RuleTrigger,
  scope: row.scope,
  actions: row.actions,
});

/** A rule as the API answers it: the document plus who made it, its status and its runs. */
export interface RuleRecord extends Omit<AutoflowRuleDocument, 'status'> {
  id: string;
  status: RuleStatus;
  origin: string;
  createdBy: string | null;
  creatorEmail: string | null;
  updatedBy: string | null;
  lastRunAt: string | null;
  runCount: number;
  createdAt: string;
  updatedAt: string;
}

interface RuleRow {
  id: string;
  name: string;
  trigger: string;
  condition: Record<string, unknown>;
  scope: AutoflowRuleDocument['scope'];
  actions: AutoflowRuleDocument['actions'];
  status: RuleStatus;
  activation_at: Date | null;
  expiry_at: Date | null;
  origin: string;
  created_by: string | null;
  creator_email: string | null;
  updated_by: string | null;
  last_run_at: Date | null;
  run_count: number;
  created_at: Date;
  updated_at: Date;
}

const COLUMNS = `r.id, r.name, r.trigger, r.condition, r.scope, r.actions, r.status, r.activation_at, r.expiry_at, r.origin,
  r.created_by, a.email AS creator_email, r.updated_by, r.last_run_at, r.run_count, r.created_at, r.updated_at`;
const FROM = 'autoflow_rules r LEFT JOIN accounts a ON a.id = r.created_by';
const iso = (d: Date | string | null) => (d === null ? null : new Date(d).toISOString());

function toRecord(r: RuleRow): RuleRecord {
  return {
    id: r.id,
    name: r.name,
    trigger: { type: r.trigger, ...r.condition } as AutoflowRuleDocument['trigger'],
    scope: r.scope,
    actions: r.actions,
    status: r.status,
    activationAt: iso(r.activation_at),
    expiryAt: iso(r.expiry_at),
    origin: r.origin,
    createdBy: r.created_by,
    creatorEmail: r.creator_email,
    updatedBy: r.updated_by,
    lastRunAt: iso(r.last_run_at),
    runCount: r.run_count,
    createdAt: iso(r.created_at)!,
    updatedAt: iso(r.updated_at)!,
  };
}

export interface RuleListQuery {
  page: number;
  pageSize: number;
  search?: string;
  status?: 'enabled' | 'disabled';
  trigger?: string;
  actionType?: string;
}

/** The rule list's filters (server/db/listing.ts): a part of the name, the status, the trigger; never a deleted rule. */
const RULE_FILTERS = {
  orgColumn: 'r.org_id',
  where: `r.status <> 'deleted'`,
  filters: { name: { kind: 'substring', column: 'r.name' }, status: { kind: 'eq', column: 'r.status' }, trigger: { kind: 'eq', column: 'r.trigger' } },
} as const;

/** One page of the organisation's rules that are not deleted, newest first, with the total. */
export async function listRules(
  q: Queryable,
  orgId: string,
  query: RuleListQuery,
): Promise<{ items: RuleRecord[]; total: number; page: number; pageSize: number }> {
  const where = whereOf(RULE_FILTERS, orgId, { name: query.search, status: query.status, trigger: query.trigger });
  const params = where.params;
  if (query.actionType) {
    params.push(JSON.stringify([{ type: query.actionType }]));
    where.sql += ` AND r.actions @> $${params.length}::jsonb`;
  }
  const sqlWhere = where.sql;
  const total = Number((await q.query<{ n: string }>(`SELECT count(*)::text AS n FROM autoflow_rules r WHERE ${sqlWhere}`, params)).rows[0].n);
  params.push(query.pageSize, (query.page - 1) * query.pageSize);
  const rows = await q.query<RuleRow>(
    `SELECT ${COLUMNS} FROM ${FROM} WHERE ${sqlWhere} ORDER BY r.created_at DESC, r.id LIMIT $${params.length - 1} OFFSET $${params.length}`,
    params,
  );
  return { items: rows.rows.map(toRecord), total, page: query.page, pageSize: query.pageSize };
}

/** A rule of the organisation that is not deleted, or null; forUpdate locks its row for the transaction. */
export async function findRule(q: Queryable, orgId: string, id: string, forUpdate = false): Promise<RuleRecord | null> {
  const r = await q.query<RuleRow>(
    `SELECT ${COLUMNS} FROM ${FROM} WHERE r.org_id = $1 AND r.id = $2 AND r.status <> 'deleted'${forUpdate ? ' FOR UPDATE OF r' : ''}`,
    [orgId, id],
  );
  return r.rows[0] ? toRecord(r.rows[0]) : null;
}

/** Is the id a rule of the organisation, deleted or not (a deleted rule's runs and records stay readable)? */
export async function ruleEverExisted(q: Queryable, orgId: string, id: string): Promise<boolean> {
  return (await q.query('SELECT 1 FROM autoflow_rules WHERE org_id = $1 AND id = $2', [orgId, id])).rows.length > 0;
}

/** Is the name taken by another rule of the organisation that is not deleted? */
export async function nameTaken(q: Queryable, orgId: string, name: string, exceptId: string | null): Promise<boolean> {
  // Names compare trimmed and case-insensitively: "  data over 50 mb " is the name "Data over 50 MB" already has.
  const r = await q.query(
    `SELECT 1 FROM autoflow_rules WHERE org_id = $1 AND lower(btrim(name)) = lower(btrim($2)) AND status <> 'deleted' AND ($3::text IS NULL OR id <> $3) LIMIT 1`,
    [orgId, name, exceptId],
  );
  return r.rows.length > 0;
}

/**
 * The organisation's rules that are not deleted, counted under a lock on the organisation's row, so that two
 * creations at once cannot both take the last place below the maximum.
 */
export async function countRulesLocked(q: Queryable, orgId: string): Promise<number> {
  await q.query('SELECT 1 FROM organisations WHERE id = $1 FOR UPDATE', [orgId]);
  return Number((await q.query<{ n: string }>(`SELECT count(*)::text AS n FROM autoflow_rules WHERE org_id = $1 AND status <> 'deleted'`, [orgId])).rows[0].n);
}

const docParams = (doc: AutoflowRuleDocument) => [
  doc.name,
  doc.trigger.type,
  JSON.stringify(conditionOf(doc.trigger)),
  JSON.stringify(doc.scope),
  JSON.stringify(doc.actions),
  doc.activationAt ?? null,
  doc.expiryAt ?? null,
];

/** Insert a rule; answers it as stored. */
export async function insertRule(q: Queryable, orgId: string, id: string, accountId: string, doc: AutoflowRuleDocument, origin: string): Promise<RuleRecord> {
  await q.query(
    `INSERT INTO autoflow_rules (org_id, id, name, trigger, condition, scope, actions, activation_at, expiry_at, status, created_by, updated_by, origin)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $11, $12)`,
    [orgId, id, ...docParams(doc), doc.status ?? 'enabled', accountId, origin],
  );
  return (await findRule(q, orgId, id))!;
}

/** Replace a rule's document (its status too when the document names one). */
export async function updateRule(q: Queryable, orgId: string, id: string, accountId: string, doc: AutoflowRuleDocument): Promise<RuleRecord> {
  await q.query(
    `UPDATE autoflow_rules SET name = $3, trigger = $4, condition = $5, scope = $6, actions = $7, activation_at = $8, expiry_at = $9,
            status = coalesce($10, status), updated_by = $11, updated_at = now()
      WHERE org_id = $1 AND id = $2`,
    [orgId, id, ...docParams(doc), doc.status ?? null, accountId],
  );
  return (await findRule(q, orgId, id))!;
}

/** Enable, disable or delete a rule. */
export async function setRuleStatus(q: Queryable, orgId: string, id: string, accountId: string, status: RuleStatus): Promise<void> {
  await q.query(
    `UPDATE autoflow_rules SET status = $3, deleted_at = CASE WHEN $3 = 'deleted' THEN now() END, updated_by = $4, updated_at = now()
      WHERE org_id = $1 AND id = $2`,
    [orgId, id, status, accountId],
  );
}

/** Which of these ICCIDs are SIMs of the organisation. */
export async function ownIccids(q: Queryable, orgId: string, iccids: readonly string[]): Promise<Set<string>> {
  if (iccids.length === 0) return new Set();
  const r = await q.query<{ iccid: string }>('SELECT iccid FROM sims WHERE org_id = $1 AND iccid = ANY($2::text[])', [orgId, iccids]);
  return new Set(r.rows.map((x) => x.iccid));
}

/** Is the pool the organisation's? */
/** The organisation's shared pools by name, for a pool scope to choose from. */
export async function poolChoices(q: Queryable, orgId: string): Promise<Array<{ id: string; name: string }>> {
  return (await q.query<{ id: string; name: string }>('SELECT id, name FROM shared_pools WHERE org_id = $1 ORDER BY name, id LIMIT 1000', [orgId])).rows;
}

export async function poolExists(q: Queryable, orgId: string, poolId: string): Promise<boolean> {
  return (await q.query('SELECT 1 FROM shared_pools WHERE org_id = $1 AND id = $2', [orgId, poolId])).rows.length > 0;
}

export type UploadKind = 'iccid' | 'imei';

/** A validated upload of the organisation by its token and kind: the hash it was validated with. */
export async function scopeFile(q: Queryable, orgId: string, token: string, kind: UploadKind = 'iccid'): Promise<{ sha256: string; count: number } | null> {
  const r = await q.query<{ sha256: string; n: number }>(
    'SELECT sha256, cardinality(items) AS n FROM autoflow_scope_files WHERE org_id = $1 AND token = $2 AND kind = $3',
    [orgId, token, kind],
  );
  return r.rows[0] ? { sha256: r.rows[0].sha256, count: Number(r.rows[0].n) } : null;
}

/** Keep a validated upload's values under a new token. */
export async function saveScopeFile(
  q: Queryable,
  orgId: string,
  f: { token: string; kind: UploadKind; sha256: string; fileName: string; items: string[]; accountId: string },
): Promise<void> {
  await q.query('INSERT INTO autoflow_scope_files (org_id, token, kind, sha256, file_name, items, account_id) VALUES ($1, $2, $3, $4, $5, $6, $7)', [
    orgId,
    f.token,
    f.kind,
    f.sha256,
    f.fileName,
    f.items,
    f.accountId,
  ]);
}

/** The change records of the organisation's rules (one rule's when ruleId is given), newest first. */
export async function changeRecords(
  q: Queryable,
  orgId: string,
  query: { ruleId?: string; page: number; pageSize: number },
): Promise<{ items: ChangeRecord[]; total: number; page: number; pageSize: number }> {
  const params: unknown[] = [orgId, query.ruleId ?? null];
  const where = `l.org_id = $1 AND l.entity = 'autoflow_rule' AND ($2::text IS NULL OR l.entity_id = $2)`;
  const total = Number((await q.query<{ n: string }>(`SELECT count(*)::text AS n FROM audit_log l WHERE ${where}`, params)).rows[0].n);
  const rows = await q.query<{
    id: string;
    rule_id: string | null;
    at: Date;
    action: string;
    account_id: string | null;
    email: string | null;
    before: ChangeRecord['before'];
    after: ChangeRecord['after'];
  }>(
    `SELECT l.id::text AS id, l.entity_id AS rule_id, l.at, l.action, l.account_id, a.email, l.before, l.after
       FROM audit_log l LEFT JOIN accounts a ON a.id = l.account_id
      WHERE ${where} ORDER BY l.at DESC, l.id DESC LIMIT $3 OFFSET $4`,
    [...params, query.pageSize, (query.page - 1) * query.pageSize],
  );
  return {
    items: rows.rows.map((r) => ({
      id: r.id,
      ruleId: r.rule_id,
      at: iso(r.at)!,
      action: r.action,
      accountId: r.account_id,
      accountEmail: r.email,
      before: r.before,
      after: r.after,
    })),
    total,
    page: query.page,
    pageSize: query.pageSize,
  };
}

/** The SQL condition on sims (alias s) of a rule's scope, its parameters numbered from `from`. */
function scopeWhere(scope: AutoflowRuleDocument['scope'], from: number): { sql: string; params: unknown[] } {
  switch (scope.type) {
    case 'all':
      return { sql: 'true', params: [] };
    case 'iccids':
      return { sql: `s.iccid = ANY($${from}::text[])`, params: [scope.iccids ?? []] };
    case 'file':
      return {
        sql: `s.iccid = ANY(coalesce((SELECT f.items FROM autoflow_scope_files f WHERE f.org_id = s.org_id AND f.token = $${from} AND f.kind = 'iccid'), '{}'))`,
        params: [scope.fileToken ?? ''],
      };
    case 'tags':
      return { sql: `s.tags && $${from}::text[]`, params: [scope.tags ?? []] };
    case 'product_type':
      return { sql: `s.product_type = $${from}`, params: [scope.productType ?? ''] };
    case 'pool':
      return { sql: `s.pool_id = $${from}`, params: [scope.poolId ?? ''] };
  }
}

/** A page of the SIMs of the organisation in a rule's scope, by ICCID; the total is counted up to `cap`. */
export async function simsInScope(
  q: Queryable,
  orgId: string,
  scope: AutoflowRuleDocument['scope'],
  page: { limit: number; offset: number },
  cap = 100_001,
): Promise<{ items: ScopeSim[]; total: number }> {
  const where = scopeWhere(scope, 2);
  const params = [orgId, ...where.params];
  const total = Number(
    (await q.query<{ n: string }>(`SELECT count(*)::text AS n FROM (SELECT 1 FROM sims s WHERE s.org_id = $1 AND ${where.sql} LIMIT ${Number(cap)}) x`, params))
      .rows[0].n,
  );
  const rows = await q.query<{ iccid: string; status: string; product_type: string; tags: string[]; pool_id: string | null }>(
    `SELECT s.iccid, s.status, s.product_type, s.tags, s.pool_id FROM sims s WHERE s.org_id = $1 AND ${where.sql}
      ORDER BY s.iccid LIMIT $${params.length + 1} OFFSET $${params.length + 2}`,
    [...params, page.limit, page.offset],
  );
  return { items: rows.rows.map((r) => ({ iccid: r.iccid, status: r.status, productType: r.product_type, tags: r.tags, poolId: r.pool_id })), total };
}

/** The caller's webhook (their notification key of the organisation), if they have set one up. */
export async function webhookOf(q: Queryable, orgId: string, accountId: string): Promise<{ id: string; webhookUrl: string | null } | null> {
  const r = await q.query<{ id: string; webhook_url: string | null }>('SELECT id, webhook_url FROM notification_keys WHERE org_id = $1 AND account_id = $2', [
    orgId,
    accountId,
  ]);
  return r.rows[0] ? { id: r.rows[0].id, webhookUrl: r.rows[0].webhook_url } : null;
}
