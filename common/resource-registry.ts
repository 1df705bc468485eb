/** Every resource schema of schemas/, checked when loaded. Adding a resource starts here (docs/schemas.md). */
import accounts from '../schemas/accounts.json' with { type: 'json' };
import bundleOrders from '../schemas/bundle-orders.json' with { type: 'json' };
import cdrs from '../schemas/cdrs.json' with { type: 'json' };
import invoiceLines from '../schemas/invoice-lines.json' with { type: 'json' };
import invoices from '../schemas/invoices.json' with { type: 'json' };
import orgs from '../schemas/orgs.json' with { type: 'json' };
import poolEvents from '../schemas/pool-events.json' with { type: 'json' };
import poolMembers from '../schemas/pool-members.json' with { type: 'json' };
import pools from '../schemas/pools.json' with { type: 'json' };
import reportColumns from '../schemas/report-columns.json' with { type: 'json' };
import reports from '../schemas/reports.json' with { type: 'json' };
import sims from '../schemas/sims.json' with { type: 'json' };
import { defineResource, type ResourceSchema } from './resources.js';

export const RESOURCES: Record<string, ResourceSchema> = {
  sims: defineResource(sims),
  orgs: defineResource(orgs),
  bundleOrders: defineResource(bundleOrders),
  cdrs: defineResource(cdrs),
  accounts: defineResource(accounts),
  pools: defineResource(pools),
  poolMembers: defineResource(poolMembers),
  poolEvents: defineResource(poolEvents),
  invoices: defineResource(invoices),
  invoiceLines: defineResource(invoiceLines),
  reports: defineResource(reports),
  reportColumns: defineResource(reportColumns),
};
