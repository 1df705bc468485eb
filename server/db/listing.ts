/**
 * One way to list a resource: scoped to the organisation first, filtered, sorted, paged. Shared by every list route
 * so that each stays fast at 1,000,000 rows:
 * - the organisation column leads every WHERE (and every index: ARCHITECTURE.md, Data and scale);
 * - a suffix search ("the whole value or its trailing digits", SPEC.md section 5) is a prefix of the reversed value,
 *   which a btree on (org_id, reverse(col) text_pattern_ops) answers with a range scan;
 * - the next page can be asked with a keyset cursor (the last row's sort value and id), which costs the same on page
 *   1 and page 10,000, where OFFSET grows with the page number;
 * - the total is counted up to a cap (100,001 by default: the export limit plus one is all a screen needs to know).
 * Field names and SQL never mix: a list spec maps each API field to a vetted SQL expression, values are parameters.
 */
import type { Queryable } from './db.js';

export type FilterKind =
  /** field = value */
  | 'eq'
  /** field = any of the values (a bulk search) */
  | 'in'
  /** the whole value or its trailing characters, through the reversed-value index */
  | 'suffix'
  /** lower-cased suffix, for names */
  | 'suffixCi'
  /** the array column contains the value */
  | 'contains'
  /** from / to (inclusive), for times and numbers: the value is [from, to], either may be null */
  | 'range'
  /** the text contains the value, case-insensitively (a scan within the organisation's rows: for short lists or narrowed ones) */
  | 'substring';

export interface ListSpec {
  /** FROM clause, e.g. "sims s". */
  from: string;
  /** The organisation column, e.g. "s.org_id". */
  orgColumn: string;
  /** A unique column that breaks ties and keys the cursor, e.g. "s.id". */
  idColumn: string;
  /** API field → SQL expression, for the SELECT list. */
  columns: Record<string, string>;
  /** API fields that may be sorted on (each must be in columns). */
  sortable: string[];
  /** API field → how it filters and which SQL expression it reads. */
  filters: Record<string, { kind: FilterKind; column: string }>;
  /** Sort when none is asked. */
  defaultSort: { field: string; order: 'asc' | 'desc' };
  /** A condition every row meets, vetted SQL without parameters (e.g. "the first message of a thread"). */
  where?: string;
}

export interface ListQuery {
  page?: number;
  pageSize: number;
  sort?: string;
  order?: 'asc' | 'desc';
  /** A cursor from a previous page's nextCursor; replaces page. */
  cursor?: string;
  filters?: Record<string, unknown>;
  /** Count at most this many rows (default 100,001). */
  totalCap?: number;
}

export interface ListPage<T> {
  items: T[];
  /** Rows matching, up to the cap. */
  total: number;
  /** True when there are more than total. */
  totalCapped: boolean;
  /** Ask for the page after this one with it; null on the last page. */
  nextCursor: string | null;
}

export const DEFAULT_TOTAL_CAP = 100_001;

/** LIKE's wildcards in a user's value are literal characters. */
const escapeLike = (v: string) => v.replace(/[\\%_]/g, (c) => `\\${c}`);

/** A list spec that names a field it cannot serve is a programming error: refuse it when routes are built. */
export function checkSpec(spec: ListSpec): ListSpec {
  for (const f of spec.sortable) if (!spec.columns[f]) throw new Error(`sortable field ${f} has no column`);
  if (!spec.columns[spec.defaultSort.field]) throw new Error(`default sort ${spec.defaultSort.field} has no column`);
  return spec;
}

interface Cursor {
  v: unknown;
  id: string;
}
const encodeCursor = (c: Cursor) => Buffer.from(JSON.stringify(c)).toString('base64url');
function decodeCursor(raw: string): Cursor | null {
  try {
    const c = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8')) as Cursor;
    return typeof c === 'object' && c !== null && typeof c.id === 'string' ? c : null;
  } catch {
    return null;
  }
}

/** The WHERE clause (organisation first) and its parameters. */
export function whereOf(
  spec: Pick<ListSpec, 'orgColumn' | 'filters' | 'where'>,
  orgId: string,
  filters: Record<string, unknown> = {},
): { sql: string; params: unknown[] } {
  const params: unknown[] = [orgId];
  const parts = [`${spec.orgColumn} = $1`];
  if (spec.where) parts.push(`(${spec.where})`);
  const p = (v: unknown) => {
    params.push(v);
    return `$${params.length}`;
  };
  for (const [field, value] of Object.entries(filters)) {
    const def = spec.filters[field];
    if (!def || value === undefined || value === null || value === '') continue;
    switch (def.kind) {
      case 'eq':
        parts.push(`${def.column} = ${p(value)}`);
        break;
      case 'in':
        // Compared as text: keys arrive as text whatever the column's type (a CDR's bigint id, an ICCID). On a text
        // column the cast is no cast at all, so its index still serves.
        parts.push(`${def.column}::text = ANY(${p(value)}::text[])`);
        break;
      case 'suffix':
        parts.push(`reverse(${def.column}) LIKE reverse(${p(escapeLike(String(value)))}) || '%'`);
        break;
      case 'suffixCi':
        parts.push(`reverse(lower(${def.column})) LIKE reverse(${p(escapeLike(String(value).toLowerCase()))}) || '%'`);
        break;
      case 'contains':
        parts.push(`${p(value)} = ANY(${def.column})`);
        break;
      case 'substring':
        parts.push(`${def.column} ILIKE '%' || ${p(escapeLike(String(value)))} || '%'`);
        break;
      case 'range': {
        const [from, to] = value as [unknown, unknown];
        if (from !== null && from !== undefined) parts.push(`${def.column} >= ${p(from)}`);
        if (to !== null && to !== undefined) parts.push(`${def.column} <= ${p(to)}`);
        break;
      }
    }
  }
  return { sql: parts.join(' AND '), params };
}

/** One page of a list. */
export async function listPage<T extends Record<string, unknown>>(q: Queryable, spec: ListSpec, orgId: string, query: ListQuery): Promise<ListPage<T>> {
  const sortField = query.sort && spec.sortable.includes(query.sort) ? query.sort : spec.defaultSort.field;
  const order = query.sort ? (query.order ?? 'asc') : spec.defaultSort.order;
  const sortExpr = spec.columns[sortField];
  const where = whereOf(spec, orgId, query.filters);
  const params = [...where.params];
  let sql = where.sql;
  const cursor = query.cursor ? decodeCursor(query.cursor) : null;
  if (cursor) {
    // Rows after the cursor in (sort value, id) order; NULL sort values come last in ascending order, first in descending.
    const cmp = order === 'asc' ? '>' : '<';
    params.push(cursor.id);
    const id = `$${params.length}`;
    const afterNull = `${sortExpr} IS NULL AND ${spec.idColumn} ${cmp} ${id}`;
    if (cursor.v === null) {
      sql += order === 'asc' ? ` AND ${afterNull}` : ` AND ((${afterNull}) OR ${sortExpr} IS NOT NULL)`;
    } else {
      params.push(cursor.v);
      const v = `$${params.length}`;
      const after = `(${sortExpr}, ${spec.idColumn}) ${cmp} (${v}, ${id})`;
      sql += order === 'asc' ? ` AND (${after} OR ${sortExpr} IS NULL)` : ` AND ${after}`;
    }
  }
  const offset = cursor ? 0 : ((query.page ?? 1) - 1) * query.pageSize;
  const select = Object.entries(spec.columns)
    .map(([field, expr]) => `${expr} AS "${field}"`)
    .join(', ');
  const nulls = order === 'asc' ? 'NULLS LAST' : 'NULLS FIRST';
  const rows = await q.query<T & { __sort: unknown; __id: string }>(
    `SELECT ${select}, ${sortExpr} AS "__sort", ${spec.idColumn} AS "__id" FROM ${spec.from} WHERE ${sql}
      ORDER BY ${sortExpr} ${order} ${nulls}, ${spec.idColumn} ${order} LIMIT ${query.pageSize + 1} OFFSET ${offset}`,
    params,
  );
  const cap = query.totalCap ?? DEFAULT_TOTAL_CAP;
  const count = await q.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM (SELECT 1 FROM ${spec.from} WHERE ${where.sql} LIMIT ${cap}) capped`,
    where.params,
  );
  const more = rows.rows.length > query.pageSize;
  const page = rows.rows.slice(0, query.pageSize);
  const last = page[page.length - 1];
  const sortValue = (v: unknown) => (v instanceof Date ? v.toISOString() : v);
  return {
    items: page.map(({ __sort: _s, __id: _i, ...rest }) => rest as unknown as T),
    total: count.rows[0].n,
    totalCapped: count.rows[0].n >= cap,
    nextCursor: more && last ? encodeCursor({ v: sortValue(last.__sort), id: last.__id }) : null,
  };
}

/**
 * The whole ordered SELECT of a list (no page, no cursor), at most `limit` rows, in the order listPage pages through
 * it: what an export reads through a cursor (Db.cursor) instead of page by page.
 */
export function listSelect(
  spec: ListSpec,
  orgId: string,
  query: Omit<ListQuery, 'pageSize'>,
  limit: number,
  output?: string[],
): { sql: string; params: unknown[] } {
  const sortField = query.sort && spec.sortable.includes(query.sort) ? query.sort : spec.defaultSort.field;
  const order = query.sort ? (query.order ?? 'asc') : spec.defaultSort.order;
  const sortExpr = spec.columns[sortField];
  const where = whereOf(spec, orgId, query.filters);
  // output: other expressions to select (an export's finished cells), in the same order.
  const select = output
    ? output.join(', ')
    : Object.entries(spec.columns)
        .map(([field, expr]) => `${expr} AS "${field}"`)
        .join(', ');
  const nulls = order === 'asc' ? 'NULLS LAST' : 'NULLS FIRST';
  return {
    sql: `SELECT ${select} FROM ${spec.from} WHERE ${where.sql} ORDER BY ${sortExpr} ${order} ${nulls}, ${spec.idColumn} ${order} LIMIT ${Math.max(0, Math.floor(limit))}`,
    params: where.params,
  };
}
