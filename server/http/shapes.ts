/**
 * The JSON-schema and route shapes that recur across the route files, written once: a closed input object,
 * a response object, a paged input, ids in the path or the query, lists, and route makers that state a file's service
 * (and its permission subject) once so each route names only its method, path, right, schemas and handler.
 */
import { PAGING_PROPERTIES } from '../../common/limits.js';
import type { Action, Subject } from '../../common/permissions.js';
import { pathParams, type Permission, type RouteDef, type Service } from './route.js';

type Props = Record<string, object>;

/** An input object (a body, a querystring) of these properties and no other; `required` those it must have. */
export function obj(properties: Props, required?: string[]): object {
  return { type: 'object', ...(required ? { required } : {}), additionalProperties: false, properties };
}

/** A response object: these properties are serialised, any other field is left out. */
export function outObj(properties: Props): { type: 'object'; properties: Props } {
  return { type: 'object', properties };
}

/** A JSON type (or types) as a schema; a schema stays as it is. */
const typeOf = (t: string | readonly string[] | object): object => (typeof t === 'string' || Array.isArray(t) ? { type: t } : t);

/**
 * A response object whose fields are named by their JSON type or given a schema, in this order:
 * `typed({ id: 'string', at: NULLABLE_TEXT, detail: {} })`.
 */
export function typed(fields: Record<string, string | readonly string[] | object>): { type: 'object'; properties: Props } {
  return outObj(Object.fromEntries(Object.entries(fields).map(([k, t]) => [k, typeOf(t)])));
}

/** The JSON types of a text that may be null. */
export const NULLABLE_TEXT = ['string', 'null'];

/** An array of these items. */
export function arrayOf(item: object): { type: 'array'; items: object } {
  return { type: 'array', items: item };
}

/** The answer `{ items: [...] }` (a list without a total; pageResponse in page-response.ts has one). */
export function listOf(item: object, extra: Props = {}): { type: 'object'; properties: Props } {
  return outObj({ items: arrayOf(item), ...extra });
}

/** The input of a page (PAGING_PROPERTIES: page, pageSize) with these filters, closed; `required` among the filters. */
export function pagedQuery(filters: Props = {}, required?: string[]): object {
  return obj({ ...PAGING_PROPERTIES, ...filters }, required);
}

/** An id or a code: a non-empty text of at most 40 characters (the bound pathParams gives each path parameter). */
export const ID_TEXT = { type: 'string', minLength: 1, maxLength: 40 } as const;

/** The path parameters of a route on one record: `:id`. */
export const ID_PARAMS = pathParams('id');

/** A closed input of these ids, each required and an ID_TEXT: `idsIn('ruleId')` for `?ruleId=…`. */
export function idsIn(...names: string[]): object {
  return obj(Object.fromEntries(names.map((n) => [n, ID_TEXT])), names);
}

/** The response of a route whose answer declares no fields (null, or a body sent as is). */
export const NO_FIELDS = {};

/** What a route declares besides its service, method, path and permission. */
export type RouteBody = Omit<RouteDef, 'service' | 'method' | 'path' | 'permission'>;

/** The routes of one service: `route(method, path, permission, { schema, handler, … })`. */
export function serviceRoutes(service: Service) {
  return (method: RouteDef['method'], path: string, permission: Permission, def: RouteBody): RouteDef => ({ service, method, path, permission, ...def });
}

/** The routes of one service under one permission subject: `route(method, path, action, { schema, handler, … })`. */
export function subjectRoutes(service: Service, subject: Exclude<Subject, 'all'>) {
  return (method: RouteDef['method'], path: string, action: Action, def: RouteBody): RouteDef => ({
    service,
    method,
    path,
    permission: { action, subject },
    ...def,
  });
}

// shapes added by i21-routesb

/** The answer of a request handed to the task center: the task, its reference and how many rows it takes. */
export const TASK_ANSWER = typed({ taskId: 'string', referenceId: 'string', quantity: 'integer' });
