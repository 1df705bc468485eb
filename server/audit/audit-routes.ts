/** The audit trail, read by admins of the current organisation (the console page comes later). */
import { pageResponse } from '../http/page-response.js';
import { defineRoutes } from '../http/route.js';
import { NULLABLE_TEXT, pagedQuery, subjectRoutes, typed } from '../http/shapes.js';
import { auditPage, type AuditAsk } from './audit-repo.js';

const route = subjectRoutes('main', 'audit');

export const auditRoutes = defineRoutes([
  route('GET', '/audit/logs', 'read', {
    schema: {
      querystring: pagedQuery({
        entity: { type: 'string', maxLength: 40 },
        from: { type: 'string', format: 'date-time' },
        to: { type: 'string', format: 'date-time' },
      }),
      response: pageResponse(
        typed({
          id: 'string',
          at: 'string',
          accountId: NULLABLE_TEXT,
          email: NULLABLE_TEXT,
          action: 'string',
          entity: 'string',
          entityId: NULLABLE_TEXT,
          before: {},
          after: {},
          requestId: NULLABLE_TEXT,
        }),
      ),
    },
    handler: async (req) => {
      const auth = req.requireAuth();
      return auditPage(req.server.db, auth.orgId, req.query as AuditAsk);
    },
  }),
]);
