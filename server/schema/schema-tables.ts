/**
 * The table of a resource stored generically (docs/schemas.md, "Its table"): derived from the schema when no
 * migration file lies beside it, created at start like the project's own migrations, and widened by the columns a
 * changed schema adds (never narrowed: dropping data takes a migration). Only plain SQL identifiers reach the DDL, and
 * every one is quoted, so a field named `default` is a column like any other.
 */
import type { ResourceSchema } from '../../common/resources.js';
import type { Db, Queryable } from '../db/db.js';
import { snake } from './schema-repo.js';

/** A plain SQL identifier: lower-case letters, digits and underscores, at most 63 bytes. */
export const IDENTIFIER = /^[a-z_][a-z0-9_]{0,62}$/;
export const quote = (name: string) => `"${name}"`;

type Prop = { type?: string | string[]; format?: string; items?: { type?: string }; default?: unknown };
const typesOf = (p: Prop) => ([] as string[]).concat(p.type ?? []);

/** What derivation needs to know of one column. */
export interface ColumnPlan {
  field: string;
  column: string;
  sqlType: string;
  /** The column's DEFAULT clause (a schema default, now() for a time the forms never fill). */
  defaultSql?: string;
  notNull: boolean;
}

/** The SQL literal of a schema default, or undefined where it cannot be one. */
function literal(value: unknown, sqlType: string): string | undefined {
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  if (typeof value === 'string') return `'${value.replace(/'/g, "''")}'`;
  if (Array.isArray(value) && sqlType === 'text[]' && value.every((v) => typeof v === 'string'))
    return `ARRAY[${value.map((v) => `'${v.replace(/'/g, "''")}'`).join(', ')}]::text[]`;
  return undefined;
}

/** The columns of a resource's table; a field whose type has no column stops with its name. */
export function columnsOf(r: ResourceSchema, fail: (what: string) => never): ColumnPlan[] {
  const admin = r['x-admin'];
  const required = new Set(admin.create ? admin.create.fields.filter((f) => !(admin.create!.optional ?? []).includes(f)) : []);
  const out: ColumnPlan[] = [];
  for (const [field, p] of Object.entries(r.properties as Record<string, Prop>)) {
    const column = snake(field);
    if (!IDENTIFIER.test(column)) fail(`the field "${field}" makes the column "${column}", not a plain SQL identifier (letters, digits, underscores)`);
    if (field === 'id' || column === 'org_id') continue;
    const types = typesOf(p).filter((t) => t !== 'null');
    if (types.length !== 1)
      fail(
        `the field "${field}" must have one type (with "null" where a value may be missing) to derive its column; write a migration file beside the schema instead`,
      );
    const type = types[0];
    let sqlType: string;
    if (type === 'string') sqlType = p.format === 'date-time' ? 'timestamptz' : p.format === 'date' ? 'date' : 'text';
    else if (type === 'integer') sqlType = 'bigint';
    else if (type === 'number') sqlType = 'double precision';
    else if (type === 'boolean') sqlType = 'boolean';
    else if (type === 'array') sqlType = p.items?.type === 'string' ? 'text[]' : 'jsonb';
    else if (type === 'object') sqlType = 'jsonb';
    else fail(`the field "${field}" has the type "${type}", which has no column; write a migration file beside the schema instead`);
    let defaultSql: string | undefined;
    if (p.default !== undefined) {
      defaultSql = literal(p.default, sqlType!);
      if (defaultSql === undefined) fail(`the default of the field "${field}" cannot be a column default; write a migration file beside the schema instead`);
    } else if (sqlType! === 'timestamptz' && !admin.create?.fields.includes(field) && !admin.edit?.fields.includes(field)) defaultSql = 'now()';
    const nullable = typesOf(p).includes('null');
    out.push({ field, column, sqlType: sqlType!, defaultSql, notNull: !nullable && (required.has(field) || defaultSql !== undefined) });
  }
  return out;
}

/** The unique keys a schema declares (x-admin.unique), each as columns after the organisation's. */
function uniqueKeysOf(r: ResourceSchema): string[][] {
  const admin = r['x-admin'];
  const keys = (admin.unique ?? []).map((u) => ([] as string[]).concat(u).map(snake));
  if (admin.key !== 'id') keys.unshift([snake(admin.key)]);
  return keys;
}

/** The derived indexes, by name: the organisation leads every one; sortable and searched fields get theirs. */
export function derivedIndexes(r: ResourceSchema): Array<{ name: string; sql: string }> {
  const admin = r['x-admin'];
  const t = admin.table;
  const out: Array<{ name: string; sql: string }> = [];
  const index = (suffix: string, body: string) => {
    const name = `${t}_${suffix}`.slice(0, 63);
    out.push({ name, sql: `CREATE INDEX IF NOT EXISTS ${quote(name)} ON ${quote(t)} ("org_id", ${body});` });
  };
  index('org_id', '"id"');
  for (const f of new Set([...admin.list.sortable, admin.list.defaultSort.field])) if (f !== 'id') index(snake(f), `${quote(snake(f))}, "id"`);
  for (const f of admin.list.search ?? []) {
    const c = quote(snake(f));
    index(`${snake(f)}_rev`, r.properties[f].pattern ? `reverse(${c}) text_pattern_ops` : `reverse(lower(${c})) text_pattern_ops`);
  }
  return out;
}

/** CREATE TABLE and its indexes (derivedIndexes). */
export function derivedDdl(r: ResourceSchema, fail: (what: string) => never): string {
  const admin = r['x-admin'];
  const t = admin.table;
  const cols = columnsOf(r, fail);
  const lines = [
    '"id" text PRIMARY KEY',
    '"org_id" text NOT NULL REFERENCES organisations(id)',
    ...cols.map((c) => `${quote(c.column)} ${c.sqlType}${c.notNull ? ' NOT NULL' : ''}${c.defaultSql ? ` DEFAULT ${c.defaultSql}` : ''}`),
    ...uniqueKeysOf(r).map((k) => `UNIQUE ("org_id", ${k.map(quote).join(', ')})`),
  ];
  return [`CREATE TABLE IF NOT EXISTS ${quote(t)} (\n  ${lines.join(',\n  ')}\n);`, ...derivedIndexes(r).map((i) => i.sql)].join('\n');
}

/** The SQL a resource's table comes from: its migration file when one lies beside the schema, or the derived DDL. */
export interface TablePlan {
  resource: ResourceSchema;
  /** The schema file, for messages. */
  file: string;
  /** The migration file beside it, when there is one (it overrides the derived DDL). */
  migration?: { name: string; sql: string };
}

async function tableExists(q: Queryable, table: string): Promise<boolean> {
  return (await q.query<{ t: string | null }>('SELECT to_regclass($1)::text AS t', [quote(table)])).rows[0].t !== null;
}

/**
 * Create the missing tables and columns of the generic resources, in one transaction (an advisory lock on PostgreSQL,
 * as migrate). A migration file beside a schema runs once, recorded in schema_migrations under its path; a changed
 * schema's new fields become new nullable columns (or with their default). Answers what it did, for the log.
 */
export async function applySchemaTables(db: Db, plans: TablePlan[]): Promise<string[]> {
  if (!plans.length) return [];
  const done: string[] = [];
  // Derived tables first (they refer to organisations only), then the migration files in their files' order: a
  // migration may refer to a derived table whatever the names of the two files.
  const ordered = [...plans.filter((p) => !p.migration), ...plans.filter((p) => p.migration)];
  await db.tx(async (q) => {
    if (db.kind === 'postgres') await q.query('SELECT pg_advisory_xact_lock(727001)');
    await q.query('CREATE TABLE IF NOT EXISTS schema_migrations (name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())');
    for (const plan of ordered) {
      const r = plan.resource;
      const table = r['x-admin'].table;
      const fail = (what: string): never => {
        throw new Error(`${plan.file}: ${what}`);
      };
      if (plan.migration) {
        const name = `schemas/${plan.migration.name}`;
        const ran = (await q.query('SELECT 1 FROM schema_migrations WHERE name = $1', [name])).rows.length > 0;
        if (!ran) {
          await q.exec(plan.migration.sql).catch((e: Error) => fail(`${plan.migration!.name}: ${e.message}`));
          await q.query('INSERT INTO schema_migrations (name) VALUES ($1)', [name]);
          done.push(`${table}: ${plan.migration.name}`);
        }
        if (!(await tableExists(q, table))) fail(`the migration ${plan.migration.name} does not create the table "${table}"`);
      } else if (!(await tableExists(q, table))) {
        await q.exec(derivedDdl(r, fail)).catch((e: Error) => fail(`the derived table "${table}" could not be created: ${e.message}`));
        done.push(`${table}: created`);
      }
      // The columns a changed schema adds; none is ever dropped.
      const have = new Set(
        (
          await q.query<{ c: string }>('SELECT column_name AS c FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = $1', [
            table,
          ])
        ).rows.map((x) => x.c),
      );
      for (const c of columnsOf(r, fail)) {
        if (have.has(c.column)) continue;
        await q.exec(`ALTER TABLE ${quote(table)} ADD COLUMN ${quote(c.column)} ${c.sqlType}${c.defaultSql ? ` DEFAULT ${c.defaultSql}` : ''}`);
        done.push(`${table}: added ${c.column}`);
      }
      // A derived table also gains the index of a field the changed schema sorts or searches by.
      if (!plan.migration) {
        const indexed = new Set(
          (await q.query<{ n: string }>('SELECT indexname AS n FROM pg_indexes WHERE schemaname = current_schema() AND tablename = $1', [table])).rows.map(
            (x) => x.n,
          ),
        );
        for (const i of derivedIndexes(r)) {
          if (indexed.has(i.name)) continue;
          await q.exec(i.sql);
          done.push(`${table}: added index ${i.name}`);
        }
      }
    }
  });
  return done;
}
