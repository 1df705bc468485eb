/**
 * The public API (ARCHITECTURE.md "Events, webhooks and the public API"), under /api/public/v1/.
 *
 * - Its routes are the console's own route declarations published under another path (PUBLIC_ROUTES): the same
 *   schemas, permission and handler, so the domain rules and messages are those of the console, never a copy.
 * - A caller signs a JWT with its API key's private key (RS256, `iss` = the key id, `exp` at most 5 minutes after
 *   `iat`) and sends it as `Authorization: Bearer`. The key is looked up at most a second before the call (a deleted
 *   key stops within a second, at once on the instance that deleted it) and acts for its developer in its
 *   organisation with that person's role then, never more.
 * - Every call is a row of api_logs (IP, trace id, also sent back as `x-trace-id`, method, path, headers with
 *   Authorization and cookies redacted, body and answer capped at 4 KB, duration), written in batches (call-log.ts).
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { decodeJwt, decodeProtectedHeader, importSPKI, jwtVerify, errors as joseErrors } from 'jose';
import { CODES } from '../../common/errors.js';
import type { Db } from '../db/db.js';
import { ApiError } from '../http/api-error.js';
import type { AuthCache } from '../http/auth-cache.js';
import { ApiCallLog } from './call-log.js';
import { fullPath, type RouteDef } from '../http/route.js';
import { liveApiKey } from './developer-repo.js';

/** The longest a token may live (exp − iat). */
export const TOKEN_LIFETIME_SECONDS = 300;
/** Clock difference forgiven between the caller and the server. */
const CLOCK_SKEW_SECONDS = 30;
const LOG_CAP = 4096;

/** Console routes published in the public API: the console's call, and its public path under /api/public. */
export const PUBLIC_ROUTES: Array<{ from: string; to: string; summary: string }> = [
  { from: 'POST /api/main/sim/list/es', to: '/v1/sims/list', summary: 'List and search SIMs with the console’s filters' },
  { from: 'GET /api/main/sim/basic', to: '/v1/sims/detail', summary: 'One SIM' },
  { from: 'GET /api/main/sim/usage', to: '/v1/sims/usage', summary: 'A SIM’s usage by day, month or year' },
  { from: 'POST /api/main/sim/active', to: '/v1/sims/activate', summary: 'Activate SIMs (a task carried out by the network)' },
  { from: 'POST /api/main/sim/suspend', to: '/v1/sims/suspend', summary: 'Suspend SIMs' },
  { from: 'POST /api/main/sim/resume', to: '/v1/sims/resume', summary: 'Resume SIMs' },
  { from: 'POST /api/main/device/reset', to: '/v1/sims/reset', summary: 'Reset SIMs’ network connection' },
  { from: 'POST /api/main/sms/list', to: '/v1/sms/list', summary: 'SMS sent and received, with the replies to each within 24 hours' },
  { from: 'POST /api/main/sms/send', to: '/v1/sms/send', summary: 'Send an SMS to SIMs by ICCID or number (at most 1000); each refused SIM says why' },
  { from: 'POST /api/main/sms/reply', to: '/v1/sms/reply', summary: 'Answer an SMS received from a device' },
  {
    from: 'POST /api/cdr/distributor/:id/stdcdrs',
    to: '/v1/cdrs/:id',
    summary: 'Call and data records of a window of at most 31 days (id: the organisation code)',
  },
  { from: 'GET /api/job/rest/job/my', to: '/v1/tasks', summary: 'Your tasks' },
  { from: 'GET /api/job/rest/job/my/:id', to: '/v1/tasks/:id', summary: 'One task' },
  { from: 'GET /api/job/rest/job/my/oneTimeToken', to: '/v1/tasks/downloadToken', summary: 'A one-time link to a task’s file' },
];

/** The public API's route declarations, made from the console's. */
export function publicRoutes(all: RouteDef[]): RouteDef[] {
  return PUBLIC_ROUTES.map(({ from, to, summary }) => {
    const def = all.find((r) => `${r.method} ${fullPath(r)}` === from);
    if (!def) throw new Error(`The public API publishes ${from}, which is not a route.`);
    return { ...def, service: 'public', path: to, summary };
  });
}

/** A call of the public API (the service `public` also holds the console's telemetry, which is not the API). */
export const isPublicApi = (req: FastifyRequest): boolean => !!req.routeOptions.url?.startsWith('/api/public/v1/');

export interface ApiKeyCaller {
  id: string;
  keyId: string;
  orgId: string;
  accountId: string;
}

type KeyRow = { id: string; org_id: string; account_id: string; key: CryptoKey };

const refuse = (key: string, params: Record<string, unknown> = {}) => new ApiError(401, CODES.unauthenticated, params, `errors.${key}`);

/**
 * The key a bearer token is signed with, or why it is refused (401 with its own message): no token, not an RS256 JWT
 * naming its key, an unknown or deleted key, a wrong signature, expired, issued in the future, living too long.
 */
export async function verifyApiToken(db: Db, token: string | null | undefined, cache?: AuthCache<unknown>): Promise<ApiKeyCaller> {
  if (!token) throw refuse('apiTokenMissing');
  let keyId: string;
  try {
    if (decodeProtectedHeader(token).alg !== 'RS256') throw new Error('alg');
    const iss = decodeJwt(token).iss;
    if (typeof iss !== 'string' || !/^[A-Za-z0-9]{16,40}$/.test(iss)) throw new Error('iss');
    keyId = iss;
  } catch {
    throw refuse('apiTokenMalformed');
  }
  const lookUp = async (): Promise<KeyRow | undefined> => {
    const found = await liveApiKey(db, keyId);
    return found && { ...found, key: await importSPKI(found.public_key, 'RS256') };
  };
  // The key's row (and its parsed public key) is remembered briefly: a deleted key stops within a second.
  const row = cache ? ((await cache.through(`api-key|${keyId}`, lookUp)) as KeyRow | undefined) : await lookUp();
  if (!row) throw refuse('apiKeyUnknown', { keyId });
  let claims: { iat?: number; exp?: number };
  try {
    ({ payload: claims } = await jwtVerify(token, row.key, {
      algorithms: ['RS256'],
      issuer: keyId,
      requiredClaims: ['iat', 'exp'],
      clockTolerance: CLOCK_SKEW_SECONDS,
    }));
  } catch (err) {
    if (err instanceof joseErrors.JWTExpired) throw refuse('apiTokenExpired');
    if (err instanceof joseErrors.JWTClaimValidationFailed && err.claim === 'iat') throw refuse('apiTokenFuture');
    if (err instanceof joseErrors.JWTClaimValidationFailed) throw refuse('apiTokenMalformed');
    throw refuse('apiTokenSignature', { keyId });
  }
  const now = Math.floor(Date.now() / 1000);
  if (claims.iat! > now + CLOCK_SKEW_SECONDS) throw refuse('apiTokenFuture');
  if (claims.exp! - claims.iat! > TOKEN_LIFETIME_SECONDS) throw refuse('apiTokenLifetime', { seconds: TOKEN_LIFETIME_SECONDS });
  return { id: row.id, keyId, orgId: row.org_id, accountId: row.account_id };
}

function capped(value: unknown): string | null {
  if (value === undefined || value === null || value === '') return null;
  const s = typeof value === 'string' ? value : Buffer.isBuffer(value) ? value.toString('utf8') : JSON.stringify(value);
  return s.length > LOG_CAP ? `${s.slice(0, LOG_CAP)}…` : s;
}

const SECRET_HEADERS = new Set(['authorization', 'cookie', 'set-cookie', 'proxy-authorization', 'x-api-key']);

/** Every public API call answers with its trace id and is logged once it is answered. */
export const publicApiLog = fp(
  async (app: FastifyInstance) => {
    app.addHook('onRequest', async (req, reply) => {
      if (!isPublicApi(req)) return;
      reply.header('x-trace-id', req.id);
    });
    app.addHook('onSend', async (req, _reply, payload) => {
      if (isPublicApi(req))
        (req as FastifyRequest & { loggedAnswer?: string | null }).loggedAnswer = capped(
          typeof payload === 'string' || Buffer.isBuffer(payload) ? payload : null,
        );
      return payload;
    });
    const calls = new ApiCallLog(app.db, app.log);
    app.decorate('apiCallLog', calls);
    app.addHook('onClose', () => calls.close());
    app.addHook('onResponse', async (req, reply) => {
      if (!isPublicApi(req)) return;
      const caller = req.apiKey;
      // A call no key could be found for belongs to no organisation's log.
      if (!caller) return;
      const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, SECRET_HEADERS.has(k) ? '[redacted]' : v]));
      const method = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'].includes(req.method) ? req.method : 'POST';
      calls.add({
        orgId: caller.orgId,
        apiKeyId: caller.id,
        ip: req.ip,
        traceId: req.id,
        at: new Date(),
        httpCode: reply.statusCode,
        method,
        path: req.url.slice(0, 2000),
        headers,
        body: capped(req.rawBody ?? req.body),
        response: (req as FastifyRequest & { loggedAnswer?: string | null }).loggedAnswer ?? null,
        durationMs: Math.max(0, Math.round(reply.elapsedTime)),
      });
    });
  },
  { name: 'public-api-log' },
);

declare module 'fastify' {
  interface FastifyRequest {
    /** The API key a public API call is signed with (set by authentication). */
    apiKey?: ApiKeyCaller;
  }
  interface FastifyInstance {
    /** The public API's call log, written in batches (call-log.ts). */
    apiCallLog: ApiCallLog;
  }
}
