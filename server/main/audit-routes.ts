/** The audit trail, read by admins of the current organisation (the console page comes later). */
import { PAGING_PROPERTIES } from '../../common/limits.js';
import { defineRoutes } from '../http/route.js';

export const auditRoutes = defineRoutes([
  {
    service: 'main',
    method: 'GET',
    path: '/audit/logs',
    permission: { action: 'read', subject: 'audit' },
    schema: {
      querystring: {
        type: 'object',
        additionalProperties: false,
        properties: {
          ...PAGING_PROPERTIES,
          entity: { type: 'string', maxLength: 40 },
          from: { type: 'string', format: 'date-time' },
          to: { type: 'string', format: 'date-time' },
        },
      },
      response: {
        type: 'object',
        properties: {
          items: {
            type: 'array',
            items: {
              type: 'object',
              properties: {
                id: { type: 'string' }, at: { type: 'string' }, accountId: { type: ['string', 'null'] }, email: { type: ['string', 'null'] }, action: { type: 'string' },
                entity: { type: 'string' }, entityId: { type: ['string', 'null'] }, before: {}, after: {}, requestId: { type: ['string', 'null'] },
              },
            },
          },
          total: { type: 'integer' },
        },
      },
    },
    handler: async (req) => {
      const auth = req.requireAuth();
      const { page, pageSize, entity, from, to } = req.query as { page: number; pageSize: number; entity?: string; from?: string; to?: string };
      const params = [auth.orgId, entity ?? null, from ?? null, to ?? null];
      const where = 'WHERE l.org_id = $1 AND ($2::text IS NULL OR l.entity = $2) AND ($3::timestamptz IS NULL OR l.at >= $3) AND ($4::timestamptz IS NULL OR l.at < $4)';
      const { db } = req.server;
      const total = (await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM audit_log l ${where}`, params)).rows[0].n;
      const items = (
        await db.query(
          `SELECT l.id::text AS id, l.at, l.account_id AS "accountId", a.email, l.action, l.entity, l.entity_id AS "entityId", l.before, l.after, l.request_id AS "requestId"
             FROM audit_log l LEFT JOIN accounts a ON a.id = l.account_id ${where} ORDER BY l.at DESC, l.id DESC LIMIT $5 OFFSET $6`,
          [...params, pageSize, (page - 1) * pageSize],
        )
      ).rows;
      return { items, total };
    },
  },
]);
