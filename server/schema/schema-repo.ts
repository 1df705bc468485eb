/**
 * The SQL of resources described by a schema (docs/schemas.md): API fields become columns of the resource's table by
 * the naming rule (camelCase field, snake_case column), so no SQL lives in a schema. Reading (the list spec the shared
 * list helper runs, one record) and, for resources stored generically, inserting, updating and deleting rows, every
 * name quoted. The routes (resource-routes.ts, schema-routes.ts) hold none.
 */
import type { ResourceSchema } from '../../common/resources.js';
import type { Queryable } from '../db/db.js';
import { checkSpec, type ListSpec } from '../db/listing.js';

export const snake = (field: string) => field.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
/** A field's column in the table aliased t, always quoted (a field named `default` is a column like any other). */
export const col = (field: string) => `t."${snake(field)}"`;
/** A table name, quoted (schema loading has checked it is a plain SQL identifier). */
export const tableOf = (r: ResourceSchema) => `"${r['x-admin'].table}"`;
const typesOf = (p: { type?: string | string[] }) => ([] as string[]).concat(p.type ?? []);

/** A field's column in the resource's table aliased t. */
export function columnOf(r: ResourceSchema, f: string): string {
  // 64-bit counters arrive as text from the driver: read them as numbers (volumes in KB stay far below 2^53).
  if (typesOf(r.properties[f]).includes('integer') || typesOf(r.properties[f]).includes('number')) return `${col(f)}::float8`;
  // A calendar date stays the date it is (a driver would make it a midnight in some time zone).
  if (r.properties[f].format === 'date') return `${col(f)}::text`;
  return col(f);
}

/** SELECT of every field of a resource from its table aliased t, each column named as its field. */
export function selectOf(r: ResourceSchema): string {
  return `SELECT ${Object.keys(r.properties)
    .map((f) => `${columnOf(r, f)} AS "${f}"`)
    .join(', ')} FROM ${tableOf(r)} t`;
}

/** The list spec of a resource, its table aliased as t. */
export function listSpecOf(r: ResourceSchema): ListSpec {
  const admin = r['x-admin'];
  const l = admin.list;
  const column = (f: string) => columnOf(r, f);
  const fields = [...new Set([admin.key, ...l.columns, ...l.sortable, l.defaultSort.field])];
  const filters: ListSpec['filters'] = {};
  for (const f of l.filters) filters[f] = { kind: typesOf(r.properties[f]).includes('array') ? 'contains' : 'eq', column: col(f) };
  for (const f of l.ranges ?? []) filters[f] = { kind: 'range', column: col(f) };
  for (const f of l.search ?? []) filters[`${f}Suffix`] = { kind: r.properties[f].pattern ? 'suffix' : 'suffixCi', column: col(f) };
  if (l.bulk) filters[l.bulk.param] = { kind: 'in', column: col(l.bulk.field) };
  return checkSpec({
    from: `${tableOf(r)} t`,
    orgColumn: 't.org_id',
    idColumn: 't.id',
    columns: Object.fromEntries(fields.map((f) => [f, column(f)])),
    sortable: l.sortable,
    filters,
    defaultSort: l.defaultSort,
  });
}

/** One record of a resource by its key, in the organisation; undefined for any other. */
export async function recordOf(q: Queryable, r: ResourceSchema, orgId: string, key: string): Promise<Record<string, unknown> | undefined> {
  return (await q.query(`${selectOf(r)} WHERE t.org_id = $1 AND ${col(r['x-admin'].key)}::text = $2`, [orgId, key])).rows[0];
}

/** A row of the organisation in a parent table (the record a nested list belongs to) exists. */
export async function parentExists(q: Queryable, table: string, orgId: string, id: string): Promise<boolean> {
  return (await q.query(`SELECT 1 FROM ${table} WHERE org_id = $1 AND id = $2`, [orgId, id])).rows.length > 0;
}

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
