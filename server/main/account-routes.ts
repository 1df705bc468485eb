/** Accounts of an organisation (SPEC.md section 7): list, detail, status change. */
import { CODES } from '../../common/errors.js';
import { ApiError, notFound } from '../http/api-error.js';
import { audit } from '../http/audit.js';
import { defineRoutes } from '../http/route.js';
import { revokeAllSessions } from '../identity/sessions.js';

const accountSchema = {
  type: 'object',
  properties: {
    id: { type: 'string' }, email: { type: 'string' }, firstName: { type: 'string' }, lastName: { type: 'string' }, role: { type: 'string' },
    locale: { type: 'string' }, status: { type: 'string' }, oversight: { type: 'boolean' }, createdAt: { type: 'string' }, lastSignInAt: { type: ['string', 'null'] },
    loginsCount: { type: 'integer' }, pendingInvite: { type: 'boolean' },
  },
} as const;
const SELECT = `SELECT a.id, a.email, a.first_name AS "firstName", a.last_name AS "lastName", m.role, a.locale, a.status, a.oversight,
                       a.created_at AS "createdAt", a.last_sign_in_at AS "lastSignInAt", a.logins_count AS "loginsCount", m.status = 'pending' AS "pendingInvite"
                  FROM memberships m JOIN accounts a ON a.id = m.account_id`;
const codeParam = { type: 'string', minLength: 1, maxLength: 40 } as const;

export const accountRoutes = defineRoutes([
  {
    service: 'main',
    method: 'GET',
    path: '/partner/:code/accounts',
    permission: { action: 'read', subject: 'account' },
    schema: {
      params: { type: 'object', required: ['code'], additionalProperties: false, properties: { code: codeParam } },
      querystring: {
        type: 'object',
        additionalProperties: false,
        properties: { page: { type: 'integer', minimum: 1, default: 1 }, pageSize: { type: 'integer', minimum: 1, maximum: 100, default: 20 }, search: { type: 'string', maxLength: 254 } },
      },
      response: { type: 'object', properties: { items: { type: 'array', items: accountSchema }, total: { type: 'integer' }, page: { type: 'integer' }, pageSize: { type: 'integer' } } },
    },
    // Only the current organisation's accounts: another code answers 404 (docs/decisions.md).
    handler: async (req) => {
      const auth = req.requireAuth();
      const { code } = req.params as { code: string };
      if (code !== auth.orgCode) throw notFound();
      const { page, pageSize, search } = req.query as { page: number; pageSize: number; search?: string };
      const like = search ? `%${search.replace(/[\\%_]/g, (c) => `\\${c}`).toLowerCase()}%` : null;
      const where = `WHERE m.org_id = $1 AND ($2::text IS NULL OR a.email LIKE $2 OR lower(a.first_name || ' ' || a.last_name) LIKE $2)`;
      const { db } = req.server;
      const total = (await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM memberships m JOIN accounts a ON a.id = m.account_id ${where}`, [auth.orgId, like])).rows[0].n;
      const items = (await db.query(`${SELECT} ${where} ORDER BY a.created_at, a.id LIMIT $3 OFFSET $4`, [auth.orgId, like, pageSize, (page - 1) * pageSize])).rows;
      return { items, total, page, pageSize };
    },
  },
  {
    service: 'main',
    method: 'GET',
    path: '/partner/:code/accounts/:id',
    permission: { action: 'read', subject: 'account' },
    schema: {
      params: { type: 'object', required: ['code', 'id'], additionalProperties: false, properties: { code: codeParam, id: codeParam } },
      response: accountSchema,
    },
    handler: async (req) => {
      const auth = req.requireAuth();
      const { code, id } = req.params as { code: string; id: string };
      if (code !== auth.orgCode) throw notFound();
      const row = (await req.server.db.query(`${SELECT} WHERE m.org_id = $1 AND a.id = $2`, [auth.orgId, id])).rows[0];
      if (!row) throw notFound();
      return row;
    },
  },
  {
    service: 'main',
    method: 'PATCH',
    path: '/change_status/accounts/:id',
    permission: { action: 'changeStatus', subject: 'account' },
    schema: {
      params: { type: 'object', required: ['id'], additionalProperties: false, properties: { id: codeParam } },
      body: { type: 'object', required: ['status'], additionalProperties: false, properties: { status: { type: 'string', enum: ['active', 'disabled'] } } },
      response: accountSchema,
    },
    // Disable or enable a member of the current organisation; a superadmin is out of an admin's reach.
    handler: async (req) => {
      const auth = req.requireAuth();
      const { id } = req.params as { id: string };
      const { status } = req.body as { status: 'active' | 'disabled' };
      return req.server.db.tx(async (q) => {
        const before = (await q.query<{ role: string; status: string }>(`${SELECT} WHERE m.org_id = $1 AND a.id = $2`, [auth.orgId, id])).rows[0];
        if (!before) throw notFound();
        req.authorize('changeStatus', 'account', { role: before.role });
        if (id === auth.accountId) throw new ApiError(400, CODES.orgInsufficientPermission);
        await q.query('UPDATE accounts SET status = $2, updated_at = now() WHERE id = $1', [id, status]);
        if (status === 'disabled') await revokeAllSessions(q, id, 'account disabled');
        await audit(q, req, { action: 'changeStatus', entity: 'account', entityId: id, before: { status: before.status }, after: { status } });
        return (await q.query(`${SELECT} WHERE m.org_id = $1 AND a.id = $2`, [auth.orgId, id])).rows[0];
      });
    },
  },
]);
