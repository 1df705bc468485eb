/**
 * How far an administrator reaches over an account. Names, language, status, password and oversight belong to the
 * account, not to one membership, so changing them touches every organisation the account belongs to: the caller must
 * administer all of them. Otherwise the admin of one customer could invite another customer's admin (a pending
 * membership is enough to appear in the list) and then disable or reset that account.
 */
import { defineAbilityFor, subjectOf } from '../../common/ability.js';
import type { Action } from '../../common/permissions.js';
import { roleRank, asRole, type Role } from '../../common/roles.js';
import type { Queryable } from '../db/db.js';
import type { AuthContext } from '../http/context.js';

export interface Reach {
  /** The account's highest role in any organisation: a superadmin somewhere is a superadmin account everywhere. */
  topRole: Role;
  /** True when the caller may do the action in every organisation the account belongs to (pending ones included). */
  everywhere: boolean;
}

/** The reach of the signed-in caller over an account, for one action on the account subject. */
export async function reachOver(q: Queryable, auth: AuthContext, accountId: string, action: Action): Promise<Reach> {
  const rows = (
    await q.query<{ role: string; mine: string | null }>(
      `SELECT t.role, mine.role AS mine
         FROM memberships t
         LEFT JOIN memberships mine ON mine.org_id = t.org_id AND mine.account_id = $2 AND mine.status = 'active'
        WHERE t.account_id = $1`,
      [accountId, auth.accountId],
    )
  ).rows;
  const topRole = rows.map((r) => asRole(r.role)).reduce<Role>((a, b) => (roleRank(b) > roleRank(a) ? b : a), 'user');
  const record = subjectOf('account', { role: topRole });
  const everywhere = rows.every((r) => r.mine !== null && defineAbilityFor(r.mine).can(action, record as never));
  return { topRole, everywhere };
}
