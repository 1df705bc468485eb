/** SIM routes of SPEC.md section 7 (main API). The list takes its validation and its columns from schemas/sims.json. */
import { RESOURCES } from '../../common/resource-registry.js';
import { listQuerySchema } from '../../common/resources.js';
import { listPage } from '../db/listing.js';
import { listQueryOf, listSpecOf } from '../db/resource-list.js';
import { defineRoutes } from '../http/route.js';

const sims = RESOURCES.sims;
const spec = listSpecOf(sims);
const itemSchema = { type: 'object', properties: Object.fromEntries(Object.keys(spec.columns).map((f) => [f, sims.properties[f]])) };

export const simRoutes = defineRoutes([
  {
    service: 'main',
    method: 'POST',
    path: '/sim/list/es',
    permission: { action: 'read', subject: 'sim' },
    schema: {
      body: listQuerySchema(sims),
      response: {
        type: 'object',
        properties: { items: { type: 'array', items: itemSchema }, total: { type: 'integer' }, totalCapped: { type: 'boolean' }, nextCursor: { type: ['string', 'null'] } },
      },
    },
    // All SIMs of the current organisation: search by the whole value or trailing digits, advanced filters, bulk
    // search of up to 1000 ICCIDs, paged by page number or cursor.
    handler: async (req) => {
      const auth = req.requireAuth();
      return listPage(req.server.db, spec, auth.orgId, listQueryOf(sims, (req.body ?? {}) as Record<string, unknown>));
    },
  },
]);
