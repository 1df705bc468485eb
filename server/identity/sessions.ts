/** Sessions: the answer of sign-in and of the session fetch, refresh-token rotation, revocation. */
import type { FastifyInstance, FastifyReply } from 'fastify';
import { rulesFor, type SchemaRights } from '../../common/ability.js';
import { asRole } from '../../common/roles.js';
import { CODES } from '../../common/errors.js';
import type { Queryable } from '../db/db.js';
import { newId, newSecret, sha256 } from '../db/ids.js';
import { ApiError } from '../http/api-error.js';

export const REFRESH_COOKIE = 'refresh_token';
const COOKIE_PATH = '/api/identity';

export interface MembershipRow {
  org_id: string;
  code: string;
  name: string;
  role: string;
  is_default: boolean;
  status: string;
}

/** The memberships of an account, default first. */
export async function membershipsOf(q: Queryable, accountId: string): Promise<MembershipRow[]> {
  const r = await q.query<MembershipRow>(
    `SELECT m.org_id, o.code, o.name, m.role, m.is_default, m.status
       FROM memberships m JOIN organisations o ON o.id = m.org_id
      WHERE m.account_id = $1
      ORDER BY m.status = 'active' DESC, m.is_default DESC, o.level, o.name`,
    [accountId],
  );
  return r.rows;
}

/**
 * The session answer of SPEC.md section 7: user, customData.partner_code, permissions, roles. The permissions are the
 * rules of the account in its default organisation, with the rights the schema resources declare (app.resources).
 */
export async function sessionPayload(q: Queryable, accountId: string, token: string, schemas: readonly SchemaRights[]) {
  const account = (
    await q.query<{
      id: string;
      email: string;
      first_name: string;
      last_name: string;
      logins_count: number;
      locale: string;
      oversight: boolean;
      back_office: boolean;
    }>('SELECT id, email, first_name, last_name, logins_count, locale, oversight, back_office FROM accounts WHERE id = $1', [accountId])
  ).rows[0];
  const memberships = await membershipsOf(q, accountId);
  const current = memberships.find((m) => m.status === 'active');
  if (!current) throw new ApiError(403, CODES.permissionDenied);
  return {
    user: {
      token,
      name: `${account.first_name} ${account.last_name}`,
      email: account.email,
      id: account.id,
      logins_count: account.logins_count,
      locale: account.locale,
    },
    customData: { partner_code: current.code },
    permissions: rulesFor(
      {
        role: asRole(current.role),
        accountId: account.id,
        orgId: current.org_id,
        oversight: account.oversight,
        backOffice: account.back_office,
        memberships: memberships.filter((m) => m.status === 'active').map((m) => ({ orgId: m.org_id, role: asRole(m.role) })),
      },
      schemas,
    ),
    roles: rolesOf(memberships),
  };
}

/** The organisation list of a session answer (SPEC.md section 3: name, code, role, pending_invitation, default). */
export const rolesOf = (memberships: MembershipRow[]) =>
  memberships.map((m) => ({ id: m.org_id, code: m.code, name: m.name, role: m.role, default: m.is_default, pending_invitation: m.status === 'pending' }));

/** Start a session: its row, a refresh token in the cookie, and the access token. */
export async function startSession(app: FastifyInstance, q: Queryable, reply: FastifyReply, accountId: string): Promise<string> {
  const sessionId = newId();
  await q.query('INSERT INTO sessions (id, account_id) VALUES ($1, $2)', [sessionId, accountId]);
  await issueRefresh(app, q, reply, accountId, sessionId);
  return app.tokens.sign({ sub: accountId, sid: sessionId });
}

async function issueRefresh(app: FastifyInstance, q: Queryable, reply: FastifyReply, accountId: string, sessionId: string): Promise<void> {
  const secret = newSecret();
  const days = app.config.refreshTokenTtlDays;
  await q.query('INSERT INTO refresh_tokens (id, token_hash, family_id, account_id, expires_at) VALUES ($1, $2, $3, $4, $5)', [
    newId(),
    sha256(secret),
    sessionId,
    accountId,
    new Date(Date.now() + days * 86_400_000),
  ]);
  reply.setCookie(REFRESH_COOKIE, secret, {
    httpOnly: true,
    sameSite: 'strict',
    // Secure whenever the call came over HTTPS: req.protocol believes X-Forwarded-Proto only from TRUST_PROXY's proxies.
    secure: app.config.production || reply.request.protocol === 'https',
    path: COOKIE_PATH,
    maxAge: days * 86_400,
  });
}

export function clearRefreshCookie(reply: FastifyReply): void {
  reply.clearCookie(REFRESH_COOKIE, { path: COOKIE_PATH });
}

/** How long a just-rotated refresh token may be presented again without counting as a replay. */
export const REUSE_INTERVAL_SECONDS = 10;

export type RotateResult = { ok: true; accountId: string; token: string } | { ok: false; replayed: boolean };

/**
 * Rotate a refresh token: the presented one is spent and a new one of the same family issued.
 * A token presented again after REUSE_INTERVAL_SECONDS revokes the whole family (it was stolen or replayed).
 */
export async function rotateRefresh(app: FastifyInstance, q: Queryable, reply: FastifyReply, secret: string): Promise<RotateResult> {
  const hash = sha256(secret);
  const spent = await q.query<{ account_id: string; family_id: string }>(
    `UPDATE refresh_tokens t SET used_at = now()
       FROM sessions s, accounts a
      WHERE t.token_hash = $1 AND t.used_at IS NULL AND t.revoked_at IS NULL AND t.expires_at > now()
        AND s.id = t.family_id AND s.revoked_at IS NULL AND a.id = t.account_id AND a.status = 'active'
      RETURNING t.account_id, t.family_id`,
    [hash],
  );
  let row = spent.rows[0];
  if (!row) {
    const known = (
      await q.query<{ family_id: string; account_id: string; used_at: string | null; recent: boolean; live: boolean }>(
        `SELECT t.family_id, t.account_id, t.used_at,
                t.used_at > now() - make_interval(secs => $2) AS recent,
                (s.revoked_at IS NULL AND t.revoked_at IS NULL AND t.expires_at > now()) AS live
           FROM refresh_tokens t JOIN sessions s ON s.id = t.family_id WHERE t.token_hash = $1`,
        [hash, REUSE_INTERVAL_SECONDS],
      )
    ).rows[0];
    if (!known?.used_at) return { ok: false, replayed: false };
    // Two tabs (or a page and its retry) refreshing at once present the same token within moments:
    // that is a race, not theft, and gets a token of the same family. Later reuse is a replay.
    if (!(known.recent && known.live)) {
      await revokeSession(q, known.family_id, 'refresh token replayed');
      return { ok: false, replayed: true };
    }
    row = { account_id: known.account_id, family_id: known.family_id };
  }
  await issueRefresh(app, q, reply, row.account_id, row.family_id);
  const token = await app.tokens.sign({ sub: row.account_id, sid: row.family_id });
  return { ok: true, accountId: row.account_id, token };
}

/** End a session and every refresh token of its family. */
export async function revokeSession(q: Queryable, sessionId: string, reason: string): Promise<void> {
  await q.query('UPDATE sessions SET revoked_at = now(), revoked_reason = $2 WHERE id = $1 AND revoked_at IS NULL', [sessionId, reason]);
  await q.query('UPDATE refresh_tokens SET revoked_at = now() WHERE family_id = $1 AND revoked_at IS NULL', [sessionId]);
}

/** End every session of an account (password changed or reset). */
export async function revokeAllSessions(q: Queryable, accountId: string, reason: string): Promise<void> {
  await q.query('UPDATE sessions SET revoked_at = now(), revoked_reason = $2 WHERE account_id = $1 AND revoked_at IS NULL', [accountId, reason]);
  await q.query('UPDATE refresh_tokens SET revoked_at = now() WHERE account_id = $1 AND revoked_at IS NULL', [accountId]);
}
