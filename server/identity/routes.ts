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
import { defineRoutes } from '../http/route.js';
import { arrayOf, ID_PARAMS, ID_TEXT, obj, serviceRoutes, typed } from '../http/shapes.js';
import { checkChallenge, createChallenge } from './captcha.js';
import {
  accountForSignIn,
  activeAccountByEmail,
  activeRoleIn,
  countResetAttempt,
  countSignIn,
  openResetCode,
  openSessionOwner,
  passwordHashOf,
  recentResetCount,
  replaceResetCode,
  sessionOfRefreshHash,
  setPasswordHash,
  useResetCode,
} from './identity-repo.js';
import { DUMMY_HASH, hashPassword, verifyPassword } from './passwords.js';
import { assertMayTry, clearFailures, recordFailure } from './sign-in-throttle.js';
import { REFRESH_COOKIE, clearRefreshCookie, revokeAllSessions, revokeSession, rotateRefresh, sessionPayload, startSession } from './sessions.js';

const RESET_CODE_TTL_MS = 15 * 60 * 1000;
const RESET_CODE_ATTEMPTS = 5;

const email = { type: 'string', minLength: 3, maxLength: LIMITS.email, pattern: EMAIL_PATTERN } as const;
const secretText = { type: 'string', minLength: 1, maxLength: 128 } as const;
const code = { type: 'string', minLength: 1, maxLength: 12 } as const;
const challengeId = ID_TEXT;
const sessionSchema = typed({
  user: typed({ token: 'string', name: 'string', email: 'string', id: 'string', logins_count: 'integer', locale: 'string' }),
  customData: typed({ partner_code: 'string' }),
  permissions: arrayOf({}),
  roles: arrayOf(typed({ code: 'string', name: 'string', role: 'string', default: 'boolean', pending_invitation: 'boolean' })),
});
const route = serviceRoutes('identity');

const normalise = (value: string) => value.trim().toLowerCase();

export const identityRoutes = defineRoutes([
  route('GET', '/captcha', 'public', {
    rateLimit: 'captcha',
    schema: { response: typed({ challengeId: 'string', svg: 'string' }) },
    handler: async (req) => createChallenge(req.server.challenges),
  }),
  route('POST', '/sso/signin/direct/cube/offline-access', 'public', {
    rateLimit: 'signIn',
    schema: {
      body: obj({ username: email, password: secretText, verificationCode: code, challengeId, agreeTerms: { type: 'boolean' } }, [
        'username',
        'password',
        'verificationCode',
        'agreeTerms',
      ]),
      response: sessionSchema,
    },
    handler: async (req, reply) => {
      const body = req.body as { username: string; password: string; verificationCode: string; challengeId?: string; agreeTerms: boolean };
      if (body.agreeTerms !== true) throw new ApiError(400, CODES.termsNotAgreed);
      const { db, config } = req.server;
      const mail = normalise(body.username);
      await assertMayTry(req, reply, mail);
      if (!(await checkChallenge(req.server.challenges, body.challengeId, body.verificationCode, config.verificationCode)))
        throw new ApiError(400, CODES.wrongVerificationCode);
      const account = await accountForSignIn(db, mail);
      // Unknown e-mail and wrong password answer alike and take alike long.
      const ok = await verifyPassword(body.password, account?.password_hash ?? DUMMY_HASH);
      if (!account || !ok) {
        await recordFailure(req, mail);
        throw new ApiError(400, CODES.wrongCredentials);
      }
      if (account.status !== 'active') throw new ApiError(400, CODES.accountDisabled);
      const payload = await db.tx(async (q) => {
        const token = await startSession(req.server, q, reply, account.id);
        await countSignIn(q, account.id);
        const answer = await sessionPayload(q, account.id, token, req.server.resources);
        await audit(q, req, {
          action: 'signIn',
          entity: 'account',
          entityId: account.id,
          accountId: account.id,
          orgId: null,
          after: { logins_count: answer.user.logins_count },
        });
        return answer;
      });
      // Once signed in: this address's failures for the account are forgotten (where they are counted: not in the
      // session's transaction, so a store that is away does not undo the sign-in).
      await clearFailures(req, mail).catch((err: unknown) => req.log.warn({ err }, 'sign-in: failures not cleared'));
      return payload;
    },
  }),
  route('POST', '/sso/signin/direct/cube/refresh', 'public', {
    schema: {
      querystring: obj({ 'user-info': { type: 'boolean' } }),
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
  }),
  route('POST', '/sso/signin/signout/cube', 'public', {
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
  }),
  route('POST', '/crud/admin/cube/users/user/cube/password/reset', 'signedIn', {
    schema: {
      body: obj({ oldPassword: secretText, password: secretText }, ['oldPassword', 'password']),
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
  }),
  route('POST', '/sso/signin/forget/cube/password/send', 'public', {
    rateLimit: 'passwordReset',
    schema: {
      body: obj({ username: email, verificationCode: code, challengeId }, ['username', 'verificationCode']),
      response: {},
    },
    // Answers alike for known and unknown e-mails, so it cannot be used to find accounts.
    handler: async (req) => {
      const body = req.body as { username: string; verificationCode: string; challengeId?: string };
      const { db, config, mailer } = req.server;
      if (!(await checkChallenge(req.server.challenges, body.challengeId, body.verificationCode, config.verificationCode)))
        throw new ApiError(400, CODES.wrongVerificationCode);
      const mail = normalise(body.username);
      const account = await activeAccountByEmail(db, mail);
      if (!account) return null;
      if ((await recentResetCount(db, account.id)) >= 5) return null;
      const resetCode = String(crypto.randomInt(0, 1_000_000)).padStart(6, '0');
      await db.tx(async (q) => {
        await replaceResetCode(q, account.id, sha256(resetCode), new Date(Date.now() + RESET_CODE_TTL_MS));
        await mailer.send(
          {
            to: mail,
            kind: 'password-reset',
            subject: translate(account.locale, 'mail.resetSubject'),
            text: translate(account.locale, 'mail.resetBody', { code: resetCode, minutes: 15 }),
          },
          q,
        );
        await audit(q, req, { action: 'forgotPassword', entity: 'account', entityId: account.id, accountId: account.id, orgId: null });
      });
      return null;
    },
  }),
  route('POST', '/sso/signin/forget/cube/password/reset', 'public', {
    rateLimit: 'passwordReset',
    schema: {
      body: obj({ username: email, code, password: secretText }, ['username', 'code', 'password']),
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
  }),
  route('GET', '/info/cube/users/:id/permissions', 'signedIn', {
    schema: { params: ID_PARAMS, response: typed({ role: 'string', partner_code: 'string', permissions: arrayOf({}) }) },
    // The rules of an account in the current organisation: oneself, or an admin asking about a member.
    handler: async (req) => {
      const auth = req.requireAuth();
      const { id } = req.params as { id: string };
      if (id !== auth.accountId) req.authorize('read', 'account');
      const role = await activeRoleIn(req.server.db, id, auth.orgId);
      if (!role) throw notFound('membership', id);
      return {
        role,
        partner_code: auth.orgCode,
        permissions: id === auth.accountId ? auth.rules : req.server.rulesFor({ role: asRole(role), orgId: auth.orgId }),
      };
    },
  }),
]);
