/**
 * Fleet demo data: SIMs, bundles, CDRs with their rollups, pools, autoflow rules, SMS, developer keys and
 * logs, invoices, reports, tasks and files, for the organisations of seed.ts.
 * Values come from a seeded PRNG, so every run makes the same ids, ICCIDs and volumes; times are relative
 * to opts.now (default: the current minute) so that "last 7 days" and "last 30 days" screens have content.
 *
 * This file runs the generators in order (they share one PRNG, so the order is part of the data); the data and the
 * generators are in server/db/seed/: fixtures.ts (the fleets and the ids other tests use), catalogue.ts (what the
 * generators draw from), rows.ts (their shared context and inserts), one file per group of tables.
 */
import { dbInTransaction, type Db, type Queryable } from './db.js';
import type { FileStore } from '../job/storage.js';
import { Rng } from '../domain/rng.js';
import { type SeedSize } from './seed/fixtures.js';
import { MINUTE, type Ctx } from './seed/rows.js';
import { seedBundles, seedPoolsAndSims, seedSimEvents } from './seed/sims.js';
import { seedCdrs, seedPoolEvents, seedRollups } from './seed/usage.js';
import { armAutoflow, seedAutoflow } from './seed/autoflow.js';
import { seedSms } from './seed/sms.js';
import { seedDeveloper } from './seed/developer.js';
import { seedInvoices } from './seed/invoices.js';
import { seedReportsAndTasks } from './seed/reports.js';

export * from './seed/fixtures.js';

/** Fill every fleet table for the organisations and accounts of seed.ts. */
export async function seedFleet(q: Queryable, opts: { size: SeedSize; kind: Db['kind']; now?: Date; files?: FileStore }): Promise<void> {
  const now = new Date(Math.floor((opts.now ?? new Date()).getTime() / MINUTE) * MINUTE);
  const ctx: Ctx = { q, db: dbInTransaction(q, opts.kind), files: opts.files, size: opts.size, now, rng: new Rng(`fleet:${opts.size}`), sims: [], pools: [] };
  await seedPoolsAndSims(ctx);
  await seedBundles(ctx);
  await seedSimEvents(ctx);
  await seedCdrs(ctx);
  await seedPoolEvents(ctx);
  await seedAutoflow(ctx);
  await seedSms(ctx);
  await seedRollups(ctx);
  await seedDeveloper(ctx);
  await seedInvoices(ctx);
  await seedReportsAndTasks(ctx);
  await armAutoflow(ctx);
}
