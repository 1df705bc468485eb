/**
 * Route declarations. Every route names its service, its permission and its schemas;
 * registerRoutes refuses one that lacks either, and the permission matrix test walks them all.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Action, Subject } from '../../common/permissions.js';
import { parseJsonBody, PARAMS_ROOT, unboundedInputs } from './input-guard.js';
import { readMultipart } from './multipart.js';

export const SERVICES = ['main', 'customer', 'cdr', 'pool', 'job', 'rule', 'identity', 'public'] as const;
export type Service = (typeof SERVICES)[number];

/** public: no token; signedIn: a valid token, any role; otherwise a CASL action on a subject in the current organisation. */
export type Permission = 'public' | 'signedIn' | { action: Action; subject: Exclude<Subject, 'all'> };

export interface RouteSchemas {
  body?: object;
  querystring?: object;
  params?: object;
  /** Schema of the envelope's data; required so the shape is declared (use {} for "any"). */
  response: object;
}

export interface RouteDef {
  service: Service;
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** The path exactly as SPEC.md section 7 writes it, with :params. */
  path: string;
  permission: Permission;
  schema: RouteSchemas;
  /** Answers raw (a file, an SVG) instead of the JSON envelope. */
  raw?: boolean;
  /** Field labels by language for its messages, where common/locales has none (a schema's own translations). */
  labels?: Partial<Record<string, Record<string, string>>>;
  /** The unit a numeric field of the body is counted in, read from the body (a threshold's KB, MB or GB), said after its range. */
  units?: Record<string, (body: unknown) => string | undefined>;
  /** Its own request limit (server/http/rate-limit.ts); without one the API's limit applies. */
  rateLimit?: 'signIn' | 'captcha' | 'passwordReset' | 'telemetry';
  /** A body limit in bytes below the server's (a larger body is refused with 413 naming it). */
  bodyLimit?: number;
  handler: (req: FastifyRequest, reply: FastifyReply) => Promise<unknown>;
  /** One line for the public API's reference (OpenAPI summary). */
  summary?: string;
  /**
   * The JSON body may also come as multipart/form-data, the document in the text field of this name (SPEC.md section
   * 7: autoflow rule create and update). It is parsed and validated exactly as a JSON body.
   */
  multipartJson?: string;
}

/** The schema of path parameters: each named one a non-empty id or code of at most 40 characters. */
export function pathParams(...names: string[]): object {
  return {
    type: 'object',
    required: names,
    additionalProperties: false,
    properties: Object.fromEntries(names.map((n) => [n, { type: 'string', minLength: 1, maxLength: 40 }])),
  };
}

/** Identity helper so route files get type checking. */
export const defineRoutes = (routes: RouteDef[]): RouteDef[] => routes;

export function fullPath(r: Pick<RouteDef, 'service' | 'path'>): string {
  return `/api/${r.service}${r.path}`;
}

/** Register the routes on fastify; the envelope is added here so handlers return only data. */
export function registerRoutes(app: FastifyInstance, routes: RouteDef[]): void {
  for (const r of routes) {
    if (!r.permission || !r.schema || !('response' in r.schema)) {
      throw new Error(`Route ${r.method} ${r.path} declares no permission or no response schema; it is not registered.`);
    }
    const { response, ...input } = r.schema;
    // Every input has a bound (a number its range, a text its length, a list its size): no value reaches SQL unchecked.
    const unbounded = Object.entries(input).flatMap(([part, s]) => unboundedInputs(s, part === 'params' ? PARAMS_ROOT : '').map((u) => `${part} ${u}`));
    if (unbounded.length > 0) throw new Error(`Route ${r.method} ${r.path} has inputs without a bound; it is not registered:\n  ${unbounded.join('\n  ')}`);
    // The envelope's data is serialised by the declared schema: a field not declared never leaves the server.
    const envelope = {
      type: 'object',
      properties: {
        status: { type: 'object', properties: { code: { type: 'string' }, success: { type: 'boolean' }, message: { type: 'string' } } },
        data: response,
      },
    };
    app.route({
      method: r.method,
      url: fullPath(r),
      schema: r.raw ? input : { ...input, response: { 200: envelope } },
      config: { permission: r.permission, routeDef: r },
      ...(r.bodyLimit ? { bodyLimit: r.bodyLimit } : {}),
      ...(r.multipartJson ? { preValidation: multipartJsonBody(r.multipartJson) } : {}),
      handler: async (req, reply) => {
        const data = await r.handler(req, reply);
        if (r.raw || reply.sent) return data;
        return reply.send(app.envelope(req, data ?? null));
      },
    });
  }
}

/** A route-level hook (after the right is checked): a multipart request's field `name` becomes the JSON body. */
function multipartJsonBody(name: string) {
  return async (req: FastifyRequest) => {
    if (!req.isMultipart()) return;
    // Files are read (within their limit) and left unused.
    const text = (await readMultipart(req)).fields.find((f) => f.name === name)?.value;
    // Missing, it is a missing body; present, the same parser as a JSON body (empty, not JSON, poisoned keys).
    req.body = text === undefined ? undefined : parseJsonBody(text);
  };
}
