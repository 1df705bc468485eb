/** The audit trail: every write records who, which organisation, what, when, before and after. */
import type { FastifyRequest } from 'fastify';
import type { Queryable } from '../db/db.js';

export interface AuditEntry {
  action: string;
  entity: string;
  entityId?: string | null;
  before?: unknown;
  after?: unknown;
  /** Defaults to the signed-in account and organisation of the request. */
  accountId?: string | null;
  orgId?: string | null;
}

const SECRET_KEYS = /password|token|secret|hash|code_hash|answer/i;

/** Drop secrets from a value before it is kept for ever. */
function redact(value: unknown): unknown {
  if (value === null || value === undefined) return null;
  if (Array.isArray(value)) return value.map(redact);
  if (typeof value === 'object') {
    return Object.fromEntries(Object.entries(value as Record<string, unknown>).map(([k, v]) => [k, SECRET_KEYS.test(k) ? '[redacted]' : redact(v)]));
  }
  return value;
}

/** Append one audit row in the caller's transaction, so the write and its record land together. */
export async function audit(q: Queryable, req: FastifyRequest | null, entry: AuditEntry): Promise<void> {
  await q.query(
    `INSERT INTO audit_log (account_id, org_id, action, entity, entity_id, before, after, request_id, ip)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
    [
      entry.accountId !== undefined ? entry.accountId : (req?.auth?.accountId ?? null),
      entry.orgId !== undefined ? entry.orgId : (req?.auth?.orgId ?? null),
      entry.action,
      entry.entity,
      entry.entityId ?? null,
      entry.before === undefined ? null : JSON.stringify(redact(entry.before)),
      entry.after === undefined ? null : JSON.stringify(redact(entry.after)),
      req?.id ?? null,
      req?.ip ?? null,
    ],
  );
}

/** Append several audit rows by the system (no request) in one statement, in their order: a batch of network reports. */
export async function auditMany(q: Queryable, entries: Array<AuditEntry & { accountId: string | null; orgId: string | null }>): Promise<void> {
  if (!entries.length) return;
  const json = (v: unknown) => (v === undefined ? null : JSON.stringify(redact(v)));
  await q.query(
    `INSERT INTO audit_log (account_id, org_id, action, entity, entity_id, before, after)
     SELECT a, o, act, e, eid, b::jsonb, af::jsonb
       FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[]) WITH ORDINALITY AS x(a, o, act, e, eid, b, af, n)
      ORDER BY n`,
    [
      entries.map((x) => x.accountId),
      entries.map((x) => x.orgId),
      entries.map((x) => x.action),
      entries.map((x) => x.entity),
      entries.map((x) => x.entityId ?? null),
      entries.map((x) => json(x.before)),
      entries.map((x) => json(x.after)),
    ],
  );
}
