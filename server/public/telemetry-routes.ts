/**
 * Page views (SPEC.md section 1: sent to an analytics service) and console error reports, both stored here. Neither
 * needs a token, so neither trusts the caller: a report is filed under the organisation of its genuine token's own
 * membership, an anonymous one under none; bodies are small and the calls limited per client address.
 */
import type { FastifyRequest } from 'fastify';
import { bearerOf } from '../http/context.js';
import { defineRoutes } from '../http/route.js';

/** Telemetry bodies are a path or a message and a little detail: 16 KB is plenty, and refused beyond (413). */
export const TELEMETRY_BODY_LIMIT = 16 * 1024;

interface Reporter {
  accountId: string;
  orgId: string | null;
  orgCode: string | null;
}

/**
 * Who reports: the account of a genuine token (expired or not: a console reports the error that an expiry caused)
 * of a live session, and its organisation: the one partnerCode names if the account is an active member there,
 * else its default. A partnerCode the account has no membership in never files anything under that organisation.
 */
async function reporterOf(req: FastifyRequest): Promise<Reporter | null> {
  const token = bearerOf(req);
  if (!token) return null;
  const v = await req.server.tokens.verify(token, true);
  if (!v.ok) return null;
  const partnerCode = typeof req.headers.partnercode === 'string' && req.headers.partnercode ? req.headers.partnercode.slice(0, 40) : null;
  const r = await req.server.db.query<{ org_id: string | null; code: string | null }>(
    `SELECT m.org_id, m.code
       FROM accounts a
       JOIN sessions s ON s.id = $2 AND s.account_id = a.id AND s.revoked_at IS NULL
       LEFT JOIN LATERAL (
         SELECT m.org_id, o.code FROM memberships m JOIN organisations o ON o.id = m.org_id
          WHERE m.account_id = a.id AND m.status = 'active'
          ORDER BY (o.code = $3::text) DESC NULLS LAST, m.is_default DESC, o.level, o.code
          LIMIT 1
       ) m ON true
      WHERE a.id = $1 AND a.status = 'active'`,
    [v.claims.sub, v.claims.sid, partnerCode],
  );
  const row = r.rows[0];
  return row ? { accountId: v.claims.sub, orgId: row.org_id, orgCode: row.code } : null;
}

export const telemetryRoutes = defineRoutes([
  {
    service: 'public',
    method: 'POST',
    path: '/analytics/pageview',
    permission: 'public',
    rateLimit: 'telemetry',
    bodyLimit: TELEMETRY_BODY_LIMIT,
    schema: {
      body: {
        type: 'object',
        required: ['path'],
        additionalProperties: false,
        properties: { path: { type: 'string', minLength: 1, maxLength: 500 }, referrer: { type: 'string', maxLength: 500 } },
      },
      response: {},
    },
    handler: async (req) => {
      const body = req.body as { path: string; referrer?: string };
      const who = await reporterOf(req);
      await req.server.db.query('INSERT INTO page_views (account_id, org_id, path, language, referrer) VALUES ($1, $2, $3, $4, $5)', [
        who?.accountId ?? null,
        who?.orgId ?? null,
        body.path,
        req.lang,
        body.referrer ?? null,
      ]);
      return null;
    },
  },
  {
    service: 'public',
    method: 'POST',
    path: '/errors',
    permission: 'public',
    rateLimit: 'telemetry',
    bodyLimit: TELEMETRY_BODY_LIMIT,
    schema: {
      body: {
        type: 'object',
        required: ['message'],
        additionalProperties: false,
        properties: {
          message: { type: 'string', minLength: 1, maxLength: 2000 },
          url: { type: 'string', maxLength: 1000 },
          status: { type: 'integer', minimum: 0, maximum: 999 },
          detail: { type: 'object', maxProperties: 30 },
        },
      },
      response: {},
    },
    // The console reports 500s here (SPEC.md section 8); with SENTRY_DSN they also go to that service.
    handler: async (req) => {
      const body = req.body as { message: string; url?: string; status?: number; detail?: object };
      const who = await reporterOf(req);
      await req.server.db.query('INSERT INTO error_reports (account_id, org_id, message, url, status, detail) VALUES ($1, $2, $3, $4, $5, $6)', [
        who?.accountId ?? null,
        who?.orgId ?? null,
        body.message,
        body.url ?? null,
        body.status ?? null,
        body.detail ? JSON.stringify(body.detail) : null,
      ]);
      // Stored first; the outside service is told without making the console wait.
      void req.server.errorSink.send({ message: body.message, url: body.url, status: body.status, accountId: who?.accountId ?? null, orgCode: who?.orgCode ?? null, requestId: req.id });
      return null;
    },
  },
]);
