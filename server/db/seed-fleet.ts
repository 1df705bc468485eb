/** Fleet demo data (SIMs, bundles, CDRs, SMS, pools, rules, invoices, tasks). Filled by the data-model work. */
import type { Queryable } from './db.js';

export type SeedSize = 'small' | 'demo';

export async function seedFleet(_q: Queryable, _opts: { size: SeedSize }): Promise<void> {
  // Filled in by migration 002 work.
}
