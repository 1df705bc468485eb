/**
 * One page of a developer log (the API log, the notification log): the organisation's rows in a time window with
 * equality filters, newest first, with the total. Both log calls take the same paging and window fields.
 */
import { PAGING_PROPERTIES } from '../../common/limits.js';
import type { FastifyInstance } from 'fastify';
import type { Db } from '../db/db.js';
import { pageResponse } from '../http/page-response.js';
import type { RouteDef } from '../http/route.js';
import { obj, subjectRoutes } from '../http/shapes.js';

/** The paging and window fields of a log call's body. */
export const LOG_PAGE_FIELDS = {
  ...PAGING_PROPERTIES,
  from: { type: 'string', format: 'date-time', maxLength: 40 },
  to: { type: 'string', format: 'date-time', maxLength: 40 },
} as const;

/**
 * A log call: POST `path` with the paging and window fields and these filters, under the developer key's read right,
 * answered with a page of these rows read by `page`.
 */
export function logRoute<B>(
  path: string,
  filters: Record<string, object>,
  row: object,
  page: (db: Db, orgId: string, body: B, app: FastifyInstance) => Promise<unknown>,
): RouteDef {
  return subjectRoutes('main', 'cube-developer-key')('POST', path, 'read', {
    schema: { body: obj({ ...LOG_PAGE_FIELDS, ...filters }), response: pageResponse(row) },
    handler: async (req) => {
      const auth = req.requireAuth();
      return page(req.server.db, auth.orgId, (req.body ?? {}) as B, req.server);
    },
  });
}

/** A filter by a delivery's or a call's HTTP status. */
export const HTTP_CODE = { type: 'integer', minimum: 100, maximum: 599 } as const;
