/** SQL for the accounts of an organisation (server/org/account-routes.ts), always scoped by the organisation. */
import type { Language } from '../../common/limits.js';
import { asRole, roleRank, type Role } from '../../common/roles.js';
import type { Queryable } from '../db/db.js';

/** An account as an organisation sees it (the routes' response). */
export type AccountView = Record<string, unknown> & { id: string; role: string; status: string; oversight: boolean; pendingInvite: boolean };

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

/** A page of an organisation's accounts, oldest first; search matches the e-mail, or a member's (never an invitee's) name. */
export async function accountPage(q: Queryable, orgId: string, search: string | undefined, page: number, pageSize: number) {
  const like = search ? `%${search.replace(/[\\%_]/g, (c) => `\\${c}`).toLowerCase()}%` : null;
  const where = `WHERE m.org_id = $1 AND NOT a.back_office AND ($2::text IS NULL OR a.email LIKE $2 OR (NOT ${PENDING} AND lower(a.first_name || ' ' || a.last_name) LIKE $2))`;
  const total = (await q.query<{ n: number }>(`SELECT count(*)::int AS n FROM memberships m JOIN accounts a ON a.id = m.account_id ${where}`, [orgId, like]))
    .rows[0].n;
  const items = (
    await q.query(`${SELECT} ${where} ORDER BY CASE WHEN ${PENDING} THEN m.invited_at ELSE a.created_at END, a.id LIMIT $3 OFFSET $4`, [
      orgId,
      like,
      pageSize,
      (page - 1) * pageSize,
    ])
  ).rows;
  return { items, total };
}

/**
 * One account of an organisation, or null. The provider's back-office accounts (accounts.back_office) are not the
 * customer's: neither the list above nor this shows, changes or removes them.
 */
export async function accountIn(q: Queryable, orgId: string, accountId: string): Promise<AccountView | null> {
  return (await q.query<AccountView>(`${SELECT} WHERE m.org_id = $1 AND a.id = $2 AND NOT a.back_office`, [orgId, accountId])).rows[0] ?? null;
}

/** Whether an e-mail address has an account. */
export async function emailTaken(q: Queryable, email: string): Promise<boolean> {
  return (await q.query('SELECT 1 FROM accounts WHERE email = $1', [email])).rows.length > 0;
}

/** A new account, active at once as the given role and default in one organisation. */
export async function insertAccount(
  q: Queryable,
  a: { id: string; email: string; firstName: string; lastName: string; passwordHash: string; locale: string; orgId: string; role: Role },
): Promise<void> {
  await q.query('INSERT INTO accounts (id, email, first_name, last_name, password_hash, locale, password_changed_at) VALUES ($1, $2, $3, $4, $5, $6, now())', [
    a.id,
    a.email,
    a.firstName,
    a.lastName,
    a.passwordHash,
    a.locale,
  ]);
  await q.query("INSERT INTO memberships (account_id, org_id, role, is_default, status, accepted_at) VALUES ($1, $2, $3, true, 'active', now())", [
    a.id,
    a.orgId,
    a.role,
  ]);
}

/** A membership's role. */
export async function setMemberRole(q: Queryable, orgId: string, accountId: string, role: string): Promise<void> {
  await q.query('UPDATE memberships SET role = $3 WHERE org_id = $1 AND account_id = $2', [orgId, accountId, role]);
}

/** The account's own names and language (null leaves a field as it is). */
export async function updateProfile(
  q: Queryable,
  accountId: string,
  p: { firstName: string | null; lastName: string | null; locale: string | null },
): Promise<void> {
  await q.query(
    'UPDATE accounts SET first_name = COALESCE($2, first_name), last_name = COALESCE($3, last_name), locale = COALESCE($4, locale), updated_at = now() WHERE id = $1',
    [accountId, p.firstName, p.lastName, p.locale],
  );
}

/** The account's oversight privilege. */
export async function setOversight(q: Queryable, accountId: string, oversight: boolean): Promise<void> {
  await q.query('UPDATE accounts SET oversight = $2, updated_at = now() WHERE id = $1', [accountId, oversight]);
}

/** The account's status (active or disabled). */
export async function setStatus(q: Queryable, accountId: string, status: string): Promise<void> {
  await q.query('UPDATE accounts SET status = $2, updated_at = now() WHERE id = $1', [accountId, status]);
}

/** A member's address and language, for mailing them (null for anyone else). */
export async function mailTarget(q: Queryable, orgId: string, accountId: string): Promise<{ email: string; locale: Language } | null> {
  const r = await q.query<{ email: string; locale: Language }>(
    'SELECT a.email, a.locale FROM memberships m JOIN accounts a ON a.id = m.account_id WHERE m.org_id = $1 AND a.id = $2',
    [orgId, accountId],
  );
  return r.rows[0] ?? null;
}

/** A new password hash; the caller ends the sessions. */
export async function setPassword(q: Queryable, accountId: string, hash: string): Promise<void> {
  await q.query('UPDATE accounts SET password_hash = $2, password_changed_at = now(), updated_at = now() WHERE id = $1', [accountId, hash]);
}

/** The organisations an account belongs to that the viewer belongs to as well. */
export async function sharedOrgs(q: Queryable, accountId: string, viewerId: string) {
  const r = await q.query(
    `SELECT o.code, o.name, m.role, m.status = 'pending' AS pending_invitation
       FROM memberships m JOIN organisations o ON o.id = m.org_id
      WHERE m.account_id = $1 AND EXISTS (SELECT 1 FROM memberships mine WHERE mine.account_id = $2 AND mine.org_id = m.org_id AND mine.status = 'active')
      ORDER BY o.level, o.name`,
    [accountId, viewerId],
  );
  return r.rows;
}

/**
 * The account as common/permissions.ts judges it: its highest role anywhere (a superadmin somewhere is a superadmin
 * account everywhere) and every organisation it belongs to, pending ones included. An invitee is judged by the role
 * offered, and nothing else of theirs is the inviting organisation's to see.
 */
export async function accountSubject(q: Queryable, view: AccountView): Promise<AccountSubject> {
  return (await accountSubjects(q, [view])).get(view.id)!;
}

/** An account as the permission file's conditions read it (accountSubject). */
export type AccountSubject = { role: Role; orgIds: string[]; pendingInvite: boolean };

/** accountSubject of several accounts (a page of the list) in one query, by account id. */
export async function accountSubjects(q: Queryable, views: readonly AccountView[]): Promise<Map<string, AccountSubject>> {
  const members = views.filter((v) => !v.pendingInvite).map((v) => v.id);
  const rows = members.length
    ? (
        await q.query<{ account_id: string; org_id: string; role: string }>(
          'SELECT account_id, org_id, role FROM memberships WHERE account_id = ANY($1::text[])',
          [members],
        )
      ).rows
    : [];
  return new Map(
    views.map((view): [string, AccountSubject] => {
      if (view.pendingInvite) return [view.id, { role: asRole(view.role), orgIds: [], pendingInvite: true }];
      const mine = rows.filter((r) => r.account_id === view.id);
      const role = mine.map((r) => asRole(r.role)).reduce<Role>((a, b) => (roleRank(b) > roleRank(a) ? b : a), 'user');
      return [view.id, { role, orgIds: mine.map((r) => r.org_id), pendingInvite: false }];
    }),
  );
}
