/** SIM routes of SPEC.md section 7 (main API). Lists take their validation and columns from their schemas/ file. */
import { RESOURCES } from '../../common/resource-registry.js';
import { listQuerySchema, type ResourceSchema } from '../../common/resources.js';
import { listPage } from '../db/listing.js';
import { listQueryOf, listSpecOf } from '../db/resource-list.js';
import { defineRoutes, type RouteDef } from '../http/route.js';

/** The list route of a resource schema: body and columns from the schema, run by the shared list helper. */
function listRoute(resource: ResourceSchema, path: string): RouteDef {
  const spec = listSpecOf(resource);
  const itemSchema = { type: 'object', properties: Object.fromEntries(Object.keys(spec.columns).map((f) => [f, resource.properties[f]])) };
  return {
    service: 'main',
    method: 'POST',
    path,
    permission: { action: 'read', subject: resource['x-admin'].subject },
    schema: {
      body: listQuerySchema(resource),
      response: {
        type: 'object',
        properties: { items: { type: 'array', items: itemSchema }, total: { type: 'integer' }, totalCapped: { type: 'boolean' }, nextCursor: { type: ['string', 'null'] } },
      },
    },
    handler: async (req) => {
      const auth = req.requireAuth();
      return listPage(req.server.db, spec, auth.orgId, listQueryOf(resource, (req.body ?? {}) as Record<string, unknown>));
    },
  };
}

export const simRoutes = defineRoutes([
  // All SIMs of the current organisation: search by the whole value or trailing digits, advanced filters, bulk search
  // of up to 1000 ICCIDs, paged by page number or cursor.
  listRoute(RESOURCES.sims, '/sim/list/es'),
  // Bundle order records (sim/service): every order of the organisation's SIMs, newest first.
  listRoute(RESOURCES.bundleOrders, '/sim/service/list'),
]);
