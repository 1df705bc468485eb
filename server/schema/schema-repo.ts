/**
 * The SQL of resources stored generically (docs/schemas.md): insert, update and delete rows of a schema's table,
 * every name quoted. The routes (schema-routes.ts) hold none.
 */
import type { ResourceSchema } from '../../common/resources.js';
import type { Queryable } from '../db/db.js';
import { snake, tableOf } from '../db/resource-list.js';

const q = (field: string) => `"${snake(field)}"`;

/** A value as its column takes it: an array of strings is a text[], any other array or object is jsonb. */
function valueOf(r: ResourceSchema, field: string, v: unknown): unknown {
  const p = r.properties[field] as { items?: { type?: string } };
  if (Array.isArray(v)) return p.items?.type === 'string' ? v : JSON.stringify(v);
  if (v !== null && typeof v === 'object') return JSON.stringify(v);
  return v;
}

/** Insert a row of the organisation; answers the new row's key. */
export async function insertRow(db: Queryable, r: ResourceSchema, orgId: string, id: string, values: Record<string, unknown>): Promise<string> {
  const fields = Object.keys(values);
  const res = await db.query<{ key: string }>(
    `INSERT INTO ${tableOf(r)} ("id", "org_id"${fields.map((f) => `, ${q(f)}`).join('')})
     VALUES ($1, $2${fields.map((_, i) => `, $${i + 3}`).join('')}) RETURNING ${q(r['x-admin'].key)}::text AS key`,
    [id, orgId, ...fields.map((f) => valueOf(r, f, values[f]))],
  );
  return res.rows[0].key;
}

/** Update the named fields of the organisation's row; answers its key, or undefined when there is none. */
export async function updateRow(db: Queryable, r: ResourceSchema, orgId: string, key: string, values: Record<string, unknown>): Promise<string | undefined> {
  const fields = Object.keys(values);
  const res = await db.query<{ key: string }>(
    `UPDATE ${tableOf(r)} t SET ${fields.map((f, i) => `${q(f)} = $${i + 3}`).join(', ')}
      WHERE t."org_id" = $1 AND t.${q(r['x-admin'].key)}::text = $2 RETURNING t.${q(r['x-admin'].key)}::text AS key`,
    [orgId, key, ...fields.map((f) => valueOf(r, f, values[f]))],
  );
  return res.rows[0]?.key;
}

/** Lock the organisation's rows of these keys for a delete; answers the keys found. */
export async function lockRows(db: Queryable, r: ResourceSchema, orgId: string, keys: string[]): Promise<string[]> {
  const res = await db.query<{ key: string }>(
    `SELECT t.${q(r['x-admin'].key)}::text AS key FROM ${tableOf(r)} t WHERE t."org_id" = $1 AND t.${q(r['x-admin'].key)}::text = ANY($2::text[]) FOR UPDATE`,
    [orgId, keys],
  );
  return res.rows.map((x) => x.key);
}

/** Delete the organisation's rows of these keys (a row another table refers to makes the database refuse: 23503). */
export async function deleteRows(db: Queryable, r: ResourceSchema, orgId: string, keys: string[]): Promise<number> {
  const res = await db.query(`DELETE FROM ${tableOf(r)} t WHERE t."org_id" = $1 AND t.${q(r['x-admin'].key)}::text = ANY($2::text[])`, [orgId, keys]);
  return res.rowCount ?? 0;
}
