/** SIM routes of SPEC.md section 7 (main API). Lists take their validation and columns from their schemas/ file. */
import { RESOURCES } from '../../common/resource-registry.js';
import { listRoute } from '../schema/resource-routes.js';
import { defineRoutes } from '../http/route.js';

export const simRoutes = defineRoutes([
  // All SIMs of the current organisation: search by the whole value or trailing digits, advanced filters, bulk search
  // of up to 1000 ICCIDs, paged by page number or cursor.
  listRoute(RESOURCES.sims, 'main', '/sim/list/es'),
  // Bundle order records (sim/service): every order of the organisation's SIMs, newest first.
  listRoute(RESOURCES.bundleOrders, 'main', '/sim/service/list'),
]);
