/** Accounts of an organisation (SPEC.md section 7): list, detail, status change. */
import { CODES } from '../../common/errors.js';
import { generatePassword } from '../../common/passwords.js';
import { RESOURCES } from '../../common/resource-registry.js';
import { createBodySchema, formBodySchema } from '../../common/resources.js';
import { translate } from '../../common/i18n.js';
import { isValidPassword, PAGING_PROPERTIES, type Language } from '../../common/limits.js';
import { asRole } from '../../common/roles.js';
import { newId } from '../db/ids.js';
import { ApiError, invalid, notFound } from '../http/api-error.js';
import { audit } from '../http/audit.js';
import { defineRoutes, pathParams } from '../http/route.js';
import { assertGrantable, assertSeatLeft } from '../identity/members.js';
import { hashPassword } from '../identity/passwords.js';
import { revokeAllSessions } from '../identity/sessions.js';
import { reachOver } from './account-reach.js';
import { PAGE_NUMBERS, pageResponse } from '../http/page-response.js';


const nullableString = { type: ['string', 'null'] } as const;
const accountSchema = {
  type: 'object',
  properties: {
    id: { type: 'string' }, email: { type: 'string' }, firstName: nullableString, lastName: nullableString, role: { type: 'string' },
    locale: nullableString, status: { type: 'string' }, oversight: { type: 'boolean' }, createdAt: nullableString, lastSignInAt: nullableString,
    loginsCount: { type: ['integer', 'null'] }, pendingInvite: { type: 'boolean' }, invitedAt: nullableString,
  },
} as const;
/**
 * An account as the current organisation sees it. Until an invitation is accepted the person is not a member: the
 * inviting organisation sees the e-mail address it typed and its own invitation (state "invited", when sent, the role
 * offered), never the account's names, language, status, activity or age, which may belong to another customer's
 * member (docs/decisions.md).
 */
const PENDING = "m.status = 'pending'";
const SELECT = `SELECT a.id, a.email, CASE WHEN ${PENDING} THEN NULL ELSE a.first_name END AS "firstName", CASE WHEN ${PENDING} THEN NULL ELSE a.last_name END AS "lastName",
                       m.role, CASE WHEN ${PENDING} THEN NULL ELSE a.locale END AS locale, CASE WHEN ${PENDING} THEN 'invited' ELSE a.status END AS status,
                       CASE WHEN ${PENDING} THEN false ELSE a.oversight END AS oversight, CASE WHEN ${PENDING} THEN NULL ELSE a.created_at END AS "createdAt",
                       CASE WHEN ${PENDING} THEN NULL ELSE a.last_sign_in_at END AS "lastSignInAt", CASE WHEN ${PENDING} THEN NULL ELSE a.logins_count END AS "loginsCount",
                       ${PENDING} AS "pendingInvite", CASE WHEN ${PENDING} THEN m.invited_at END AS "invitedAt"
                  FROM memberships m JOIN accounts a ON a.id = m.account_id`;

/** The account's status, password and oversight are the person's: an invitee's are not the inviting organisation's to change. */
function assertMember(row: { pendingInvite: boolean }): void {
  if (row.pendingInvite) throw new ApiError(403, CODES.orgInsufficientPermission);
}

export const accountRoutes = defineRoutes([
  {
    service: 'main',
    method: 'GET',
    path: '/partner/:code/accounts',
    permission: { action: 'read', subject: 'account' },
    schema: {
      params: pathParams('code'),
      querystring: {
        type: 'object',
        additionalProperties: false,
        properties: { ...PAGING_PROPERTIES, search: { type: 'string', maxLength: 254 } },
      },
      response: pageResponse(accountSchema, PAGE_NUMBERS),
    },
    // Only the current organisation's accounts: another code answers 404 (docs/decisions.md).
    handler: async (req) => {
      const auth = req.requireAuth();
      const { code } = req.params as { code: string };
      if (code !== auth.orgCode) throw notFound('organisation', code);
      const { page, pageSize, search } = req.query as { page: number; pageSize: number; search?: string };
      const like = search ? `%${search.replace(/[\\%_]/g, (c) => `\\${c}`).toLowerCase()}%` : null;
      // An invitee's names are not searchable either: a match would tell them.
      const where = `WHERE m.org_id = $1 AND ($2::text IS NULL OR a.email LIKE $2 OR (NOT ${PENDING} AND lower(a.first_name || ' ' || a.last_name) LIKE $2))`;
      const { db } = req.server;
      const total = (await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM memberships m JOIN accounts a ON a.id = m.account_id ${where}`, [auth.orgId, like])).rows[0].n;
      const items = (await db.query(`${SELECT} ${where} ORDER BY CASE WHEN ${PENDING} THEN m.invited_at ELSE a.created_at END, a.id LIMIT $3 OFFSET $4`, [auth.orgId, like, pageSize, (page - 1) * pageSize])).rows;
      return { items, total, page, pageSize };
    },
  },
  {
    service: 'main',
    method: 'GET',
    path: '/partner/:code/accounts/:id',
    permission: { action: 'read', subject: 'account' },
    schema: {
      params: pathParams('code', 'id'),
      response: accountSchema,
    },
    handler: async (req) => {
      const auth = req.requireAuth();
      const { code, id } = req.params as { code: string; id: string };
      if (code !== auth.orgCode) throw notFound('organisation', code);
      const row = (await req.server.db.query(`${SELECT} WHERE m.org_id = $1 AND a.id = $2`, [auth.orgId, id])).rows[0];
      if (!row) throw notFound('account', id);
      return row;
    },
  },
  {
    service: 'main',
    method: 'POST',
    path: '/accounts',
    permission: { action: 'create', subject: 'account' },
    schema: {
      // The fields and rules of schemas/accounts.json's create form (New account), the same the console's form reads.
      body: createBodySchema(RESOURCES.accounts),
      response: accountSchema,
    },
    // A new account with a password, active at once in the current organisation. A known e-mail is invited instead.
    handler: async (req) => {
      const auth = req.requireAuth();
      const body = req.body as { email: string; firstName: string; lastName: string; role: string; password: string; locale?: Language };
      const role = assertGrantable(auth, body.role);
      if (!isValidPassword(body.password)) throw invalid('password', 'password');
      const mail = body.email.trim().toLowerCase();
      const hash = await hashPassword(body.password);
      return req.server.db.tx(async (q) => {
        if ((await q.query('SELECT 1 FROM accounts WHERE email = $1', [mail])).rows.length) throw new ApiError(400, CODES.accountAlreadyRegistered);
        await assertSeatLeft(q, req, auth);
        const id = newId();
        await q.query('INSERT INTO accounts (id, email, first_name, last_name, password_hash, locale, password_changed_at) VALUES ($1, $2, $3, $4, $5, $6, now())', [
          id, mail, body.firstName.trim(), body.lastName.trim(), hash, body.locale ?? req.lang,
        ]);
        await q.query("INSERT INTO memberships (account_id, org_id, role, is_default, status, accepted_at) VALUES ($1, $2, $3, true, 'active', now())", [id, auth.orgId, role]);
        const row = (await q.query(`${SELECT} WHERE m.org_id = $1 AND a.id = $2`, [auth.orgId, id])).rows[0];
        await audit(q, req, { action: 'create', entity: 'account', entityId: id, after: row });
        return row;
      });
    },
  },
  {
    service: 'main',
    method: 'PUT',
    path: '/accounts/:id',
    permission: { action: 'update', subject: 'account' },
    schema: {
      params: pathParams('id'),
      // schemas/accounts.json's edit form; any of its fields, at least one.
      body: { ...formBodySchema(RESOURCES.accounts, 'edit'), required: [], minProperties: 1 },
      response: accountSchema,
    },
    // Names and language of a member; changing the role needs updateAccess and never reaches above one's own.
    handler: async (req) => {
      const auth = req.requireAuth();
      const { id } = req.params as { id: string };
      const body = req.body as { firstName?: string; lastName?: string; locale?: string; role?: string };
      return req.server.db.tx(async (q) => {
        const before = (await q.query<Record<string, unknown> & { role: string; pendingInvite: boolean }>(`${SELECT} WHERE m.org_id = $1 AND a.id = $2`, [auth.orgId, id])).rows[0];
        if (!before) throw notFound('account', id);
        // An invitation is managed as an invitation: the role offered, judged by that role. The person's account (names,
        // language) and their other organisations stay out of reach, and out of sight, until they accept.
        const reach = before.pendingInvite ? { topRole: asRole(before.role), everywhere: false } : await reachOver(q, auth, id, 'update');
        req.authorize('update', 'account', { role: reach.topRole });
        // Names and language are the account's own, shared by all its organisations; the role is this membership's.
        const accountWide = body.firstName !== undefined || body.lastName !== undefined || body.locale !== undefined;
        if (accountWide && !reach.everywhere) throw new ApiError(403, CODES.orgInsufficientPermission);
        if (body.role && body.role !== before.role) {
          req.authorize('updateAccess', 'account', { role: reach.topRole });
          assertGrantable(auth, body.role);
          if (id === auth.accountId) throw new ApiError(400, CODES.orgInsufficientPermission);
          await q.query('UPDATE memberships SET role = $3 WHERE org_id = $1 AND account_id = $2', [auth.orgId, id, body.role]);
        }
        // Only when the account's own fields change: a role change (an invitation's included) leaves the person's row alone.
        if (accountWide) {
          await q.query(
            'UPDATE accounts SET first_name = COALESCE($2, first_name), last_name = COALESCE($3, last_name), locale = COALESCE($4, locale), updated_at = now() WHERE id = $1',
            [id, body.firstName?.trim() ?? null, body.lastName?.trim() ?? null, body.locale ?? null],
          );
        }
        const after = (await q.query(`${SELECT} WHERE m.org_id = $1 AND a.id = $2`, [auth.orgId, id])).rows[0];
        await audit(q, req, { action: 'update', entity: 'account', entityId: id, before, after });
        return after;
      });
    },
  },
  {
    service: 'main',
    method: 'PUT',
    path: '/accounts/oversight/:id',
    permission: { action: 'grantOversight', subject: 'account' },
    schema: {
      params: pathParams('id'),
      body: { type: 'object', required: ['oversight'], additionalProperties: false, properties: { oversight: { type: 'boolean' } } },
      response: accountSchema,
    },
    // Oversight belongs to accounts of a first-level organisation (SPEC.md section 6).
    handler: async (req) => {
      const auth = req.requireAuth();
      const { id } = req.params as { id: string };
      const { oversight } = req.body as { oversight: boolean };
      if (auth.orgLevel !== 1) throw new ApiError(403, CODES.orgInsufficientPermission);
      return req.server.db.tx(async (q) => {
        const before = (await q.query<{ role: string; oversight: boolean; pendingInvite: boolean }>(`${SELECT} WHERE m.org_id = $1 AND a.id = $2`, [auth.orgId, id])).rows[0];
        if (!before) throw notFound('account', id);
        assertMember(before);
        const reach = await reachOver(q, auth, id, 'grantOversight');
        req.authorize('grantOversight', 'account', { role: reach.topRole });
        if (!reach.everywhere) throw new ApiError(403, CODES.orgInsufficientPermission);
        await q.query('UPDATE accounts SET oversight = $2, updated_at = now() WHERE id = $1', [id, oversight]);
        await audit(q, req, { action: 'grantOversight', entity: 'account', entityId: id, before: { oversight: before.oversight }, after: { oversight } });
        return (await q.query(`${SELECT} WHERE m.org_id = $1 AND a.id = $2`, [auth.orgId, id])).rows[0];
      });
    },
  },
  {
    service: 'main',
    method: 'PATCH',
    path: '/reset_password/accounts/:id',
    permission: { action: 'resetPassword', subject: 'account' },
    schema: { params: pathParams('id'), response: {} },
    // A generated password is mailed to the member; every session of theirs ends.
    handler: async (req) => {
      const auth = req.requireAuth();
      const { id } = req.params as { id: string };
      const password = generatePassword();
      const hash = await hashPassword(password);
      await req.server.db.tx(async (q) => {
        const target = (
          await q.query<{ email: string; locale: Language; pendingInvite: boolean }>(
            `SELECT a.email, a.locale, ${PENDING} AS "pendingInvite" FROM memberships m JOIN accounts a ON a.id = m.account_id WHERE m.org_id = $1 AND a.id = $2`,
            [auth.orgId, id],
          )
        ).rows[0];
        if (!target) throw notFound('account', id);
        assertMember(target);
        const reach = await reachOver(q, auth, id, 'resetPassword');
        req.authorize('resetPassword', 'account', { role: reach.topRole });
        if (!reach.everywhere) throw new ApiError(403, CODES.orgInsufficientPermission);
        await q.query('UPDATE accounts SET password_hash = $2, password_changed_at = now(), updated_at = now() WHERE id = $1', [id, hash]);
        await revokeAllSessions(q, id, 'password reset by admin');
        await req.server.mailer.send({ to: target.email, kind: 'notice', subject: translate(target.locale, 'mail.newPasswordSubject'), text: translate(target.locale, 'mail.newPasswordBody', { password }) }, q);
        await audit(q, req, { action: 'resetPassword', entity: 'account', entityId: id });
      });
      return null;
    },
  },
  {
    service: 'main',
    method: 'GET',
    path: '/accounts/:id/partners',
    permission: { action: 'read', subject: 'account' },
    schema: {
      params: pathParams('id'),
      response: { type: 'array', items: { type: 'object', properties: { code: { type: 'string' }, name: { type: 'string' }, role: { type: 'string' }, pending_invitation: { type: 'boolean' } } } },
    },
    // The organisations a member of mine belongs to, limited to those I belong to as well.
    handler: async (req) => {
      const auth = req.requireAuth();
      const { id } = req.params as { id: string };
      const r = await req.server.db.query(
        `SELECT o.code, o.name, m.role, m.status = 'pending' AS pending_invitation
           FROM memberships m JOIN organisations o ON o.id = m.org_id
          WHERE m.account_id = $1 AND EXISTS (SELECT 1 FROM memberships mine WHERE mine.account_id = $2 AND mine.org_id = m.org_id AND mine.status = 'active')
          ORDER BY o.level, o.name`,
        [id, auth.accountId],
      );
      if (!(await req.server.db.query('SELECT 1 FROM memberships WHERE org_id = $1 AND account_id = $2', [auth.orgId, id])).rows.length) throw notFound('account', id);
      return r.rows;
    },
  },
  {
    service: 'main',
    method: 'PATCH',
    path: '/change_status/accounts/:id',
    permission: { action: 'changeStatus', subject: 'account' },
    schema: {
      params: pathParams('id'),
      body: { type: 'object', required: ['status'], additionalProperties: false, properties: { status: { type: 'string', enum: ['active', 'disabled'] } } },
      response: accountSchema,
    },
    // Disable or enable a member of the current organisation; a superadmin is out of an admin's reach.
    handler: async (req) => {
      const auth = req.requireAuth();
      const { id } = req.params as { id: string };
      const { status } = req.body as { status: 'active' | 'disabled' };
      return req.server.db.tx(async (q) => {
        const before = (await q.query<{ role: string; status: string; pendingInvite: boolean }>(`${SELECT} WHERE m.org_id = $1 AND a.id = $2`, [auth.orgId, id])).rows[0];
        if (!before) throw notFound('account', id);
        assertMember(before);
        const reach = await reachOver(q, auth, id, 'changeStatus');
        req.authorize('changeStatus', 'account', { role: reach.topRole });
        if (!reach.everywhere) throw new ApiError(403, CODES.orgInsufficientPermission);
        if (id === auth.accountId) throw new ApiError(400, CODES.orgInsufficientPermission);
        await q.query('UPDATE accounts SET status = $2, updated_at = now() WHERE id = $1', [id, status]);
        if (status === 'disabled') await revokeAllSessions(q, id, 'account disabled');
        await audit(q, req, { action: 'changeStatus', entity: 'account', entityId: id, before: { status: before.status }, after: { status } });
        return (await q.query(`${SELECT} WHERE m.org_id = $1 AND a.id = $2`, [auth.orgId, id])).rows[0];
      });
    },
  },
]);
