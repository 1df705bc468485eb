/**
 * A resource schema's list, as the shared list helper runs it: API fields become columns of the resource's table by
 * the naming rule (camelCase field, snake_case column), so no SQL lives in a schema. Filters, ranges, the suffix
 * search and the bulk search come from x-admin.list.
 */
import type { Subject } from '../../common/permissions.js';
import { listQuerySchema, rangeProblem, type ResourceSchema } from '../../common/resources.js';
import { invalid, notFound } from '../http/api-error.js';
import { fieldLabels } from '../http/labels.js';
import { pathParams, SERVICES, type RouteDef, type Service } from '../http/route.js';
import type { Queryable } from './db.js';
import { checkSpec, listPage, type ListQuery, type ListSpec } from './listing.js';

type SubjectName = Exclude<Subject, 'all'>;

export const snake = (field: string) => field.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
/** A pattern that admits digits alone ("^89[0-9]{17,18}$"). */
const DIGITS_ONLY = /^\^?(?:\[[0-9]-[0-9]\]|\\d|[0-9]|\{\d+(?:,\d*)?\}|[+*?])+\$?$/;
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

/** A validated list body as the helper's query; a search value that cannot match its field is refused by name. */
export function listQueryOf(r: ResourceSchema, body: Record<string, unknown>): ListQuery {
  const l = r['x-admin'].list;
  const span = rangeProblem(r, body);
  if (span) throw invalid(span.field, span.rule, span.params);
  const filters: Record<string, unknown> = {};
  for (const f of l.filters) if (body[f] !== undefined) filters[f] = body[f];
  for (const f of l.ranges ?? []) {
    const from = body[`${f}From`] ?? null;
    const to = body[`${f}To`] ?? null;
    if (from !== null || to !== null) filters[f] = [from, to];
  }
  const search = body.search as { field: string; value: string } | undefined;
  if (search) {
    const value = search.value.trim();
    const pattern = r.properties[search.field].pattern;
    // Digits-only fields (ICCID, IMEI, MSISDN: a pattern of digits alone) are searched by digits: a letter never matches.
    if (pattern && DIGITS_ONLY.test(pattern) && !/^\d+$/.test(value)) throw invalid('search.value', 'digits');
    filters[`${search.field}Suffix`] = value;
  }
  if (l.bulk && body[l.bulk.param]) filters[l.bulk.param] = body[l.bulk.param];
  return {
    page: body.page as number,
    pageSize: body.pageSize as number,
    cursor: body.cursor as string | undefined,
    sort: body.sort as string | undefined,
    order: body.order as 'asc' | 'desc' | undefined,
    filters,
  };
}

export interface ListRouteOptions {
  /** GET takes the list query as query parameters (SPEC.md's GET lists); POST as a JSON body (the default). */
  method?: 'GET' | 'POST';
  /** The record a nested list belongs to: :id names it (a pool's activity), checked in this organisation. */
  parent?: { table: string; column: string };
  /** The unique column that keys the cursor, where the table has no id (pool members: their SIM). */
  idColumn?: string;
  /** A condition every listed row meets, vetted SQL without parameters on the table aliased t (an invoice's SIM lines). */
  where?: string;
}

/**
 * The list route of a resource schema: query and columns from the schema, run by the shared list helper. A path with
 * :id names the organisation (SPEC.md's /distributor/{id}/…): only the current one is answered, any other is 404; or,
 * with a parent, the record whose nested list it is (another organisation's record is 404 too).
 */
export function listRoute(resource: ResourceSchema, service: Service, path: string, options: ListRouteOptions = {}): RouteDef {
  const method = options.method ?? 'POST';
  const base = listSpecOf(resource);
  const parentColumn = options.parent ? `t.${options.parent.column}` : undefined;
  const spec = checkSpec({
    ...base,
    idColumn: options.idColumn ?? base.idColumn,
    ...(options.where ? { where: base.where ? `(${base.where}) AND (${options.where})` : options.where } : {}),
    filters: parentColumn ? { ...base.filters, __parent: { kind: 'eq', column: parentColumn } } : base.filters,
  });
  const itemSchema = { type: 'object', properties: Object.fromEntries(Object.keys(spec.columns).map((f) => [f, resource.properties[f]])) };
  const query = listQuerySchema(resource);
  return {
    service,
    method,
    path,
    permission: { action: 'read', subject: resource['x-admin'].subject as SubjectName },
    labels: fieldLabels(resource),
    schema: {
      ...(path.includes(':id') ? { params: { type: 'object', required: ['id'], properties: { id: { type: 'string', minLength: 1, maxLength: 40 } } } } : {}),
      ...(method === 'GET' ? { querystring: query } : { body: query }),
      response: {
        type: 'object',
        properties: {
          items: { type: 'array', items: itemSchema },
          total: { type: 'integer' },
          totalCapped: { type: 'boolean' },
          nextCursor: { type: ['string', 'null'] },
        },
      },
    },
    handler: async (req) => {
      const auth = req.requireAuth();
      const id = (req.params as { id?: string }).id;
      const input = ((method === 'GET' ? req.query : req.body) ?? {}) as Record<string, unknown>;
      const q = listQueryOf(resource, input);
      if (options.parent) {
        const found = await req.server.db.query(`SELECT 1 FROM ${options.parent.table} WHERE org_id = $1 AND id = $2`, [auth.orgId, id]);
        if (!found.rows.length) throw notFound('record', String(id));
        q.filters = { ...q.filters, __parent: id };
      } else if (id !== undefined && id !== auth.orgCode && id !== auth.orgId) throw notFound('organisation', id);
      return listPage(req.server.db, spec, auth.orgId, q);
    },
  };
}

/** "POST /api/main/things/list" as a route's method, service and path. */
export function routeOf(call: string): Pick<RouteDef, 'method' | 'service' | 'path'> {
  const [method, url] = call.split(' ');
  const [, , service, ...rest] = url.split('/');
  if (!(SERVICES as readonly string[]).includes(service)) throw new Error(`The call "${call}" names no known service (${SERVICES.join(', ')})`);
  return { method: method as RouteDef['method'], service: service as Service, path: `/${rest.join('/')}` };
}

/** One record of a resource by its key, in the organisation; undefined for any other. */
export async function recordOf(q: Queryable, r: ResourceSchema, orgId: string, key: string): Promise<Record<string, unknown> | undefined> {
  return (await q.query(`${selectOf(r)} WHERE t.org_id = $1 AND ${col(r['x-admin'].key)}::text = $2`, [orgId, key])).rows[0];
}

/** The detail route of a resource schema (x-admin.show.call, :id its key): another organisation's record is 404. */
export function showRoute(r: ResourceSchema): RouteDef {
  const show = r['x-admin'].show;
  if (!show) throw new Error(`schemas/${r.$id}.json has no x-admin.show`);
  return {
    ...routeOf(show.call),
    permission: { action: 'read', subject: r['x-admin'].subject as SubjectName },
    schema: { params: pathParams('id'), response: { type: 'object', properties: r.properties } },
    handler: async (req) => {
      const auth = req.requireAuth();
      const { id } = req.params as { id: string };
      const row = await recordOf(req.server.db, r, auth.orgId, id);
      if (!row) throw notFound(r['x-admin'].subject === 'sim' ? 'sim' : 'record', id);
      return row;
    },
  };
}
