/** The SQL of invitations and of an account's own settings (SPEC.md section 7, Identity). */
import type { Language } from '../../common/limits.js';
import type { Queryable } from '../db/db.js';

/** An account by (normalised) e-mail, with its language; undefined for an unknown e-mail. */
export async function accountByEmail(q: Queryable, email: string) {
  return (await q.query<{ id: string; locale: Language }>('SELECT id, locale FROM accounts WHERE email = $1', [email])).rows[0];
}

/** A new account without a password (it sets one when it follows its invitation). */
export async function insertInvitedAccount(
  q: Queryable,
  a: { id: string; email: string; firstName: string; lastName: string; locale: Language },
): Promise<void> {
  await q.query('INSERT INTO accounts (id, email, first_name, last_name, locale) VALUES ($1, $2, $3, $4, $5)', [
    a.id,
    a.email,
    a.firstName,
    a.lastName,
    a.locale,
  ]);
}

/** A pending membership whose invitation link carries the secret of tokenHash. */
export async function insertInvitation(
  q: Queryable,
  m: { accountId: string; orgId: string; role: string; invitedBy: string; tokenHash: string },
): Promise<void> {
  await q.query(
    "INSERT INTO memberships (account_id, org_id, role, status, invited_by, invite_token_hash, invited_at) VALUES ($1, $2, $3, 'pending', $4, $5, now())",
    [m.accountId, m.orgId, m.role, m.invitedBy, m.tokenHash],
  );
}

/** Accept the signed-in account's own invitation, if still valid; its organisation and role, or undefined. */
export async function acceptOwnInvitation(q: Queryable, tokenHash: string, accountId: string, ttlDays: number) {
  return (
    await q.query<{ org_id: string; role: string; code: string }>(
      `UPDATE memberships m SET status = 'active', accepted_at = now(), invite_token_hash = NULL
         FROM organisations o
        WHERE o.id = m.org_id AND m.invite_token_hash = $1 AND m.account_id = $2 AND m.status = 'pending'
          AND m.invited_at > now() - make_interval(days => $3)
        RETURNING m.org_id, m.role, o.code`,
      [tokenHash, accountId, ttlDays],
    )
  ).rows[0];
}

/** A valid invitation of an account that has no password yet (a new account following its link). */
export async function invitationOfNewAccount(q: Queryable, tokenHash: string, ttlDays: number) {
  return (
    await q.query<{ account_id: string; org_id: string }>(
      `SELECT m.account_id, m.org_id FROM memberships m JOIN accounts a ON a.id = m.account_id
        WHERE m.invite_token_hash = $1 AND m.status = 'pending' AND a.password_hash IS NULL
          AND m.invited_at > now() - make_interval(days => $2)`,
      [tokenHash, ttlDays],
    )
  ).rows[0];
}

/** A new account's first sign-in from its invitation: its password, its name if given, the sign-in counted. */
export async function completeInvitedAccount(q: Queryable, accountId: string, hash: string, firstName: string | null, lastName: string | null): Promise<void> {
  await q.query(
    `UPDATE accounts SET password_hash = $2, password_changed_at = now(), first_name = COALESCE($3, first_name), last_name = COALESCE($4, last_name),
            logins_count = logins_count + 1, last_sign_in_at = now(), updated_at = now() WHERE id = $1`,
    [accountId, hash, firstName, lastName],
  );
}

/** Activate an invited membership; it becomes the default when the account has no default yet. */
export async function activateInvitedMembership(q: Queryable, accountId: string, orgId: string): Promise<void> {
  const hasDefault = await q.query('SELECT 1 FROM memberships WHERE account_id = $1 AND is_default', [accountId]);
  await q.query(
    "UPDATE memberships SET status = 'active', accepted_at = now(), invite_token_hash = NULL, is_default = $3 WHERE account_id = $1 AND org_id = $2",
    [accountId, orgId, hasDefault.rows.length === 0],
  );
}

/**
 * Delete a pending invitation of an organisation by e-mail, and the account when it existed only for it; what was
 * deleted, or undefined when there was no such invitation.
 */
export async function deleteInvitation(q: Queryable, email: string, orgId: string) {
  const row = (
    await q.query<{ account_id: string; role: string }>(
      `DELETE FROM memberships m USING accounts a WHERE a.id = m.account_id AND a.email = $1 AND m.org_id = $2 AND m.status = 'pending' RETURNING m.account_id, m.role`,
      [email, orgId],
    )
  ).rows[0];
  if (row)
    await q.query('DELETE FROM accounts a WHERE a.id = $1 AND a.password_hash IS NULL AND NOT EXISTS (SELECT 1 FROM memberships WHERE account_id = a.id)', [
      row.account_id,
    ]);
  return row;
}

/** The id of an organisation, by code, where the account is an active member. */
export async function activeOrgIdByCode(q: Queryable, accountId: string, code: string): Promise<string | undefined> {
  return (
    await q.query<{ id: string }>(
      "SELECT o.id FROM organisations o JOIN memberships m ON m.org_id = o.id WHERE m.account_id = $1 AND m.status = 'active' AND o.code = $2",
      [accountId, code],
    )
  ).rows[0]?.id;
}

/** Make an organisation the account's default one; the code of the former default (null when none). */
export async function setDefaultOrg(q: Queryable, accountId: string, orgId: string): Promise<string | null> {
  const before = (
    await q.query<{ code: string }>('SELECT o.code FROM memberships m JOIN organisations o ON o.id = m.org_id WHERE m.account_id = $1 AND m.is_default', [
      accountId,
    ])
  ).rows[0];
  await q.query('UPDATE memberships SET is_default = false WHERE account_id = $1 AND is_default', [accountId]);
  await q.query('UPDATE memberships SET is_default = true WHERE account_id = $1 AND org_id = $2', [accountId, orgId]);
  return before?.code ?? null;
}

/** Rename an account (null keeps a part); its name before and after. */
export async function renameAccount(q: Queryable, accountId: string, firstName: string | null, lastName: string | null) {
  const before = (await q.query<{ first_name: string; last_name: string }>('SELECT first_name, last_name FROM accounts WHERE id = $1', [accountId])).rows[0];
  const r = await q.query<{ first_name: string; last_name: string }>(
    'UPDATE accounts SET first_name = COALESCE($2, first_name), last_name = COALESCE($3, last_name), updated_at = now() WHERE id = $1 RETURNING first_name, last_name',
    [accountId, firstName, lastName],
  );
  return { before, after: r.rows[0] };
}
