/** Shared checks for adding people to an organisation (invitations, direct creation). */
import type { FastifyRequest } from 'fastify';
import { CODES } from '../../common/errors.js';
import { asRole, roleRank, type Role } from '../../common/roles.js';
import type { Queryable } from '../db/db.js';
import { ApiError, notFound } from '../http/api-error.js';
import { audit } from '../http/audit.js';
import type { AuthContext } from '../http/context.js';
import { memberOrg, seatsOf } from '../org/org-repo.js';
import { revokeAllSessions } from './sessions.js';

/** Refuse a role above the caller's own (an admin cannot make a superadmin). */
export function assertGrantable(auth: AuthContext, role: string): Role {
  const r = asRole(role);
  if (roleRank(r) > roleRank(auth.role)) throw new ApiError(403, CODES.permissionDenied);
  return r;
}

/** Refuse when the current organisation has no account seat left. */
export async function assertSeatLeft(q: Queryable, req: FastifyRequest, auth: AuthContext): Promise<void> {
  const org = (await memberOrg(q, auth.accountId, auth.orgId))!;
  const seats = await seatsOf(q, org, req.server.config);
  if (seats.accountsLeft <= 0) throw new ApiError(400, CODES.maxAccounts);
}

/** The member's role in the current organisation, or null. */
export async function memberRole(q: Queryable, orgId: string, accountId: string): Promise<{ role: string; status: string } | null> {
  const r = await q.query<{ role: string; status: string }>('SELECT role, status FROM memberships WHERE org_id = $1 AND account_id = $2', [orgId, accountId]);
  return r.rows[0] ?? null;
}

/**
 * Remove a member from the current organisation, in q's transaction: a superadmin cannot be removed,
 * nor can callers remove themselves; someone who belongs nowhere any more is signed out everywhere.
 */
export async function removeMember(q: Queryable, req: FastifyRequest, accountId: string): Promise<void> {
  const auth = req.requireAuth();
  const m = await memberRole(q, auth.orgId, accountId);
  if (!m) throw notFound('membership', accountId);
  if (m.role === 'superadmin') throw new ApiError(403, CODES.superadminCannotBeRemoved);
  req.authorize('delete', 'account', { role: m.role });
  if (accountId === auth.accountId) throw new ApiError(400, CODES.orgInsufficientPermission);
  await q.query('DELETE FROM memberships WHERE org_id = $1 AND account_id = $2', [auth.orgId, accountId]);
  const left = await q.query('SELECT 1 FROM memberships WHERE account_id = $1', [accountId]);
  if (left.rows.length === 0) await revokeAllSessions(q, accountId, 'removed from last organisation');
  await audit(q, req, { action: 'removeMember', entity: 'membership', entityId: accountId, before: { role: m.role, status: m.status } });
}
