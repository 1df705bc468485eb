/** The identity service (SPEC.md section 7, "Identity"): sign-in, session fetch, sign-out, passwords. */
import crypto from 'node:crypto';
import { asRole } from '../../common/roles.js';
import { CODES } from '../../common/errors.js';
import { translate } from '../../common/i18n.js';
import { EMAIL_PATTERN, isValidPassword, LIMITS } from '../../common/limits.js';
import { sha256 } from '../db/ids.js';
import { ApiError, invalid, notFound } from '../http/api-error.js';
import { audit } from '../http/audit.js';
import { bearerOf } from '../http/context.js';
import { defineRoutes, pathParams } from '../http/route.js';
import { checkChallenge, createChallenge } from './captcha.js';
import { accountForSignIn, activeAccountByEmail, activeRoleIn, countResetAttempt, countSignIn, openResetCode, openSessionOwner, passwordHashOf, recentResetCount, replaceResetCode, sessionOfRefreshHash, setPasswordHash, useResetCode } from './identity-repo.js';
import { DUMMY_HASH, hashPassword, verifyPassword } from './passwords.js';
import { assertMayTry, clearFailures, recordFailure } from './sign-in-throttle.js';
import { REFRESH_COOKIE, clearRefreshCookie, revokeAllSessions, revokeSession, rotateRefresh, sessionPayload, startSession } from './sessions.js';

const RESET_CODE_TTL_MS = 15 * 60 * 1000;
const RESET_CODE_ATTEMPTS = 5;

const email = { type: 'string', minLength: 3, maxLength: LIMITS.email, pattern: EMAIL_PATTERN } as const;
const secretText = { type: 'string', minLength: 1, maxLength: 128 } as const;
const code = { type: 'string', minLength: 1, maxLength: 12 } as const;
const challengeId = { type: 'string', minLength: 1, maxLength: 40 } as const;
const sessionSchema = {
  type: 'object',
  properties: {
    user: {
      type: 'object',
      properties: { token: { type: 'string' }, name: { type: 'string' }, email: { type: 'string' }, id: { type: 'string' }, logins_count: { type: 'integer' }, locale: { type: 'string' } },
    },
    customData: { type: 'object', properties: { partner_code: { type: 'string' } } },
    permissions: { type: 'array', items: {} },
    roles: {
      type: 'array',
      items: { type: 'object', properties: { code: { type: 'string' }, name: { type: 'string' }, role: { type: 'string' }, default: { type: 'boolean' }, pending_invitation: { type: 'boolean' } } },
    },
  },
} as const;

const normalise = (value: string) => value.trim().toLowerCase();

export const identityRoutes = defineRoutes([
  {
    service: 'identity',
    method: 'GET',
    path: '/captcha',
    permission: 'public',
    rateLimit: 'captcha',
    schema: { response: { type: 'object', properties: { challengeId: { type: 'string' }, svg: { type: 'string' } } } },
    handler: async (req) => createChallenge(req.server.db),
  },
  {
    service: 'identity',
    method: 'POST',
    path: '/sso/signin/direct/cube/offline-access',
    permission: 'public',
    rateLimit: 'signIn',
    schema: {
      body: {
        type: 'object',
        required: ['username', 'password', 'verificationCode', 'agreeTerms'],
        additionalProperties: false,
        properties: { username: email, password: secretText, verificationCode: code, challengeId, agreeTerms: { type: 'boolean' } },
      },
      response: sessionSchema,
    },
    handler: async (req, reply) => {
      const body = req.body as { username: string; password: string; verificationCode: string; challengeId?: string; agreeTerms: boolean };
      if (body.agreeTerms !== true) throw new ApiError(400, CODES.termsNotAgreed);
      const { db, config } = req.server;
      const mail = normalise(body.username);
      await assertMayTry(req, reply, mail);
      if (!(await checkChallenge(db, body.challengeId, body.verificationCode, config.verificationCode))) throw new ApiError(400, CODES.wrongVerificationCode);
      const account = await accountForSignIn(db, mail);
      // Unknown e-mail and wrong password answer alike and take alike long.
      const ok = await verifyPassword(body.password, account?.password_hash ?? DUMMY_HASH);
      if (!account || !ok) {
        await recordFailure(db, mail, req.ip);
        throw new ApiError(400, CODES.wrongCredentials);
      }
      if (account.status !== 'active') throw new ApiError(400, CODES.accountDisabled);
      return db.tx(async (q) => {
        const token = await startSession(req.server, q, reply, account.id);
        await countSignIn(q, account.id);
        await clearFailures(q, mail, req.ip);
        const payload = await sessionPayload(q, account.id, token, req.server.resources);
        await audit(q, req, { action: 'signIn', entity: 'account', entityId: account.id, accountId: account.id, orgId: null, after: { logins_count: payload.user.logins_count } });
        return payload;
      });
    },
  },
  {
    service: 'identity',
    method: 'POST',
    path: '/sso/signin/direct/cube/refresh',
    permission: 'public',
    schema: {
      querystring: { type: 'object', additionalProperties: false, properties: { 'user-info': { type: 'boolean' } } },
      response: sessionSchema,
    },
    handler: async (req, reply) => {
      const secret = req.cookies[REFRESH_COOKIE];
      if (!secret) throw new ApiError(401, CODES.refreshTokenError);
      const result = await req.server.db.tx((q) => rotateRefresh(req.server, q, reply, secret));
      if (!result.ok) {
        clearRefreshCookie(reply);
        throw new ApiError(401, CODES.refreshTokenError);
      }
      return sessionPayload(req.server.db, result.accountId, result.token, req.server.resources);
    },
  },
  {
    service: 'identity',
    method: 'POST',
    path: '/sso/signin/signout/cube',
    permission: 'public',
    schema: { response: {} },
    // Answers 200 whatever the state (SPEC.md section 7): the console clears its session either way.
    handler: async (req, reply) => {
      const { db, tokens } = req.server;
      const bearer = bearerOf(req);
      const verified = bearer ? await tokens.verify(bearer, true) : null;
      const secret = req.cookies[REFRESH_COOKIE];
      await db.tx(async (q) => {
        const sessions = new Set<string>();
        if (verified?.ok) sessions.add(verified.claims.sid);
        if (secret) {
          const family = await sessionOfRefreshHash(q, sha256(secret));
          if (family) sessions.add(family);
        }
        for (const sid of sessions) {
          const owner = await openSessionOwner(q, sid);
          if (!owner) continue;
          await revokeSession(q, sid, 'signed out');
          await audit(q, req, { action: 'signOut', entity: 'session', entityId: sid, accountId: owner, orgId: null });
        }
      });
      clearRefreshCookie(reply);
      return null;
    },
  },
  {
    service: 'identity',
    method: 'POST',
    path: '/crud/admin/cube/users/user/cube/password/reset',
    permission: 'signedIn',
    schema: {
      body: { type: 'object', required: ['oldPassword', 'password'], additionalProperties: false, properties: { oldPassword: secretText, password: secretText } },
      response: {},
    },
    handler: async (req) => {
      const auth = req.requireAuth();
      const body = req.body as { oldPassword: string; password: string };
      const { db } = req.server;
      if (!(await verifyPassword(body.oldPassword, await passwordHashOf(db, auth.accountId)))) throw new ApiError(400, CODES.oldPasswordWrong);
      if (!isValidPassword(body.password)) throw invalid('password', 'password');
      const hash = await hashPassword(body.password);
      await db.tx(async (q) => {
        await setPasswordHash(q, auth.accountId, hash);
        // SPEC.md: after a change the session is cleared and the user signs in again; every session ends.
        await revokeAllSessions(q, auth.accountId, 'password changed');
        await audit(q, req, { action: 'changePassword', entity: 'account', entityId: auth.accountId, before: { password: 'old' }, after: { password: 'new' } });
      });
      return null;
    },
  },
  {
    service: 'identity',
    method: 'POST',
    path: '/sso/signin/forget/cube/password/send',
    permission: 'public',
    rateLimit: 'passwordReset',
    schema: {
      body: { type: 'object', required: ['username', 'verificationCode'], additionalProperties: false, properties: { username: email, verificationCode: code, challengeId } },
      response: {},
    },
    // Answers alike for known and unknown e-mails, so it cannot be used to find accounts.
    handler: async (req) => {
      const body = req.body as { username: string; verificationCode: string; challengeId?: string };
      const { db, config, mailer } = req.server;
      if (!(await checkChallenge(db, body.challengeId, body.verificationCode, config.verificationCode))) throw new ApiError(400, CODES.wrongVerificationCode);
      const mail = normalise(body.username);
      const account = await activeAccountByEmail(db, mail);
      if (!account) return null;
      if ((await recentResetCount(db, account.id)) >= 5) return null;
      const resetCode = String(crypto.randomInt(0, 1_000_000)).padStart(6, '0');
      await db.tx(async (q) => {
        await replaceResetCode(q, account.id, sha256(resetCode), new Date(Date.now() + RESET_CODE_TTL_MS));
        await mailer.send(
          { to: mail, kind: 'password-reset', subject: translate(account.locale, 'mail.resetSubject'), text: translate(account.locale, 'mail.resetBody', { code: resetCode, minutes: 15 }) },
          q,
        );
        await audit(q, req, { action: 'forgotPassword', entity: 'account', entityId: account.id, accountId: account.id, orgId: null });
      });
      return null;
    },
  },
  {
    service: 'identity',
    method: 'POST',
    path: '/sso/signin/forget/cube/password/reset',
    permission: 'public',
    rateLimit: 'passwordReset',
    schema: {
      body: { type: 'object', required: ['username', 'code', 'password'], additionalProperties: false, properties: { username: email, code, password: secretText } },
      response: {},
    },
    handler: async (req) => {
      const body = req.body as { username: string; code: string; password: string };
      if (!isValidPassword(body.password)) throw invalid('password', 'password');
      const { db } = req.server;
      const mail = normalise(body.username);
      const reset = await openResetCode(db, mail);
      if (!reset || reset.attempts >= RESET_CODE_ATTEMPTS) throw new ApiError(400, CODES.resetCodeInvalid);
      if (reset.code_hash !== sha256(body.code.trim())) {
        await countResetAttempt(db, reset.id);
        throw new ApiError(400, CODES.resetCodeInvalid);
      }
      const hash = await hashPassword(body.password);
      await db.tx(async (q) => {
        await useResetCode(q, reset.id);
        await setPasswordHash(q, reset.account_id, hash);
        await revokeAllSessions(q, reset.account_id, 'password reset');
        await audit(q, req, { action: 'resetPassword', entity: 'account', entityId: reset.account_id, accountId: reset.account_id, orgId: null });
      });
      return null;
    },
  },
  {
    service: 'identity',
    method: 'GET',
    path: '/info/cube/users/:id/permissions',
    permission: 'signedIn',
    schema: {
      params: pathParams('id'),
      response: { type: 'object', properties: { role: { type: 'string' }, partner_code: { type: 'string' }, permissions: { type: 'array', items: {} } } },
    },
    // The rules of an account in the current organisation: oneself, or an admin asking about a member.
    handler: async (req) => {
      const auth = req.requireAuth();
      const { id } = req.params as { id: string };
      if (id !== auth.accountId) req.authorize('read', 'account');
      const role = await activeRoleIn(req.server.db, id, auth.orgId);
      if (!role) throw notFound('membership', id);
      return { role, partner_code: auth.orgCode, permissions: id === auth.accountId ? auth.rules : req.server.rulesFor({ role: asRole(role), orgId: auth.orgId }) };
    },
  },
]);
