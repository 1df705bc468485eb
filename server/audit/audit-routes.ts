/** The audit trail, read by admins of the current organisation (the console page comes later). */
import { PAGING_PROPERTIES } from '../../common/limits.js';
import { pageResponse } from '../http/page-response.js';
import { defineRoutes } from '../http/route.js';
import { auditPage, type AuditAsk } from './audit-repo.js';

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
      response: pageResponse({
        type: 'object',
        properties: {
          id: { type: 'string' }, at: { type: 'string' }, accountId: { type: ['string', 'null'] }, email: { type: ['string', 'null'] }, action: { type: 'string' },
          entity: { type: 'string' }, entityId: { type: ['string', 'null'] }, before: {}, after: {}, requestId: { type: ['string', 'null'] },
        },
      }),
    },
    handler: async (req) => {
      const auth = req.requireAuth();
      return auditPage(req.server.db, auth.orgId, req.query as AuditAsk);
    },
  },
]);
