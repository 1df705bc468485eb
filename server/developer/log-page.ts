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
export function logRoute<B>(path: string, filters: Record<string, object>, row: object, page: (db: Db, orgId: string, body: B, app: FastifyInstance) => Promise<unknown>): RouteDef {
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

export interface LogQuery {
  /** The table, and the columns as the answer names them. */
  table: string;
  columns: string;
  /** Its time column: the window's and the order's. */
  time: string;
  /** Further conditions, each using $n placeholders numbered from 4 ($1 the organisation, $2 and $3 the window). */
  where: string[];
  params: unknown[];
}

export async function logPage(db: Db, orgId: string, body: { page?: number; pageSize?: number; from?: string; to?: string }, q: LogQuery): Promise<{ items: unknown[]; total: number }> {
  const page = body.page ?? 1;
  const size = body.pageSize ?? 20;
  const where = [`org_id = $1`, `($2::timestamptz IS NULL OR ${q.time} >= $2)`, `($3::timestamptz IS NULL OR ${q.time} <= $3)`, ...q.where].join(' AND ');
  const params = [orgId, body.from ?? null, body.to ?? null, ...q.params];
  const [items, total] = await Promise.all([
    db.query(`SELECT ${q.columns} FROM ${q.table} WHERE ${where} ORDER BY ${q.time} DESC, id DESC LIMIT ${size} OFFSET ${(page - 1) * size}`, params),
    db.query<{ n: string }>(`SELECT count(*) AS n FROM ${q.table} WHERE ${where}`, params),
  ]);
  return { items: items.rows, total: Number(total.rows[0].n) };
}
