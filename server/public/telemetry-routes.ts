/**
 * Page views (SPEC.md section 1: sent to an analytics service) and console error reports, both stored here. Neither
 * needs a token, so neither trusts the caller: a report is filed under the organisation of its genuine token's own
 * membership, an anonymous one under none; bodies are small and the calls limited per client address.
 */
import type { FastifyRequest } from 'fastify';
import { bearerOf } from '../http/context.js';
import { defineRoutes, type RouteDef } from '../http/route.js';
import { insertErrorReport, insertPageView, reportingOrg } from './telemetry-repo.js';

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
  const row = await reportingOrg(req.server.db, v.claims.sub, v.claims.sid, partnerCode);
  return row ? { accountId: v.claims.sub, orgId: row.org_id, orgCode: row.code } : null;
}

/** A telemetry call: public, limited per client address, its body small (TELEMETRY_BODY_LIMIT) and answered with nothing. */
function telemetryRoute(path: string, body: object, handler: RouteDef['handler']): RouteDef {
  return {
    service: 'public',
    method: 'POST',
    path,
    permission: 'public',
    rateLimit: 'telemetry',
    bodyLimit: TELEMETRY_BODY_LIMIT,
    schema: { body, response: {} },
    handler,
  };
}

export const telemetryRoutes = defineRoutes([
  telemetryRoute(
    '/analytics/pageview',
    {
      type: 'object',
      required: ['path'],
      additionalProperties: false,
      properties: { path: { type: 'string', minLength: 1, maxLength: 500 }, referrer: { type: 'string', maxLength: 500 } },
    },
    async (req) => {
      const body = req.body as { path: string; referrer?: string };
      const who = await reporterOf(req);
      await insertPageView(
        req.server.db,
        { accountId: who?.accountId ?? null, orgId: who?.orgId ?? null },
        { path: body.path, language: req.lang, referrer: body.referrer ?? null },
      );
      return null;
    },
  ),
  // The console reports 500s here (SPEC.md section 8); with SENTRY_DSN they also go to that service.
  telemetryRoute(
    '/errors',
    {
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
    async (req) => {
      const body = req.body as { message: string; url?: string; status?: number; detail?: object };
      const who = await reporterOf(req);
      await insertErrorReport(
        req.server.db,
        { accountId: who?.accountId ?? null, orgId: who?.orgId ?? null },
        { message: body.message, url: body.url ?? null, status: body.status ?? null, detail: body.detail ?? null },
      );
      // Stored first; the outside service is told without making the console wait.
      void req.server.errorSink.send({
        message: body.message,
        url: body.url,
        status: body.status,
        accountId: who?.accountId ?? null,
        orgCode: who?.orgCode ?? null,
        requestId: req.id,
      });
      return null;
    },
  ),
]);
