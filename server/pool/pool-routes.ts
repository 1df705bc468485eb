/**
 * Shared pools on the data-pool API (SPEC.md section 7): the organisation's pools, one pool's detail, its activity
 * (SIMs that joined and left) and its events, and its rename. Columns and rules come from schemas/pools.json,
 * pool-members.json and pool-events.json.
 */
import { RESOURCES } from '../../common/resource-registry.js';
import { fieldsSchema } from '../../common/resources.js';
import { listRoute, showRoute } from '../db/resource-list.js';
import { invalid, notFound } from '../http/api-error.js';
import { audit } from '../http/audit.js';
import { defineRoutes, pathParams } from '../http/route.js';
import { lockPoolName, poolNameTaken, poolRecord, renamePool } from './pool-repo.js';

const pools = RESOURCES.pools;
const poolSchema = { type: 'object', properties: pools.properties };
const POOL = { table: 'shared_pools', column: 'pool_id' };

export const poolRoutes = defineRoutes([
  // The organisation's pools; an organisation with none gets an empty page (the console then hides the menu entry).
  listRoute(pools, 'pool', '/shared_pool/cube/dashboard/pools', { method: 'GET' }),
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
