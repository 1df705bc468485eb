/**
 * Shared pools on the data-pool API (SPEC.md section 7): the organisation's pools, one pool's detail, its activity
 * (SIMs that joined and left) and its events, and its rename. Columns and rules come from schemas/pools.json,
 * pool-members.json and pool-events.json.
 */
import { RESOURCES } from '../../common/resource-registry.js';
import { fieldsSchema } from '../../common/resources.js';
import { listRoute, showRoute } from '../schema/resource-routes.js';
import { invalid, notFound } from '../http/api-error.js';
import { audit } from '../http/audit.js';
import { defineRoutes, pathParams } from '../http/route.js';
import { arrayOf, ID_PARAMS, subjectRoutes } from '../http/shapes.js';
import { subjectOf } from '../../common/ability.js';
import { orgIdOf } from '../org/org-repo.js';
import { lockPoolName, poolNameTaken, poolRecord, poolsOfOrg, renamePool } from './pool-repo.js';

const pools = RESOURCES.pools;
const poolSchema = { type: 'object', properties: pools.properties };
const POOL = { table: 'shared_pools', column: 'pool_id' };
const route = subjectRoutes('pool', 'shared-pool-cube');

export const poolRoutes = defineRoutes([
  // The organisation's pools; an organisation with none gets an empty page (the console then hides the menu entry).
  listRoute(pools, 'pool', '/shared_pool/cube/dashboard/pools', { method: 'GET' }),
  // An organisation's pools by its id or code (SPEC.md section 7 "/{id}/pools"; "pool list by org_code: data is an
  // array of pools"): any organisation the caller is an active member of, not only the current one. Another
  // organisation's id answers as one that does not exist (common/permissions.ts "notMember").
  route('GET', '/shared_pool/cube/dashboard/:id/pools', 'read', {
    summary: "The pools of an organisation the caller is a member of, by the organisation's id or code",
    schema: { params: ID_PARAMS, response: arrayOf(poolSchema) },
    handler: async (req) => {
      const auth = req.requireAuth();
      const { id } = req.params as { id: string };
      const orgId = await orgIdOf(req.server.db, id);
      if (!orgId || !auth.ability.can('read', subjectOf('shared-pool-cube', { orgId }))) throw notFound('organisation', id);
      return poolsOfOrg(req.server.db, orgId);
    },
  }),
  showRoute(pools),
  // Activity: every SIM that joined the pool, with its cycle usage, and when it left.
  listRoute(RESOURCES.poolMembers, 'pool', '/shared_pool/cube/pools/:id/activity', { method: 'GET', parent: POOL, idColumn: 't.sim_id' }),
  // Events of SPEC.md section 3: setup, enrolments and exits, limit changes, overage and its recovery, ….
  listRoute(RESOURCES.poolEvents, 'pool', '/shared_pool/cube/pools/:id/events', { method: 'GET', parent: POOL }),
  {
    service: 'pool',
    method: 'PUT',
    path: '/pool/:id/name',
    permission: { action: 'update', subject: 'shared-pool-cube' },
    schema: { params: pathParams('id'), body: fieldsSchema(pools, ['name']), response: poolSchema },
    // Rename: a name is unique in the organisation, whatever its case.
    handler: async (req) => {
      const auth = req.requireAuth();
      const { id } = req.params as { id: string };
      const name = (req.body as { name: string }).name.trim();
      return req.server.db.tx(async (q) => {
        const before = await lockPoolName(q, auth.orgId, id);
        if (!before) throw notFound('pool', id);
        if (await poolNameTaken(q, auth.orgId, name, id)) throw invalid('name', 'unique');
        await renamePool(q, auth.orgId, id, name);
        await audit(q, req, { action: 'rename', entity: 'shared_pool', entityId: id, before, after: { name } });
        return poolRecord(q, auth.orgId, id);
      });
    },
  },
]);
