/**
 * Request limits (ARCHITECTURE.md, "Abuse"): @fastify/rate-limit with its counters where every instance behind a load
 * balancer counts the same calls: in Redis with REDIS_URL (the plugin's own Redis store: one script call per request,
 * nothing written to the database), else in the database (one upsert per call). One fixed window of a minute per
 * caller and group of calls. Over the limit: 429 in the envelope with Retry-After and a message in the caller's
 * language. A counter that cannot be reached lets the call through (docs/decisions.md, "Per-call state in Redis").
 */
import fp from 'fastify-plugin';
import type { Counter } from 'prom-client';
import rateLimit, { normalizeIP } from '@fastify/rate-limit';
import type { FastifyRequest } from 'fastify';
import { CODES } from '../../common/errors.js';
import type { RateLimits } from '../config.js';
import type { Db } from '../db/db.js';
import { ApiError } from './api-error.js';
import { bearerOf } from './context.js';
import { isPublicApi, verifyApiToken } from '../developer/public-api.js';

/** The window every limit counts in; the limits are configured per minute (README: Configuration). */
export const RATE_WINDOW_MS = 60_000;
/** How often an instance deletes the counters of past windows. */
const PRUNE_EVERY_MS = 60_000;

type Group = keyof RateLimits;

/** The group of a call: its route's own (RouteDef.rateLimit), else the API's. */
const groupOf = (req: FastifyRequest): Group => req.routeOptions.config?.routeDef?.rateLimit ?? 'api';

/** API calls only; the health check (load balancers) and the console's files are not counted. */
const counted = (req: FastifyRequest): boolean => {
  const url = req.routeOptions.url;
  return !!url && url.startsWith('/api/') && url !== '/api/health';
};

/**
 * Who a call is counted against: on the API's own limit, the account of a genuine token (expired or not: it still
 * names the account); otherwise, and for the unauthenticated groups, the client address. req.ip is the connection's
 * address unless TRUST_PROXY names the proxy that forwarded the call, so X-Forwarded-For from anyone else changes nothing.
 */
async function callerOf(req: FastifyRequest, group: Group): Promise<string> {
  if (group === 'api' && isPublicApi(req)) {
    // The public API counts per API key; a call whose token does not verify counts against its address.
    const key = await verifyApiToken(req.server.db, bearerOf(req), req.server.authCache).catch(() => null);
    // Verified once per call: authentication takes the key from here.
    if (key) req.apiKey = key;
    if (key) return `api-key:${key.id}`;
  } else if (group === 'api') {
    const token = bearerOf(req);
    const verified = token ? await req.server.tokens.verify(token, true) : null;
    if (verified?.ok) return `account:${verified.claims.sub}`;
  }
  return `address:${normalizeIP(req.ip)}`;
}

/** Count one call of key in its window: the count so far and the milliseconds until the window ends. */
export async function hit(db: Db, key: string, windowMs: number): Promise<{ current: number; ttl: number }> {
  const r = await db.query<{ hits: number; ttl_ms: number }>(
    `INSERT INTO rate_limits AS r (key, hits, reset_at) VALUES ($1, 1, now() + make_interval(secs => $2))
     ON CONFLICT (key) DO UPDATE SET
       hits = CASE WHEN r.reset_at <= now() THEN 1 ELSE r.hits + 1 END,
       reset_at = CASE WHEN r.reset_at <= now() THEN excluded.reset_at ELSE r.reset_at END
     RETURNING r.hits, greatest(0, ceil(extract(epoch FROM r.reset_at - now()) * 1000))::int AS ttl_ms`,
    [key, windowMs / 1000],
  );
  return { current: r.rows[0].hits, ttl: r.rows[0].ttl_ms };
}

/** A store of @fastify/rate-limit (its README, "Custom store") over the rate_limits table. */
function databaseStore(db: Db, onError: (err: Error) => void) {
  let prunedAt = Date.now();
  return class DatabaseStore {
    incr(key: string, cb: (err: Error | null, res?: { current: number; ttl: number }) => void, timeWindow: number): void {
      hit(db, key, timeWindow).then(
        (res) => cb(null, res),
        (err: Error) => cb(err),
      );
      if (Date.now() - prunedAt > PRUNE_EVERY_MS) {
        prunedAt = Date.now();
        db.query("DELETE FROM rate_limits WHERE reset_at < now() - interval '1 minute'").catch(onError);
      }
    }
    child(): DatabaseStore {
      return new DatabaseStore();
    }
  };
}

export default fp(
  async (app) => {
    const limits = app.config.rateLimits;
    await app.register(rateLimit, {
      global: true,
      timeWindow: RATE_WINDOW_MS,
      max: (req) => limits[groupOf(req)],
      keyGenerator: async (req) => (counted(req) ? `${groupOf(req)}:${await callerOf(req, groupOf(req))}` : ''),
      allowList: (req) => !counted(req),
      ...(app.redis
        ? { redis: app.redis, nameSpace: `${app.config.redisPrefix}rate:` }
        : { store: databaseStore(app.db, (err) => app.log.warn({ err }, 'rate limits: pruning failed')) }),
      // A counter that cannot be reached lets the call through: the limits guard against a client's excess, and
      // refusing every call while Redis restarts would be an outage of our own making. (A database that does not
      // answer fails the call anyway.)
      skipOnError: true,
      onExceeded: (req) => void (app.metrics?.getSingleMetric('http_rate_limited_total') as Counter | undefined)?.inc({ group: groupOf(req) }),
      errorResponseBuilder: (_req, ctx) => new ApiError(429, CODES.tooManyRequests, { seconds: Math.max(1, Math.ceil(ctx.ttl / 1000)) }, 'errors.rateLimited'),
    });
  },
  { name: 'rate-limit', dependencies: [] },
);
