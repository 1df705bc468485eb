/** The identity service (SPEC.md section 7, "Identity"): sign-in, session fetch, sign-out, passwords. */
import crypto from 'node:crypto';
import { asRole } from '../../common/roles.js';
import { CODES } from '../../common/errors.js';
import { translate } from '../../common/i18n.js';
import { EMAIL_PATTERN, isValidPassword, LIMITS } from '../../common/limits.js';
import { newId, sha256 } from '../db/ids.js';
import { ApiError, invalid, notFound } from '../http/api-error.js';
import { audit } from '../http/audit.js';
import { bearerOf } from '../http/context.js';
import { defineRoutes, pathParams } from '../http/route.js';
import { checkChallenge, createChallenge } from './captcha.js';
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
      const account = (await db.query<{ id: string; password_hash: string | null; status: string }>('SELECT id, password_hash, status FROM accounts WHERE email = $1', [mail])).rows[0];
      // Unknown e-mail and wrong password answer alike and take alike long.
      const ok = await verifyPassword(body.password, account?.password_hash ?? DUMMY_HASH);
      if (!account || !ok) {
        await recordFailure(db, mail, req.ip);
        throw new ApiError(400, CODES.wrongCredentials);
      }
      if (account.status !== 'active') throw new ApiError(400, CODES.accountDisabled);
      return db.tx(async (q) => {
        const token = await startSession(req.server, q, reply, account.id);
        await q.query('UPDATE accounts SET logins_count = logins_count + 1, last_sign_in_at = now() WHERE id = $1', [account.id]);
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
          const r = await q.query<{ family_id: string }>('SELECT family_id FROM refresh_tokens WHERE token_hash = $1', [sha256(secret)]);
          if (r.rows[0]) sessions.add(r.rows[0].family_id);
        }
        for (const sid of sessions) {
          const owner = (await q.query<{ account_id: string }>('SELECT account_id FROM sessions WHERE id = $1 AND revoked_at IS NULL', [sid])).rows[0];
          if (!owner) continue;
          await revokeSession(q, sid, 'signed out');
          await audit(q, req, { action: 'signOut', entity: 'session', entityId: sid, accountId: owner.account_id, orgId: null });
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
      const row = (await db.query<{ password_hash: string | null }>('SELECT password_hash FROM accounts WHERE id = $1', [auth.accountId])).rows[0];
      if (!(await verifyPassword(body.oldPassword, row?.password_hash))) throw new ApiError(400, CODES.oldPasswordWrong);
      if (!isValidPassword(body.password)) throw invalid('password', 'password');
      const hash = await hashPassword(body.password);
      await db.tx(async (q) => {
        await q.query('UPDATE accounts SET password_hash = $2, password_changed_at = now(), updated_at = now() WHERE id = $1', [auth.accountId, hash]);
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
      const account = (await db.query<{ id: string; locale: 'en-US' }>("SELECT id, locale FROM accounts WHERE email = $1 AND status = 'active'", [mail])).rows[0];
      if (!account) return null;
      const recent = await db.query<{ n: number }>("SELECT count(*)::int AS n FROM password_resets WHERE account_id = $1 AND created_at > now() - interval '1 hour'", [account.id]);
      if (recent.rows[0].n >= 5) return null;
      const resetCode = String(crypto.randomInt(0, 1_000_000)).padStart(6, '0');
      await db.tx(async (q) => {
        await q.query('UPDATE password_resets SET used_at = now() WHERE account_id = $1 AND used_at IS NULL', [account.id]);
        await q.query('INSERT INTO password_resets (id, account_id, code_hash, expires_at) VALUES ($1, $2, $3, $4)', [newId(), account.id, sha256(resetCode), new Date(Date.now() + RESET_CODE_TTL_MS)]);
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
      const reset = (
        await db.query<{ id: string; account_id: string; code_hash: string; attempts: number }>(
          `SELECT r.id, r.account_id, r.code_hash, r.attempts FROM password_resets r JOIN accounts a ON a.id = r.account_id
            WHERE a.email = $1 AND a.status = 'active' AND r.used_at IS NULL AND r.expires_at > now()
            ORDER BY r.created_at DESC LIMIT 1`,
          [mail],
        )
      ).rows[0];
      if (!reset || reset.attempts >= RESET_CODE_ATTEMPTS) throw new ApiError(400, CODES.resetCodeInvalid);
      if (reset.code_hash !== sha256(body.code.trim())) {
        await db.query('UPDATE password_resets SET attempts = attempts + 1 WHERE id = $1', [reset.id]);
        throw new ApiError(400, CODES.resetCodeInvalid);
      }
      const hash = await hashPassword(body.password);
      await db.tx(async (q) => {
        await q.query('UPDATE password_resets SET used_at = now() WHERE id = $1', [reset.id]);
        await q.query('UPDATE accounts SET password_hash = $2, password_changed_at = now(), updated_at = now() WHERE id = $1', [reset.account_id, hash]);
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
      const m = (await req.server.db.query<{ role: string }>("SELECT role FROM memberships WHERE account_id = $1 AND org_id = $2 AND status = 'active'", [id, auth.orgId])).rows[0];
      if (!m) throw notFound('membership', id);
      return { role: m.role, partner_code: auth.orgCode, permissions: id === auth.accountId ? auth.rules : req.server.rulesFor({ role: asRole(m.role), orgId: auth.orgId }) };
    },
  },
]);
