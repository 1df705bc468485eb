/** Invitations (SPEC.md section 7, Identity): invite, accept, sign in from an invitation, revoke, remove members. */
import { CODES } from '../../common/errors.js';
import { translate } from '../../common/i18n.js';
import { EMAIL_PATTERN, isValidPassword, LIMITS, type Language } from '../../common/limits.js';
import { ROLES } from '../../common/roles.js';
import { newId, newSecret, sha256 } from '../db/ids.js';
import { ApiError, invalid, notFound } from '../http/api-error.js';
import { audit } from '../http/audit.js';
import { defineRoutes, pathParams } from '../http/route.js';
import { assertGrantable, assertSeatLeft, memberRole, removeMember } from './members.js';
import { hashPassword } from './passwords.js';
import { membershipsOf, rolesOf, sessionPayload, startSession } from './sessions.js';

/** How long an invitation link stays valid. */
export const INVITE_TTL_DAYS = 7;
const email = { type: 'string', minLength: 3, maxLength: LIMITS.email, pattern: EMAIL_PATTERN } as const;
const personName = { type: 'string', minLength: LIMITS.accountName.min, maxLength: LIMITS.accountName.max, pattern: '\\S' } as const;
const token = { type: 'string', minLength: 20, maxLength: 100 } as const;
const inviteAnswer = { type: 'object', properties: { email: { type: 'string' }, role: { type: 'string' }, orgCode: { type: 'string' }, status: { type: 'string' } } } as const;

export const inviteRoutes = defineRoutes([
  {
    service: 'identity',
    method: 'POST',
    path: '/info/cube/invites',
    permission: { action: 'create', subject: 'account' },
    schema: {
      body: {
        type: 'object',
        required: ['email', 'role'],
        additionalProperties: false,
        properties: { email, firstName: personName, lastName: personName, role: { type: 'string', enum: [...ROLES] }, locale: { type: 'string', enum: ['en-US', 'zh-CN', 'zh-TW', 'es-ES'] } },
      },
      response: inviteAnswer,
    },
    // Invites into the current organisation. An unknown e-mail gets an account without a password,
    // set when the link is followed; a known one gets a pending membership to accept after sign-in.
    handler: async (req) => {
      const auth = req.requireAuth();
      const body = req.body as { email: string; firstName?: string; lastName?: string; role: string; locale?: Language };
      const role = assertGrantable(auth, body.role);
      const mail = body.email.trim().toLowerCase();
      return req.server.db.tx(async (q) => {
        let account = (await q.query<{ id: string; locale: Language }>('SELECT id, locale FROM accounts WHERE email = $1', [mail])).rows[0];
        if (account && (await memberRole(q, auth.orgId, account.id))) throw new ApiError(400, CODES.alreadyMember);
        await assertSeatLeft(q, req, auth);
        if (!account) {
          account = { id: newId(), locale: body.locale ?? req.lang };
          const [first, last] = [body.firstName?.trim() || mail.split('@')[0].slice(0, 30), body.lastName?.trim() || '-'];
          await q.query('INSERT INTO accounts (id, email, first_name, last_name, locale) VALUES ($1, $2, $3, $4, $5)', [account.id, mail, first, last, account.locale]);
        }
        const secret = newSecret();
        await q.query(
          "INSERT INTO memberships (account_id, org_id, role, status, invited_by, invite_token_hash, invited_at) VALUES ($1, $2, $3, 'pending', $4, $5, now())",
          [account.id, auth.orgId, role, auth.accountId, sha256(secret)],
        );
        const link = `/${account.locale}/invite?token=${secret}`;
        await req.server.mailer.send(
          { to: mail, kind: 'invitation', subject: translate(account.locale, 'mail.inviteSubject'), text: translate(account.locale, 'mail.inviteBody', { org: auth.orgCode, role, link, days: INVITE_TTL_DAYS }) },
          q,
        );
        await audit(q, req, { action: 'invite', entity: 'membership', entityId: account.id, after: { email: mail, role, status: 'pending' } });
        return { email: mail, role, orgCode: auth.orgCode, status: 'pending' };
      });
    },
  },
  {
    service: 'identity',
    method: 'POST',
    path: '/accept/info/cube/invites',
    permission: 'signedIn',
    schema: { body: { type: 'object', required: ['token'], additionalProperties: false, properties: { token } }, response: inviteAnswer },
    handler: async (req) => {
      const auth = req.requireAuth();
      const { token: secret } = req.body as { token: string };
      return req.server.db.tx(async (q) => {
        const m = (
          await q.query<{ org_id: string; role: string; code: string }>(
            `UPDATE memberships m SET status = 'active', accepted_at = now(), invite_token_hash = NULL
               FROM organisations o
              WHERE o.id = m.org_id AND m.invite_token_hash = $1 AND m.account_id = $2 AND m.status = 'pending'
                AND m.invited_at > now() - make_interval(days => $3)
              RETURNING m.org_id, m.role, o.code`,
            [sha256(secret), auth.accountId, INVITE_TTL_DAYS],
          )
        ).rows[0];
        if (!m) throw new ApiError(400, CODES.invitationNotFound);
        await audit(q, req, { action: 'acceptInvite', entity: 'membership', entityId: auth.accountId, orgId: m.org_id, before: { status: 'pending' }, after: { status: 'active' } });
        return { email: auth.email, role: m.role, orgCode: m.code, status: 'active' };
      });
    },
  },
  {
    service: 'identity',
    method: 'POST',
    path: '/sso/signin/direct/cube/invited',
    permission: 'public',
    schema: {
      body: { type: 'object', required: ['token', 'password'], additionalProperties: false, properties: { token, password: { type: 'string', minLength: 1, maxLength: 128 }, firstName: personName, lastName: personName } },
      response: {},
    },
    // A new account follows its link: sets its password and name, the invitation is accepted, it is signed in.
    handler: async (req, reply) => {
      const body = req.body as { token: string; password: string; firstName?: string; lastName?: string };
      if (!isValidPassword(body.password)) throw invalid('password', 'password');
      const hash = await hashPassword(body.password);
      return req.server.db.tx(async (q) => {
        const m = (
          await q.query<{ account_id: string; org_id: string }>(
            `SELECT m.account_id, m.org_id FROM memberships m JOIN accounts a ON a.id = m.account_id
              WHERE m.invite_token_hash = $1 AND m.status = 'pending' AND a.password_hash IS NULL
                AND m.invited_at > now() - make_interval(days => $2)`,
            [sha256(body.token), INVITE_TTL_DAYS],
          )
        ).rows[0];
        if (!m) throw new ApiError(400, CODES.invitationNotFound);
        await q.query(
          `UPDATE accounts SET password_hash = $2, password_changed_at = now(), first_name = COALESCE($3, first_name), last_name = COALESCE($4, last_name),
                  logins_count = logins_count + 1, last_sign_in_at = now(), updated_at = now() WHERE id = $1`,
          [m.account_id, hash, body.firstName?.trim() ?? null, body.lastName?.trim() ?? null],
        );
        const hasDefault = await q.query('SELECT 1 FROM memberships WHERE account_id = $1 AND is_default', [m.account_id]);
        await q.query("UPDATE memberships SET status = 'active', accepted_at = now(), invite_token_hash = NULL, is_default = $3 WHERE account_id = $1 AND org_id = $2", [
          m.account_id,
          m.org_id,
          hasDefault.rows.length === 0,
        ]);
        const accessToken = await startSession(req.server, q, reply, m.account_id);
        await audit(q, req, { action: 'acceptInvite', entity: 'membership', entityId: m.account_id, accountId: m.account_id, orgId: m.org_id, before: { status: 'pending' }, after: { status: 'active' } });
        return sessionPayload(q, m.account_id, accessToken, req.server.resources);
      });
    },
  },
  {
    service: 'identity',
    method: 'DELETE',
    path: '/info/cube/invites',
    permission: { action: 'delete', subject: 'account' },
    schema: { querystring: { type: 'object', required: ['email'], additionalProperties: false, properties: { email } }, response: {} },
    // Revoke a pending invitation of the current organisation; an account that only existed for it goes too.
    handler: async (req) => {
      const auth = req.requireAuth();
      const mail = (req.query as { email: string }).email.trim().toLowerCase();
      await req.server.db.tx(async (q) => {
        const gone = await q.query<{ account_id: string; role: string }>(
          `DELETE FROM memberships m USING accounts a WHERE a.id = m.account_id AND a.email = $1 AND m.org_id = $2 AND m.status = 'pending' RETURNING m.account_id, m.role`,
          [mail, auth.orgId],
        );
        const row = gone.rows[0];
        if (!row) throw new ApiError(400, CODES.invitationNotFound);
        await q.query('DELETE FROM accounts a WHERE a.id = $1 AND a.password_hash IS NULL AND NOT EXISTS (SELECT 1 FROM memberships WHERE account_id = a.id)', [row.account_id]);
        await audit(q, req, { action: 'revokeInvite', entity: 'membership', entityId: row.account_id, before: { email: mail, role: row.role, status: 'pending' } });
      });
      return null;
    },
  },
  {
    service: 'identity',
    method: 'DELETE',
    path: '/permission/info/cube/permissions/:a/:b',
    permission: { action: 'delete', subject: 'account' },
    schema: {
      params: pathParams('a', 'b'),
      response: {},
    },
    // Remove account b from organisation a (the current one); a superadmin cannot be removed.
    handler: async (req) => {
      const auth = req.requireAuth();
      const { a, b } = req.params as { a: string; b: string };
      if (a !== auth.orgCode && a !== auth.orgId) throw notFound('organisation', a);
      await req.server.db.tx((q) => removeMember(q, req, b));
      return null;
    },
  },
  {
    service: 'identity',
    method: 'DELETE',
    path: '/permission/info/cube/permissions/:a/:b/batch',
    permission: { action: 'delete', subject: 'account' },
    schema: {
      params: pathParams('a', 'b'),
      body: { type: 'object', required: ['ids'], additionalProperties: false, properties: { ids: { type: 'array', minItems: 1, maxItems: 100, uniqueItems: true, items: { type: 'string', maxLength: 40 } } } },
      response: {},
    },
    // Remove several members of organisation a at once: all of them or none (one superadmin among them refuses the lot).
    handler: async (req) => {
      const auth = req.requireAuth();
      const { a } = req.params as { a: string };
      const { ids } = req.body as { ids: string[] };
      if (a !== auth.orgCode && a !== auth.orgId) throw notFound('organisation', a);
      await req.server.db.tx(async (q) => {
        for (const id of ids) await removeMember(q, req, id);
      });
      return null;
    },
  },
  {
    service: 'identity',
    method: 'PUT',
    path: '/permission/info/cube/:a/current/:b',
    permission: 'signedIn',
    schema: {
      params: pathParams('a', 'b'),
      response: { type: 'object', properties: { defaultOrg: { type: 'string' } } },
    },
    // Account a (oneself only) makes organisation b its default sign-in organisation.
    handler: async (req) => {
      const auth = req.requireAuth();
      const { a, b } = req.params as { a: string; b: string };
      if (a !== auth.accountId) throw new ApiError(403, CODES.permissionDenied);
      await req.server.db.tx(async (q) => {
        const org = (await q.query<{ id: string }>("SELECT o.id FROM organisations o JOIN memberships m ON m.org_id = o.id WHERE m.account_id = $1 AND m.status = 'active' AND o.code = $2", [a, b])).rows[0];
        if (!org) throw notFound('organisation', b);
        const before = (await q.query<{ code: string }>('SELECT o.code FROM memberships m JOIN organisations o ON o.id = m.org_id WHERE m.account_id = $1 AND m.is_default', [a])).rows[0];
        await q.query('UPDATE memberships SET is_default = false WHERE account_id = $1 AND is_default', [a]);
        await q.query('UPDATE memberships SET is_default = true WHERE account_id = $1 AND org_id = $2', [a, org.id]);
        await audit(q, req, { action: 'setDefaultOrg', entity: 'account', entityId: a, before: { defaultOrg: before?.code ?? null }, after: { defaultOrg: b } });
      });
      return { defaultOrg: b };
    },
  },
  {
    service: 'identity',
    method: 'PUT',
    path: '/permission/info/cube/permissions/name',
    permission: 'signedIn',
    schema: {
      body: { type: 'object', minProperties: 1, additionalProperties: false, properties: { firstName: personName, lastName: personName } },
      response: { type: 'object', properties: { name: { type: 'string' } } },
    },
    // The signed-in account renames itself (the Profile page).
    handler: async (req) => {
      const auth = req.requireAuth();
      const body = req.body as { firstName?: string; lastName?: string };
      return req.server.db.tx(async (q) => {
        const before = (await q.query<{ first_name: string; last_name: string }>('SELECT first_name, last_name FROM accounts WHERE id = $1', [auth.accountId])).rows[0];
        const r = await q.query<{ first_name: string; last_name: string }>(
          'UPDATE accounts SET first_name = COALESCE($2, first_name), last_name = COALESCE($3, last_name), updated_at = now() WHERE id = $1 RETURNING first_name, last_name',
          [auth.accountId, body.firstName?.trim() ?? null, body.lastName?.trim() ?? null],
        );
        await audit(q, req, { action: 'rename', entity: 'account', entityId: auth.accountId, before, after: r.rows[0] });
        return { name: `${r.rows[0].first_name} ${r.rows[0].last_name}` };
      });
    },
  },
  {
    service: 'identity',
    method: 'PUT',
    path: '/permission/info/cube/permission/refresh',
    permission: 'signedIn',
    schema: {
      response: {
        type: 'object',
        properties: { role: { type: 'string' }, partner_code: { type: 'string' }, permissions: { type: 'array', items: {} }, roles: { type: 'array', items: {} } },
      },
    },
    // The rules of the current organisation and the organisation list as they are now (after a role change, a new
    // or lost membership, or an organisation switch).
    handler: async (req) => {
      const auth = req.requireAuth();
      return { role: auth.role, partner_code: auth.orgCode, permissions: auth.rules, roles: rolesOf(await membershipsOf(req.server.db, auth.accountId)) };
    },
  },
]);
