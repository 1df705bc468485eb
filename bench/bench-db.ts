/**
 * The databases of a bench run: which ones it measures (BENCH_DB), and a database of its own for each: PGlite in
 * memory, or a new database on the PostgreSQL of 127.0.0.1:5432 (dropped again by drop()). Migrations are the
 * caller's (some benches time them).
 */
import net from 'node:net';
import { openPglite, openPostgres, type Db } from '../server/db/db.js';
import { newId } from '../server/db/ids.js';

export type BenchDb = 'pglite' | 'postgres';

const pgAnswers = () =>
  new Promise<boolean>((resolve) => {
    const s = net.connect(5432, '127.0.0.1');
    s.on('connect', () => (s.end(), resolve(true))).on('error', () => resolve(false));
  });

/** BENCH_DB=pglite|postgres|both, by default both when PostgreSQL answers and PGlite alone otherwise; PostgreSQL first. */
export async function benchDatabases(): Promise<BenchDb[]> {
  const wanted = process.env.BENCH_DB ?? ((await pgAnswers()) ? 'both' : 'pglite');
  return (['postgres', 'pglite'] as const).filter((kind) => wanted === kind || wanted === 'both');
}

/** A new database of `kind`; `url` is the PostgreSQL database's ('' for PGlite), for more connections to it. */
export async function openBenchDb(kind: BenchDb): Promise<{ db: Db; url: string; drop: () => Promise<void> }> {
  if (kind === 'pglite') {
    const db = await openPglite('memory://');
    return { db, url: '', drop: () => db.close() };
  }
  const admin = await openPostgres('postgres://postgres@127.0.0.1:5432/postgres');
  const name = `bench_${newId(8).toLowerCase()}`;
  await admin.query(`CREATE DATABASE ${name}`);
  const url = `postgres://postgres@127.0.0.1:5432/${name}`;
  const db = await openPostgres(url);
  return {
    db,
    url,
    drop: async () => {
      await db.close();
      await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.close();
    },
  };
}
