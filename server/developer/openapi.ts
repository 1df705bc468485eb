/**
 * The public API's OpenAPI 3.1 document, made from the same route declarations the server validates with (every
 * route of service `public` that needs a key): parameters, request body, the envelope with its data schema, the error
 * envelope, and the security scheme. Served at GET /api/public/openapi.json (no key needed), so it cannot drift from
 * what the server does. Written here rather than by @fastify/swagger, which documents every registered route (the
 * console's too) and would need each console route hidden one by one.
 */
import { defineRoutes, fullPath, type RouteDef } from '../http/route.js';
import { TOKEN_LIFETIME_SECONDS } from './public-api.js';

type Schema = Record<string, unknown> & { properties?: Record<string, Schema>; required?: string[] };

const STATUS = {
  type: 'object',
  required: ['code', 'success', 'message'],
  properties: {
    code: { type: 'string', description: 'CB-… code of SPEC.md section 8' },
    success: { type: 'boolean' },
    message: { type: 'string', description: 'In the language of the `language` header' },
  },
};
const ERROR = {
  type: 'object',
  required: ['status'],
  properties: { status: STATUS, data: { description: 'What the error concerns, e.g. {"field","rule"} for a refused input' } },
};

/** Drop keys OpenAPI's schema dialect does not know as such (our x- rules stay: extensions are allowed). */
function clean(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(clean);
  if (!schema || typeof schema !== 'object') return schema;
  return Object.fromEntries(
    Object.entries(schema as Record<string, unknown>)
      .filter(([k]) => k !== '$id' && k !== '$schema')
      .map(([k, v]) => [k, clean(v)]),
  );
}

function parametersOf(r: RouteDef): unknown[] {
  const out: unknown[] = [];
  for (const [where, s] of [
    ['path', r.schema.params],
    ['query', r.schema.querystring],
  ] as const) {
    const schema = s as Schema | undefined;
    for (const [name, prop] of Object.entries(schema?.properties ?? {})) {
      out.push({ name, in: where, required: where === 'path' || (schema?.required ?? []).includes(name), schema: clean(prop) });
    }
  }
  return out;
}

export function openApiDocument(routes: RouteDef[]): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const r of routes.filter((x) => x.service === 'public' && x.path.startsWith('/v1/'))) {
    const path = fullPath(r)
      .replace(/^\/api\/public/, '')
      .replace(/:(\w+)/g, '{$1}');
    const operation: Record<string, unknown> = {
      operationId: `${r.method.toLowerCase()}${path
        .replace(/[{}]/g, '')
        .replace(/\/(\w)/g, (_, c: string) => c.toUpperCase())
        .replace(/\W/g, '')}`,
      summary: r.summary ?? `${r.method} ${path}`,
      parameters: parametersOf(r),
      responses: {
        200: {
          description: 'Done: `status.success` is true and `data` holds the answer.',
          content: {
            'application/json': { schema: { type: 'object', required: ['status', 'data'], properties: { status: STATUS, data: clean(r.schema.response) } } },
          },
        },
        400: { $ref: '#/components/responses/Refused' },
        401: { $ref: '#/components/responses/Unauthenticated' },
        403: { $ref: '#/components/responses/Forbidden' },
        404: { $ref: '#/components/responses/NotFound' },
        429: { $ref: '#/components/responses/TooMany' },
      },
    };
    if (r.schema.body) operation.requestBody = { required: true, content: { 'application/json': { schema: clean(r.schema.body) } } };
    (paths[path] ??= {})[r.method.toLowerCase()] = operation;
  }
  const error = (description: string, headers?: Record<string, unknown>) => ({
    description,
    ...(headers ? { headers } : {}),
    content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
  });
  return {
    openapi: '3.1.0',
    info: {
      title: 'IoT Connect public API',
      version: '1',
      description:
        'Your SIM fleet from your own systems. Make an API key on the Developer page, keep its private key, and sign each call with a JWT ' +
        `(RS256, \`iss\` = the key id, \`iat\` now, \`exp\` at most ${TOKEN_LIFETIME_SECONDS} s later), sent as \`Authorization: Bearer\`. ` +
        'The key acts for you in its organisation with your role at the time of the call. Every answer carries `x-trace-id`, also found in the API log. ' +
        'See docs/public-api.md for signing in Node, Python and curl with openssl.',
    },
    servers: [{ url: '/api/public' }],
    security: [{ apiKeyJwt: [] }],
    paths,
    components: {
      securitySchemes: {
        apiKeyJwt: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'JWT',
          description: `RS256 JWT signed with your API key's private key; iss = key id; lifetime at most ${TOKEN_LIFETIME_SECONDS} s.`,
        },
      },
      schemas: { Error: ERROR },
      responses: {
        Refused: error('An input is refused: `status.message` names the field and the rule.'),
        Unauthenticated: error(
          'No token, or a token that is malformed, expired, issued in the future, living too long, or signed by an unknown, deleted or other key; `status.message` says which.',
        ),
        Forbidden: error('Your role may not do this, or the call names another organisation.'),
        NotFound: error('The record does not exist in your organisation.'),
        TooMany: error('Too many calls of this key this minute.', { 'Retry-After': { description: 'Seconds to wait', schema: { type: 'integer' } } }),
      },
    },
  };
}

/** GET /api/public/openapi.json: the document of the routes this server runs. */
export const openApiRoutes = (routes: () => RouteDef[]) =>
  defineRoutes([
    {
      service: 'public',
      method: 'GET',
      path: '/openapi.json',
      permission: 'public',
      schema: { response: {} },
      raw: true,
      handler: async (_req, reply) => reply.header('cache-control', 'no-cache').type('application/json').send(openApiDocument(routes())),
    },
  ]);
