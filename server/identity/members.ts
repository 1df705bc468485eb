/** Shared checks for adding people to an organisation (invitations, direct creation). */
import type { FastifyRequest } from 'fastify';
import { CODES } from '../../common/errors.js';
import { asRole, type Role } from '../../common/roles.js';
import type { Queryable } from '../db/db.js';
import { ApiError, notFound } from '../http/api-error.js';
import { audit } from '../http/audit.js';
import { assertCan, type AuthContext } from '../http/context.js';
import { memberOrg, memberRole, removeMembership, seatsOf } from '../org/org-repo.js';
import { revokeAllSessions } from './sessions.js';

/**
 * Refuse a role the caller may not give (common/permissions.ts: none above one's own), for a new account or
 * invitation (create) or a member's new role (updateAccess).
 */
export function assertGrantable(auth: AuthContext, role: string, action: 'create' | 'updateAccess' = 'create'): Role {
  const r = asRole(role);
  assertCan(auth.ability, action, 'account', { role: r });
  return r;
}

/** Refuse when the current organisation has no account seat left. */
export async function assertSeatLeft(q: Queryable, req: FastifyRequest, auth: AuthContext): Promise<void> {
  const org = (await memberOrg(q, auth.accountId, auth.orgId))!;
  const seats = await seatsOf(q, org, req.server.config);
  if (seats.accountsLeft <= 0) throw new ApiError(400, CODES.maxAccounts);
}

/**
 * Remove a member from the current organisation, in q's transaction: a superadmin cannot be removed,
 * nor can callers remove themselves; someone who belongs nowhere any more is signed out everywhere.
 */
export async function removeMember(q: Queryable, req: FastifyRequest, accountId: string): Promise<void> {
  const auth = req.requireAuth();
  const m = await memberRole(q, auth.orgId, accountId, true);
  if (!m) throw notFound('membership', accountId);
  if (m.role === 'superadmin') throw new ApiError(403, CODES.superadminCannotBeRemoved);
  req.authorize('delete', 'account', { role: m.role });
  if (accountId === auth.accountId) throw new ApiError(400, CODES.orgInsufficientPermission);
  const { belongsSomewhere } = await removeMembership(q, auth.orgId, accountId);
  if (!belongsSomewhere) await revokeAllSessions(q, accountId, 'removed from last organisation');
  await audit(q, req, { action: 'removeMember', entity: 'membership', entityId: accountId, before: { role: m.role, status: m.status } });
}
