/** SQL for organisations and their members, scoped by the caller's organisation. */
import type { Queryable } from '../db/db.js';

export interface OrgRow {
  id: string;
  code: string;
  name: string;
  country: string;
  parent_id: string | null;
  /** The first-level organisation of its tree (itself at the first level). */
  root_id: string;
  level: number;
  sms_quota: number;
  settlement: boolean;
  account_cap: number | null;
  org_cap: number | null;
  brand_id: string;
}

/** An organisation the account is an active member of, by id or code; null for anyone else's. */
export async function memberOrg(q: Queryable, accountId: string, idOrCode: string): Promise<OrgRow | null> {
  const r = await q.query<OrgRow>(
    `SELECT o.* FROM organisations o JOIN memberships m ON m.org_id = o.id AND m.account_id = $1 AND m.status = 'active'
      WHERE o.id = $2 OR o.code = $2`,
    [accountId, idOrCode],
  );
  return r.rows[0] ?? null;
}

/** Seats: the caps (the organisation's own or the configured default) and what is used. */
export async function seatsOf(q: Queryable, org: OrgRow, defaults: { accountCap: number; orgCap: number }) {
  const r = await q.query<{ accounts: number; orgs: number }>(
    `SELECT (SELECT count(*)::int FROM memberships m JOIN accounts a ON a.id = m.account_id WHERE m.org_id = $1 AND NOT a.back_office) AS accounts,
            (SELECT count(*)::int FROM organisations WHERE parent_id = $1) AS orgs`,
    [org.id],
  );
  const accountCap = org.account_cap ?? defaults.accountCap;
  const orgCap = org.org_cap ?? defaults.orgCap;
  const { accounts, orgs } = r.rows[0];
  return {
    accountCap,
    accountsUsed: accounts,
    accountsLeft: Math.max(0, accountCap - accounts),
    orgCap,
    orgsUsed: orgs,
    orgsLeft: Math.max(0, orgCap - orgs),
  };
}

/** The first-level organisation above (or equal to) an organisation. */
export async function rootOf(q: Queryable, orgId: string): Promise<string> {
  const r = await q.query<{ id: string }>(
    `WITH RECURSIVE up AS (SELECT id, parent_id FROM organisations WHERE id = $1
       UNION ALL SELECT o.id, o.parent_id FROM organisations o JOIN up ON o.id = up.parent_id)
     SELECT id FROM up WHERE parent_id IS NULL`,
    [orgId],
  );
  return r.rows[0]?.id ?? orgId;
}

/**
 * Take the organisation's turn for the rest of the transaction without holding up rows that merely refer to it: FOR NO
 * KEY UPDATE waits for, and holds up, lockOrg and every other taker of the turn, but not another transaction's
 * foreign-key check on the row (FOR KEY SHARE). The invoice transitions take it (invoice-lifecycle.ts): one of them
 * holding the turn and waiting for an invoice that a correction's last transaction has locked would otherwise
 * deadlock with that correction inserting its new version (which refers to the organisation).
 */
export async function takeOrgTurn(q: Queryable, orgId: string): Promise<void> {
  await q.query('SELECT 1 FROM organisations WHERE id = $1 FOR NO KEY UPDATE', [orgId]);
}

/** Lock an organisation's row for the rest of the transaction, so caps checked in it cannot be raced past. */
export async function lockOrg(q: Queryable, orgId: string): Promise<OrgRow | null> {
  const r = await q.query<OrgRow>('SELECT * FROM organisations WHERE id = $1 FOR UPDATE', [orgId]);
  return r.rows[0] ?? null;
}

/** A direct sub-organisation of parentId, by id or code; null for anything else (someone else's, a grandchild, the parent). */
export async function childOrg(q: Queryable, parentId: string, idOrCode: string): Promise<OrgRow | null> {
  const r = await q.query<OrgRow>('SELECT * FROM organisations WHERE parent_id = $1 AND (id = $2 OR code = $2)', [parentId, idOrCode]);
  return r.rows[0] ?? null;
}

/** The direct sub-organisations of an organisation, by name. */
export async function childOrgs(q: Queryable, parentId: string): Promise<OrgRow[]> {
  return (await q.query<OrgRow>('SELECT * FROM organisations WHERE parent_id = $1 ORDER BY name, id', [parentId])).rows;
}

/** Set an organisation's SMS quota. */
export async function setSmsQuota(q: Queryable, orgId: string, smsQuota: number): Promise<void> {
  await q.query('UPDATE organisations SET sms_quota = $2, updated_at = now() WHERE id = $1', [orgId, smsQuota]);
}

/** One row of the organisation list of an account (GET /orgs): every membership, pending ones included. */
export async function orgsOfAccount(q: Queryable, accountId: string) {
  const r = await q.query(
    `SELECT o.id, o.code, o.name, o.country, o.level, p.code AS "parentCode", o.sms_quota AS "smsQuota",
            m.role, m.is_default AS default, m.status = 'pending' AS pending_invitation
       FROM memberships m JOIN organisations o ON o.id = m.org_id LEFT JOIN organisations p ON p.id = o.parent_id
      WHERE m.account_id = $1 ORDER BY o.level, o.name`,
    [accountId],
  );
  return r.rows;
}

/** Whether a name is taken in a customer's tree (case-insensitive), by another organisation than exceptId. */
export async function nameTaken(q: Queryable, rootId: string, name: string, exceptId: string | null = null): Promise<boolean> {
  const r = await q.query('SELECT 1 FROM organisations WHERE root_id = $1 AND lower(name) = lower($2) AND ($3::text IS NULL OR id <> $3)', [
    rootId,
    name,
    exceptId,
  ]);
  return r.rows.length > 0;
}

/** Insert an organisation (the caller maps a unique violation to "name taken"). */
export async function insertOrg(
  q: Queryable,
  o: { id: string; code: string; name: string; country: string; parent_id: string; level: number; brand_id: string; sms_quota: number },
): Promise<void> {
  await q.query('INSERT INTO organisations (id, code, name, country, parent_id, level, brand_id, sms_quota) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)', [
    o.id,
    o.code,
    o.name,
    o.country,
    o.parent_id,
    o.level,
    o.brand_id,
    o.sms_quota,
  ]);
}

/** Active memberships in an organisation, added as they are; one that exists already is left alone. */
export async function addActiveMembers(q: Queryable, orgId: string, members: Array<{ accountId: string; role: string }>): Promise<void> {
  for (const m of members) {
    await q.query("INSERT INTO memberships (account_id, org_id, role, status, accepted_at) VALUES ($1, $2, $3, 'active', now()) ON CONFLICT DO NOTHING", [
      m.accountId,
      orgId,
      m.role,
    ]);
  }
}

/** The active members of an organisation with their role and their account's oversight privilege. */
export async function activeMembersWithOversight(q: Queryable, orgId: string): Promise<Array<{ accountId: string; role: string; oversight: boolean }>> {
  const r = await q.query<{ accountId: string; role: string; oversight: boolean }>(
    `SELECT m.account_id AS "accountId", m.role, a.oversight
       FROM memberships m JOIN accounts a ON a.id = m.account_id
      WHERE m.org_id = $1 AND m.status = 'active'`,
    [orgId],
  );
  return r.rows;
}

/** Change an organisation's name and country. */
export async function updateOrg(q: Queryable, orgId: string, name: string, country: string): Promise<void> {
  await q.query('UPDATE organisations SET name = $2, country = $3, updated_at = now() WHERE id = $1', [orgId, name, country]);
}

/** Delete an organisation; the database refuses (23503) while any row of its own holds it. */
export async function deleteOrg(q: Queryable, orgId: string): Promise<void> {
  await q.query('DELETE FROM organisations WHERE id = $1', [orgId]);
}

/** The id of an organisation named by id or code, or null (whoever's it is: callers judge the caller's rights on it). */
export async function orgIdOf(q: Queryable, idOrCode: string): Promise<string | null> {
  const r = await q.query<{ id: string }>('SELECT id FROM organisations WHERE id = $1 OR code = $1', [idOrCode]);
  return r.rows[0]?.id ?? null;
}

/**
 * A member's role and membership state in an organisation, or null; with customersOnly, null for the provider's
 * back-office accounts too, whose memberships are not the customer's to change or remove (account-repo's accountIn).
 */
export async function memberRole(q: Queryable, orgId: string, accountId: string, customersOnly = false): Promise<{ role: string; status: string } | null> {
  const r = await q.query<{ role: string; status: string }>(
    `SELECT m.role, m.status FROM memberships m JOIN accounts a ON a.id = m.account_id
      WHERE m.org_id = $1 AND m.account_id = $2 ${customersOnly ? 'AND NOT a.back_office' : ''}`,
    [orgId, accountId],
  );
  return r.rows[0] ?? null;
}

/** Remove a membership; answers whether the account still belongs to any organisation. */
export async function removeMembership(q: Queryable, orgId: string, accountId: string): Promise<{ belongsSomewhere: boolean }> {
  await q.query('DELETE FROM memberships WHERE org_id = $1 AND account_id = $2', [orgId, accountId]);
  const left = await q.query('SELECT 1 FROM memberships WHERE account_id = $1 LIMIT 1', [accountId]);
  return { belongsSomewhere: left.rows.length > 0 };
}
