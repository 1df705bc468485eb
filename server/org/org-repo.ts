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
    `SELECT (SELECT count(*)::int FROM memberships WHERE org_id = $1) AS accounts,
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
