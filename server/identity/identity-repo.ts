/** The SQL of sign-in, sign-out and passwords (SPEC.md section 7, "Identity"): accounts, sessions and reset codes. */
import type { Queryable } from '../db/db.js';
import { newId } from '../db/ids.js';

/** An account's sign-in facts by (normalised) e-mail; undefined for an unknown e-mail. */
export async function accountForSignIn(q: Queryable, email: string) {
  return (
    await q.query<{ id: string; password_hash: string | null; status: string }>('SELECT id, password_hash, status FROM accounts WHERE email = $1', [email])
  ).rows[0];
}

/** Count one more sign-in on the account and stamp its time. */
export async function countSignIn(q: Queryable, accountId: string): Promise<void> {
  await q.query('UPDATE accounts SET logins_count = logins_count + 1, last_sign_in_at = now() WHERE id = $1', [accountId]);
}

/** The session (family) a refresh-token secret's hash belongs to. */
export async function sessionOfRefreshHash(q: Queryable, tokenHash: string): Promise<string | undefined> {
  return (await q.query<{ family_id: string }>('SELECT family_id FROM refresh_tokens WHERE token_hash = $1', [tokenHash])).rows[0]?.family_id;
}

/** The account of a session still open; undefined when it has ended or never was. */
export async function openSessionOwner(q: Queryable, sessionId: string): Promise<string | undefined> {
  return (await q.query<{ account_id: string }>('SELECT account_id FROM sessions WHERE id = $1 AND revoked_at IS NULL', [sessionId])).rows[0]?.account_id;
}

/** An account's password hash (null when it has none yet). */
export async function passwordHashOf(q: Queryable, accountId: string): Promise<string | null | undefined> {
  return (await q.query<{ password_hash: string | null }>('SELECT password_hash FROM accounts WHERE id = $1', [accountId])).rows[0]?.password_hash;
}

/** Store a new password hash and when it changed. */
export async function setPasswordHash(q: Queryable, accountId: string, hash: string): Promise<void> {
  await q.query('UPDATE accounts SET password_hash = $2, password_changed_at = now(), updated_at = now() WHERE id = $1', [accountId, hash]);
}

/** An active account by e-mail, with the language its mail is written in. */
export async function activeAccountByEmail(q: Queryable, email: string) {
  return (await q.query<{ id: string; locale: 'en-US' }>("SELECT id, locale FROM accounts WHERE email = $1 AND status = 'active'", [email])).rows[0];
}

/** How many reset codes the account was sent in the last hour. */
export async function recentResetCount(q: Queryable, accountId: string): Promise<number> {
  return (
    await q.query<{ n: number }>("SELECT count(*)::int AS n FROM password_resets WHERE account_id = $1 AND created_at > now() - interval '1 hour'", [accountId])
  ).rows[0].n;
}

/** Replace the account's open reset codes by a new one (stored as its hash). */
export async function replaceResetCode(q: Queryable, accountId: string, codeHash: string, expiresAt: Date): Promise<void> {
  await q.query('UPDATE password_resets SET used_at = now() WHERE account_id = $1 AND used_at IS NULL', [accountId]);
  await q.query('INSERT INTO password_resets (id, account_id, code_hash, expires_at) VALUES ($1, $2, $3, $4)', [newId(), accountId, codeHash, expiresAt]);
}

/** The newest unused, unexpired reset code of an active account, by e-mail. */
export async function openResetCode(q: Queryable, email: string) {
  return (
    await q.query<{ id: string; account_id: string; code_hash: string; attempts: number }>(
      `SELECT r.id, r.account_id, r.code_hash, r.attempts FROM password_resets r JOIN accounts a ON a.id = r.account_id
        WHERE a.email = $1 AND a.status = 'active' AND r.used_at IS NULL AND r.expires_at > now()
        ORDER BY r.created_at DESC LIMIT 1`,
      [email],
    )
  ).rows[0];
}

/** Count a wrong try of a reset code. */
export async function countResetAttempt(q: Queryable, resetId: string): Promise<void> {
  await q.query('UPDATE password_resets SET attempts = attempts + 1 WHERE id = $1', [resetId]);
}

/** Mark a reset code used. */
export async function useResetCode(q: Queryable, resetId: string): Promise<void> {
  await q.query('UPDATE password_resets SET used_at = now() WHERE id = $1', [resetId]);
}

/** An account's role in an organisation where its membership is active; undefined otherwise. */
export async function activeRoleIn(q: Queryable, accountId: string, orgId: string): Promise<string | undefined> {
  return (await q.query<{ role: string }>("SELECT role FROM memberships WHERE account_id = $1 AND org_id = $2 AND status = 'active'", [accountId, orgId]))
    .rows[0]?.role;
}
