/**
 * A database of its own for one bench run: PGlite in memory, or a new database on the PostgreSQL of 127.0.0.1:5432
 * (dropped again by drop()). Migrations are the caller's (some benches time them).
 */
import { openPglite, openPostgres, type Db } from '../server/db/db.js';
import { newId } from '../server/db/ids.js';

export async function openBenchDb(kind: 'pglite' | 'postgres'): Promise<{ db: Db; drop: () => Promise<void> }> {
  if (kind === 'pglite') {
    const db = await openPglite('memory://');
    return { db, drop: () => db.close() };
  }
  const admin = await openPostgres('postgres://postgres@127.0.0.1:5432/postgres');
  const name = `bench_${newId(8).toLowerCase()}`;
  await admin.query(`CREATE DATABASE ${name}`);
  const db = await openPostgres(`postgres://postgres@127.0.0.1:5432/${name}`);
  return {
    db,
    drop: async () => {
      await db.close();
      await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.close();
    },
  };
}
