/** Invitations (SPEC.md section 7, Identity): invite, accept, sign in from an invitation, revoke, remove members. */
import { CODES } from '../../common/errors.js';
import { translate } from '../../common/i18n.js';
import { EMAIL_PATTERN, isValidPassword, LIMITS, type Language } from '../../common/limits.js';
import { ROLES } from '../../common/roles.js';
import { newId, newSecret, sha256 } from '../db/ids.js';
import { ApiError, invalid, notFound } from '../http/api-error.js';
import { audit } from '../http/audit.js';
import { defineRoutes, pathParams } from '../http/route.js';
import { arrayOf, obj, serviceRoutes, typed } from '../http/shapes.js';
import { assertGrantable, assertSeatLeft, removeMember } from './members.js';
import { memberRole } from '../org/org-repo.js';
import { hashPassword } from './passwords.js';
import {
  acceptOwnInvitation,
  accountByEmail,
  activateInvitedMembership,
  activeOrgIdByCode,
  completeInvitedAccount,
  deleteInvitation,
  insertInvitation,
  insertInvitedAccount,
  invitationOfNewAccount,
  renameAccount,
  setDefaultOrg,
} from './invite-repo.js';
import { membershipsOf, rolesOf, sessionPayload, startSession } from './sessions.js';

/** How long an invitation link stays valid. */
export const INVITE_TTL_DAYS = 7;
const email = { type: 'string', minLength: 3, maxLength: LIMITS.email, pattern: EMAIL_PATTERN } as const;
const personName = { type: 'string', minLength: LIMITS.accountName.min, maxLength: LIMITS.accountName.max, pattern: '\\S' } as const;
const token = { type: 'string', minLength: 20, maxLength: 100 } as const;
const inviteAnswer = typed({ email: 'string', role: 'string', orgCode: 'string', status: 'string' });
const route = serviceRoutes('identity');
const onAccounts = (action: 'create' | 'delete') => ({ action, subject: 'account' }) as const;
const A_B = pathParams('a', 'b');

export const inviteRoutes = defineRoutes([
  route('POST', '/info/cube/invites', onAccounts('create'), {
    schema: {
      body: obj(
        {
          email,
          firstName: personName,
          lastName: personName,
          role: { type: 'string', enum: [...ROLES] },
          locale: { type: 'string', enum: ['en-US', 'zh-CN', 'zh-TW', 'es-ES'] },
        },
        ['email', 'role'],
      ),
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
        let account = await accountByEmail(q, mail);
        if (account && (await memberRole(q, auth.orgId, account.id))) throw new ApiError(400, CODES.alreadyMember);
        await assertSeatLeft(q, req, auth);
        if (!account) {
          account = { id: newId(), locale: body.locale ?? req.lang };
          const [first, last] = [body.firstName?.trim() || mail.split('@')[0].slice(0, 30), body.lastName?.trim() || '-'];
          await insertInvitedAccount(q, { id: account.id, email: mail, firstName: first, lastName: last, locale: account.locale });
        }
        const secret = newSecret();
        await insertInvitation(q, { accountId: account.id, orgId: auth.orgId, role, invitedBy: auth.accountId, tokenHash: sha256(secret) });
        const link = `/${account.locale}/invite?token=${secret}`;
        await req.server.mailer.send(
          {
            to: mail,
            kind: 'invitation',
            subject: translate(account.locale, 'mail.inviteSubject'),
            text: translate(account.locale, 'mail.inviteBody', { org: auth.orgCode, role, link, days: INVITE_TTL_DAYS }),
          },
          q,
        );
        await audit(q, req, { action: 'invite', entity: 'membership', entityId: account.id, after: { email: mail, role, status: 'pending' } });
        return { email: mail, role, orgCode: auth.orgCode, status: 'pending' };
      });
    },
  }),
  route('POST', '/accept/info/cube/invites', 'signedIn', {
    schema: { body: obj({ token }, ['token']), response: inviteAnswer },
    handler: async (req) => {
      const auth = req.requireAuth();
      const { token: secret } = req.body as { token: string };
      return req.server.db.tx(async (q) => {
        const m = await acceptOwnInvitation(q, sha256(secret), auth.accountId, INVITE_TTL_DAYS);
        if (!m) throw new ApiError(400, CODES.invitationNotFound);
        await audit(q, req, {
          action: 'acceptInvite',
          entity: 'membership',
          entityId: auth.accountId,
          orgId: m.org_id,
          before: { status: 'pending' },
          after: { status: 'active' },
        });
        return { email: auth.email, role: m.role, orgCode: m.code, status: 'active' };
      });
    },
  }),
  route('POST', '/sso/signin/direct/cube/invited', 'public', {
    schema: {
      body: obj({ token, password: { type: 'string', minLength: 1, maxLength: 128 }, firstName: personName, lastName: personName }, ['token', 'password']),
      response: {},
    },
    // A new account follows its link: sets its password and name, the invitation is accepted, it is signed in.
    handler: async (req, reply) => {
      const body = req.body as { token: string; password: string; firstName?: string; lastName?: string };
      if (!isValidPassword(body.password)) throw invalid('password', 'password');
      const hash = await hashPassword(body.password);
      return req.server.db.tx(async (q) => {
        const m = await invitationOfNewAccount(q, sha256(body.token), INVITE_TTL_DAYS);
        if (!m) throw new ApiError(400, CODES.invitationNotFound);
        await completeInvitedAccount(q, m.account_id, hash, body.firstName?.trim() ?? null, body.lastName?.trim() ?? null);
        await activateInvitedMembership(q, m.account_id, m.org_id);
        const accessToken = await startSession(req.server, q, reply, m.account_id);
        await audit(q, req, {
          action: 'acceptInvite',
          entity: 'membership',
          entityId: m.account_id,
          accountId: m.account_id,
          orgId: m.org_id,
          before: { status: 'pending' },
          after: { status: 'active' },
        });
        return sessionPayload(q, m.account_id, accessToken, req.server.resources);
      });
    },
  }),
  route('DELETE', '/info/cube/invites', onAccounts('delete'), {
    schema: { querystring: obj({ email }, ['email']), response: {} },
    // Revoke a pending invitation of the current organisation; an account that only existed for it goes too.
    handler: async (req) => {
      const auth = req.requireAuth();
      const mail = (req.query as { email: string }).email.trim().toLowerCase();
      await req.server.db.tx(async (q) => {
        const row = await deleteInvitation(q, mail, auth.orgId);
        if (!row) throw new ApiError(400, CODES.invitationNotFound);
        await audit(q, req, {
          action: 'revokeInvite',
          entity: 'membership',
          entityId: row.account_id,
          before: { email: mail, role: row.role, status: 'pending' },
        });
      });
      return null;
    },
  }),
  route('DELETE', '/permission/info/cube/permissions/:a/:b', onAccounts('delete'), {
    schema: { params: A_B, response: {} },
    // Remove account b from organisation a (the current one); a superadmin cannot be removed.
    handler: async (req) => {
      const auth = req.requireAuth();
      const { a, b } = req.params as { a: string; b: string };
      if (a !== auth.orgCode && a !== auth.orgId) throw notFound('organisation', a);
      await req.server.db.tx((q) => removeMember(q, req, b));
      return null;
    },
  }),
  route('DELETE', '/permission/info/cube/permissions/:a/:b/batch', onAccounts('delete'), {
    schema: {
      params: A_B,
      body: obj({ ids: { ...arrayOf({ type: 'string', maxLength: 40 }), minItems: 1, maxItems: 100, uniqueItems: true } }, ['ids']),
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
  }),
  route('PUT', '/permission/info/cube/:a/current/:b', 'signedIn', {
    schema: { params: A_B, response: typed({ defaultOrg: 'string' }) },
    // Account a (oneself only) makes organisation b its default sign-in organisation.
    handler: async (req) => {
      const auth = req.requireAuth();
      const { a, b } = req.params as { a: string; b: string };
      if (a !== auth.accountId) throw new ApiError(403, CODES.permissionDenied);
      await req.server.db.tx(async (q) => {
        const orgId = await activeOrgIdByCode(q, a, b);
        if (!orgId) throw notFound('organisation', b);
        const before = await setDefaultOrg(q, a, orgId);
        await audit(q, req, { action: 'setDefaultOrg', entity: 'account', entityId: a, before: { defaultOrg: before }, after: { defaultOrg: b } });
      });
      return { defaultOrg: b };
    },
  }),
  route('PUT', '/permission/info/cube/permissions/name', 'signedIn', {
    schema: { body: { ...obj({ firstName: personName, lastName: personName }), minProperties: 1 }, response: typed({ name: 'string' }) },
    // The signed-in account renames itself (the Profile page).
    handler: async (req) => {
      const auth = req.requireAuth();
      const body = req.body as { firstName?: string; lastName?: string };
      return req.server.db.tx(async (q) => {
        const { before, after } = await renameAccount(q, auth.accountId, body.firstName?.trim() ?? null, body.lastName?.trim() ?? null);
        await audit(q, req, { action: 'rename', entity: 'account', entityId: auth.accountId, before, after });
        return { name: `${after.first_name} ${after.last_name}` };
      });
    },
  }),
  route('PUT', '/permission/info/cube/permission/refresh', 'signedIn', {
    schema: { response: typed({ role: 'string', partner_code: 'string', permissions: arrayOf({}), roles: arrayOf({}) }) },
    // The rules of the current organisation and the organisation list as they are now (after a role change, a new
    // or lost membership, or an organisation switch).
    handler: async (req) => {
      const auth = req.requireAuth();
      return { role: auth.role, partner_code: auth.orgCode, permissions: auth.rules, roles: rolesOf(await membershipsOf(req.server.db, auth.accountId)) };
    },
  }),
]);
