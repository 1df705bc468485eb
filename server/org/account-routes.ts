/** Accounts of an organisation (SPEC.md section 7): list, detail, status change. */
import type { FastifyRequest } from 'fastify';
import { CODES } from '../../common/errors.js';
import { ACCOUNT_WIDE } from '../../common/permissions.js';
import { generatePassword } from '../../common/passwords.js';
import { RESOURCES } from '../../common/resource-registry.js';
import { createBodySchema, formBodySchema } from '../../common/resources.js';
import { translate } from '../../common/i18n.js';
import { isValidPassword, type Language } from '../../common/limits.js';
import { newId } from '../db/ids.js';
import { ApiError, invalid, notFound } from '../http/api-error.js';
import { audit } from '../http/audit.js';
import { allows } from '../http/context.js';
import { defineRoutes, pathParams } from '../http/route.js';
import { arrayOf, ID_PARAMS, NULLABLE_TEXT, obj, pagedQuery, subjectRoutes, typed } from '../http/shapes.js';
import { assertGrantable, assertSeatLeft } from '../identity/members.js';
import { hashPassword } from '../identity/passwords.js';
import { revokeAllSessions } from '../identity/sessions.js';
import {
  accountIn,
  accountPage,
  accountSubject,
  accountSubjects,
  type AccountView,
  emailTaken,
  insertAccount,
  mailTarget,
  setMemberRole,
  setOversight,
  setPassword,
  setStatus,
  sharedOrgs,
  updateProfile,
} from './account-repo.js';
import { PAGE_NUMBERS, pageResponse } from '../http/page-response.js';
import type { Queryable } from '../db/db.js';

const accountSchema = typed({
  id: 'string',
  email: 'string',
  firstName: NULLABLE_TEXT,
  lastName: NULLABLE_TEXT,
  role: 'string',
  locale: NULLABLE_TEXT,
  status: 'string',
  oversight: 'boolean',
  createdAt: NULLABLE_TEXT,
  lastSignInAt: NULLABLE_TEXT,
  loginsCount: ['integer', 'null'],
  pendingInvite: 'boolean',
  invitedAt: NULLABLE_TEXT,
  // Whether the caller may change what is the account's own (status, password, oversight, names, language): false
  // when the account is also in an organisation where the caller lacks that right, or is an invitee (reachOf).
  accountWide: 'boolean',
});
const route = subjectRoutes('main', 'account');

/**
 * The accounts as answered, each with accountWide: the caller's ability asked, through the same allows() that
 * req.authorize uses, about every account-wide action and field of common/permissions.ts (ACCOUNT_WIDE) on the same
 * record the handlers judge (accountSubject), so the list says what the status, password and edit routes will answer.
 */
async function reachOf(req: FastifyRequest, q: Queryable, views: AccountView[]): Promise<Array<AccountView & { accountWide: boolean }>> {
  const { ability } = req.requireAuth();
  const subjects = await accountSubjects(q, views);
  return views.map((view) => {
    const record = subjects.get(view.id)!;
    const accountWide =
      ACCOUNT_WIDE.actions.every((a) => allows(ability, a, 'account', record)) &&
      ACCOUNT_WIDE.fields.every((f) => allows(ability, 'update', 'account', record, f));
    return { ...view, accountWide };
  });
}

/** An account already read (accountIn) with its accountWide, or null: a route that read it for its audit reads it once. */
async function withReach(req: FastifyRequest, q: Queryable, view: AccountView | null): Promise<(AccountView & { accountWide: boolean }) | null> {
  return view && (await reachOf(req, q, [view]))[0];
}

/** One account of the current organisation with its accountWide, or null. */
const viewOf = async (req: FastifyRequest, q: Queryable, id: string) => withReach(req, q, await accountIn(q, req.requireAuth().orgId, id));

export const accountRoutes = defineRoutes([
  route('GET', '/partner/:code/accounts', 'read', {
    schema: {
      params: pathParams('code'),
      querystring: pagedQuery({ search: { type: 'string', maxLength: 254 } }),
      response: pageResponse(accountSchema, PAGE_NUMBERS),
    },
    // Only the current organisation's accounts: another code answers 404 (docs/decisions.md).
    handler: async (req) => {
      const auth = req.requireAuth();
      const { code } = req.params as { code: string };
      if (code !== auth.orgCode) throw notFound('organisation', code);
      const { page, pageSize, search } = req.query as { page: number; pageSize: number; search?: string };
      // An invitee's names are not searchable either: a match would tell them.
      const { items, total } = await accountPage(req.server.db, auth.orgId, search, page, pageSize);
      return { items: await reachOf(req, req.server.db, items as AccountView[]), total, page, pageSize };
    },
  }),
  route('GET', '/partner/:code/accounts/:id', 'read', {
    schema: { params: pathParams('code', 'id'), response: accountSchema },
    handler: async (req) => {
      const auth = req.requireAuth();
      const { code, id } = req.params as { code: string; id: string };
      if (code !== auth.orgCode) throw notFound('organisation', code);
      const row = await viewOf(req, req.server.db, id);
      if (!row) throw notFound('account', id);
      return row;
    },
  }),
  route('POST', '/accounts', 'create', {
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
        if (await emailTaken(q, mail)) throw new ApiError(400, CODES.accountAlreadyRegistered);
        await assertSeatLeft(q, req, auth);
        const id = newId();
        await insertAccount(q, {
          id,
          email: mail,
          firstName: body.firstName.trim(),
          lastName: body.lastName.trim(),
          passwordHash: hash,
          locale: body.locale ?? req.lang,
          orgId: auth.orgId,
          role,
        });
        const row = await accountIn(q, auth.orgId, id);
        await audit(q, req, { action: 'create', entity: 'account', entityId: id, after: row });
        return withReach(req, q, row);
      });
    },
  }),
  route('PUT', '/accounts/:id', 'update', {
    schema: {
      params: ID_PARAMS,
      // schemas/accounts.json's edit form; any of its fields, at least one.
      body: { ...formBodySchema(RESOURCES.accounts, 'edit'), required: [], minProperties: 1 },
      response: accountSchema,
    },
    // Names and language of a member, which are the account's own (common/permissions.ts: the right is needed in every
    // organisation of the account); changing the role needs updateAccess and never reaches above one's own.
    handler: async (req) => {
      const auth = req.requireAuth();
      const { id } = req.params as { id: string };
      const body = req.body as { firstName?: string; lastName?: string; locale?: string; role?: string };
      return req.server.db.tx(async (q) => {
        const before = await accountIn(q, auth.orgId, id);
        if (!before) throw notFound('account', id);
        // An invitation is managed as an invitation: the role offered, judged by that role. The person's account (names,
        // language) and their other organisations stay out of reach, and out of sight, until they accept.
        const record = await accountSubject(q, before);
        req.authorize('update', 'account', record);
        const profile = (['firstName', 'lastName', 'locale'] as const).filter((f) => body[f] !== undefined);
        for (const field of profile) req.authorize('update', 'account', record, field);
        if (body.role && body.role !== before.role) {
          req.authorize('updateAccess', 'account', record);
          assertGrantable(auth, body.role, 'updateAccess');
          if (id === auth.accountId) throw new ApiError(400, CODES.orgInsufficientPermission);
          await setMemberRole(q, auth.orgId, id, body.role);
        }
        // Only when the account's own fields change: a role change (an invitation's included) leaves the person's row alone.
        if (profile.length)
          await updateProfile(q, id, { firstName: body.firstName?.trim() ?? null, lastName: body.lastName?.trim() ?? null, locale: body.locale ?? null });
        const after = await accountIn(q, auth.orgId, id);
        await audit(q, req, { action: 'update', entity: 'account', entityId: id, before, after });
        return withReach(req, q, after);
      });
    },
  }),
  route('PUT', '/accounts/oversight/:id', 'grantOversight', {
    schema: {
      params: ID_PARAMS,
      body: obj({ oversight: { type: 'boolean' } }, ['oversight']),
      response: accountSchema,
    },
    // Oversight belongs to accounts of a first-level organisation (SPEC.md section 6).
    handler: async (req) => {
      const auth = req.requireAuth();
      const { id } = req.params as { id: string };
      const { oversight } = req.body as { oversight: boolean };
      if (auth.orgLevel !== 1) throw new ApiError(403, CODES.orgInsufficientPermission);
      return req.server.db.tx(async (q) => {
        const before = await accountIn(q, auth.orgId, id);
        if (!before) throw notFound('account', id);
        req.authorize('grantOversight', 'account', await accountSubject(q, before));
        await setOversight(q, id, oversight);
        await audit(q, req, { action: 'grantOversight', entity: 'account', entityId: id, before: { oversight: before.oversight }, after: { oversight } });
        return viewOf(req, q, id);
      });
    },
  }),
  route('PATCH', '/reset_password/accounts/:id', 'resetPassword', {
    schema: { params: ID_PARAMS, response: {} },
    // A generated password is mailed to the member; every session of theirs ends.
    handler: async (req) => {
      const auth = req.requireAuth();
      const { id } = req.params as { id: string };
      const password = generatePassword();
      const hash = await hashPassword(password);
      await req.server.db.tx(async (q) => {
        const before = await accountIn(q, auth.orgId, id);
        const target = await mailTarget(q, auth.orgId, id);
        if (!before || !target) throw notFound('account', id);
        req.authorize('resetPassword', 'account', await accountSubject(q, before));
        await setPassword(q, id, hash);
        await revokeAllSessions(q, id, 'password reset by admin');
        await req.server.mailer.send(
          {
            to: target.email,
            kind: 'notice',
            subject: translate(target.locale, 'mail.newPasswordSubject'),
            text: translate(target.locale, 'mail.newPasswordBody', { password }),
          },
          q,
        );
        await audit(q, req, { action: 'resetPassword', entity: 'account', entityId: id });
      });
      return null;
    },
  }),
  route('GET', '/accounts/:id/partners', 'read', {
    schema: {
      params: ID_PARAMS,
      response: arrayOf(typed({ code: 'string', name: 'string', role: 'string', pending_invitation: 'boolean' })),
    },
    // The organisations a member of mine belongs to, limited to those I belong to as well.
    handler: async (req) => {
      const auth = req.requireAuth();
      const { id } = req.params as { id: string };
      const rows = await sharedOrgs(req.server.db, id, auth.accountId);
      if (!(await accountIn(req.server.db, auth.orgId, id))) throw notFound('account', id);
      return rows;
    },
  }),
  route('PATCH', '/change_status/accounts/:id', 'changeStatus', {
    schema: {
      params: ID_PARAMS,
      body: obj({ status: { type: 'string', enum: ['active', 'disabled'] } }, ['status']),
      response: accountSchema,
    },
    // Disable or enable a member of the current organisation; a superadmin is out of an admin's reach.
    handler: async (req) => {
      const auth = req.requireAuth();
      const { id } = req.params as { id: string };
      const { status } = req.body as { status: 'active' | 'disabled' };
      return req.server.db.tx(async (q) => {
        const before = await accountIn(q, auth.orgId, id);
        if (!before) throw notFound('account', id);
        req.authorize('changeStatus', 'account', await accountSubject(q, before));
        if (id === auth.accountId) throw new ApiError(400, CODES.orgInsufficientPermission);
        await setStatus(q, id, status);
        if (status === 'disabled') await revokeAllSessions(q, id, 'account disabled');
        await audit(q, req, { action: 'changeStatus', entity: 'account', entityId: id, before: { status: before.status }, after: { status } });
        return viewOf(req, q, id);
      });
    },
  }),
]);
