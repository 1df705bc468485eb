/**
 * The databases API tests start from, made once per run instead of once per suite: an in-memory PGlite's initdb costs
 * 2-5 s of WebAssembly on two busy cores and the migrations and the small demo seed 1-2 s more, while opening a dump of
 * the migrated and seeded database takes about half a second; on PostgreSQL a new database is a copy of a template
 * database. Each suite still gets a database of its own, which nothing else touches.
 *
 * The seeded template is dated from when it was made (the seed writes "an hour ago", "this month", an activation whose
 * answer is due eight minutes on), so it is made again every minute: the seed dates its data from the minute it runs
 * in, so a suite gets the data it would have seeded itself, give or take its seconds. A template is made by whichever worker
 * first needs it, in a folder (and, on PostgreSQL, a database) renamed into place once whole, so two workers never
 * read a half-made one. TEST_TEMPLATE_DIR, set by the global set-up (tests/global-setup.ts), is where they are kept;
 * without it each database is made from scratch.
 */
import fs from 'node:fs';
import path from 'node:path';
import { migrate, openPglite, openPostgres, type Db } from '../server/db/db.js';
import { newId } from '../server/db/ids.js';
import { seedDemo } from '../server/db/seed.js';
import { filesIn } from '../server/job/storage.js';

/** How long a seeded template serves before the next is made: the minute the seed dates its data from. */
export const TEMPLATE_WINDOW_MS = 60_000;

export type TemplateKind = 'migrated' | 'seeded';

/** The folder of this run's templates, or null when the run has none. */
const templateRoot = (): string | null => process.env.TEST_TEMPLATE_DIR || null;

/** A template's name: the seeded one carries the window it serves. */
const templateName = (what: TemplateKind, now: number) => (what === 'seeded' ? `${what}_${Math.floor(now / TEMPLATE_WINDOW_MS)}` : what);

/** Make `dir` with `make`, unless another worker has: made in a folder of its own, renamed into place when whole. */
async function once(dir: string, make: (tmp: string) => Promise<void>): Promise<void> {
  if (fs.existsSync(dir)) return;
  const tmp = `${dir}.${process.pid}-${newId(6).replace(/[^A-Za-z0-9]/g, 'x')}`;
  fs.mkdirSync(tmp, { recursive: true });
  try {
    await make(tmp);
    fs.renameSync(tmp, dir);
  } catch (err) {
    fs.rmSync(tmp, { recursive: true, force: true });
    // Another worker renamed its own first: that one is used.
    if (!fs.existsSync(dir)) throw err;
  }
}

/** Fill a new database as the template says: migrated, and seeded (its files written under dataDir). */
async function fill(db: Db, what: TemplateKind, dataDir: string): Promise<void> {
  await migrate(db);
  if (what === 'seeded') await seedDemo(db, { size: 'small', files: filesIn(dataDir) });
}

/** The seed's files (reports, finished exports) where the suite's app reads them. */
function copyFiles(templateDir: string, dataDir: string | undefined): void {
  const files = path.join(templateDir, 'files');
  if (dataDir && fs.existsSync(files)) fs.cpSync(files, path.join(dataDir, 'files'), { recursive: true });
}

/** Dumps already read by this worker, by folder. */
const dumps = new Map<string, Blob>();

/** A new in-memory PGlite holding the template's database, or null when the run keeps no templates. */
export async function pgliteFromTemplate(what: TemplateKind, dataDir?: string, now = Date.now()): Promise<Db | null> {
  const root = templateRoot();
  if (!root) return null;
  const dir = path.join(root, `pglite-${templateName(what, now)}`);
  await once(dir, async (tmp) => {
    const db = await openPglite('memory://');
    try {
      await fill(db, what, tmp);
      fs.writeFileSync(path.join(tmp, 'db.tar'), Buffer.from(await (await db.dump!()).arrayBuffer()));
    } finally {
      await db.close();
    }
  });
  let dump = dumps.get(dir);
  if (!dump) dumps.set(dir, (dump = new Blob([fs.readFileSync(path.join(dir, 'db.tar'))])));
  copyFiles(dir, dataDir);
  return openPglite('memory://', dump);
}

/** Template databases this worker has found made: a suite after the first copies one without asking again. */
const made = new Set<string>();

/**
 * The name of the template database on TEST_DATABASE_URL's server to copy a new database from (its seed's files
 * copied under dataDir), or null when the run keeps no templates.
 */
export async function postgresTemplate(what: TemplateKind, dataDir?: string, now = Date.now()): Promise<string | null> {
  const root = templateRoot();
  const run = process.env.TEST_TEMPLATE_RUN;
  if (!root || !run) return null;
  const name = `tpl_${run}_${templateName(what, now)}`;
  const dir = path.join(root, `postgres-${templateName(what, now)}`);
  if (made.has(name)) {
    copyFiles(dir, dataDir);
    return name;
  }
  const base = process.env.TEST_DATABASE_URL!;
  // One connection, so the advisory lock is held and released on the same session.
  const admin = await openPostgres(base, 1);
  try {
    await admin.query('SELECT pg_advisory_lock(hashtext($1))', [name]);
    const exists = (await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [name])).rows.length > 0;
    if (!exists) {
      const building = `${name}_making`;
      await admin.query(`DROP DATABASE IF EXISTS ${building}`);
      await admin.query(`CREATE DATABASE ${building}`);
      const url = new URL(base);
      url.pathname = `/${building}`;
      // Its files are written beside it, and renamed into place with it.
      const tmp = `${dir}.making`;
      fs.rmSync(tmp, { recursive: true, force: true });
      fs.rmSync(dir, { recursive: true, force: true });
      fs.mkdirSync(tmp, { recursive: true });
      const db = await openPostgres(url.toString(), 2);
      try {
        await fill(db, what, tmp);
      } finally {
        await db.close();
      }
      fs.renameSync(tmp, dir);
      await admin.query(`ALTER DATABASE ${building} RENAME TO ${name}`);
    }
    await admin.query('SELECT pg_advisory_unlock(hashtext($1))', [name]);
  } finally {
    await admin.close();
  }
  made.add(name);
  copyFiles(dir, dataDir);
  return name;
}

/** Drop this run's template databases (the global set-up's teardown). */
export async function dropPostgresTemplates(): Promise<void> {
  const run = process.env.TEST_TEMPLATE_RUN;
  const base = process.env.TEST_DATABASE_URL;
  if (!run || !base) return;
  const admin = await openPostgres(base, 1);
  try {
    const names = (await admin.query<{ datname: string }>(`SELECT datname FROM pg_database WHERE datname LIKE $1`, [`tpl\\_${run}\\_%`])).rows;
    for (const { datname } of names) await admin.query(`DROP DATABASE IF EXISTS ${datname} WITH (FORCE)`);
  } finally {
    await admin.close();
  }
}
