/**
 * The list and detail routes of a resource schema (x-admin.list, x-admin.show): the query and columns come from the
 * schema, the list is run by the shared list helper (server/db/listing.ts), the SQL is schema-repo.ts's. Filters,
 * ranges, the suffix search and the bulk search come from x-admin.list.
 */
import type { Subject } from '../../common/permissions.js';
import { listQuerySchema, rangeProblem, type ResourceSchema } from '../../common/resources.js';
import { invalid, notFound } from '../http/api-error.js';
import { fieldLabels } from '../http/labels.js';
import { pathParams, SERVICES, type RouteDef, type Service } from '../http/route.js';
import { checkSpec, listPage, type ListQuery } from '../db/listing.js';
import { listSpecOf, parentExists, recordOf } from './schema-repo.js';

type SubjectName = Exclude<Subject, 'all'>;

/** A pattern that admits digits alone ("^89[0-9]{17,18}$"). */
const DIGITS_ONLY = /^\^?(?:\[[0-9]-[0-9]\]|\\d|[0-9]|\{\d+(?:,\d*)?\}|[+*?])+\$?$/;

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
        if (!(await parentExists(req.server.db, options.parent.table, auth.orgId, String(id)))) throw notFound('record', String(id));
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
