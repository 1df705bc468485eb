/** Page views (SPEC.md section 1: sent to an analytics service) and console error reports, both stored here. */
import type { FastifyRequest } from 'fastify';
import { defineRoutes } from '../http/route.js';

/** The signed-in account of a request, when its token is valid; telemetry never refuses for want of one. */
async function whoIs(req: FastifyRequest): Promise<string | null> {
  const h = req.headers.authorization;
  if (!h?.startsWith('Bearer ')) return null;
  const v = await req.server.tokens.verify(h.slice(7), true);
  return v.ok ? v.claims.sub : null;
}

const orgOf = (req: FastifyRequest) => {
  const v = req.headers.partnercode;
  return typeof v === 'string' && v ? v.slice(0, 40) : null;
};

export const telemetryRoutes = defineRoutes([
  {
    service: 'public',
    method: 'POST',
    path: '/analytics/pageview',
    permission: 'public',
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
      await req.server.db.query(
        'INSERT INTO page_views (account_id, org_id, path, language, referrer) VALUES ($1, (SELECT id FROM organisations WHERE code = $2), $3, $4, $5)',
        [await whoIs(req), orgOf(req), body.path, req.lang, body.referrer ?? null],
      );
      return null;
    },
  },
  {
    service: 'public',
    method: 'POST',
    path: '/errors',
    permission: 'public',
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
      const accountId = await whoIs(req);
      await req.server.db.query(
        'INSERT INTO error_reports (account_id, org_id, message, url, status, detail) VALUES ($1, (SELECT id FROM organisations WHERE code = $2), $3, $4, $5, $6)',
        [accountId, orgOf(req), body.message, body.url ?? null, body.status ?? null, body.detail ? JSON.stringify(body.detail) : null],
      );
      // Stored first; the outside service is told without making the console wait.
      void req.server.errorSink.send({ message: body.message, url: body.url, status: body.status, accountId, orgCode: orgOf(req), requestId: req.id });
      return null;
    },
  },
]);
