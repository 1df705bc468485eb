/**
 * Planner statistics on the embedded database. PGlite runs no autovacuum, so a table filled after its migration keeps
 * the planner's "never analysed" estimates until someone runs ANALYZE; a job whose plan depends on row counts (the
 * invoice job's join of bundles and daily usage becomes a nested loop: 3-10 s per organisation instead of 0.1 s) asks
 * for its tables here first. PostgreSQL is left to its autovacuum.
 */
import type { Db } from './db.js';

/**
 * ANALYZE those of `tables` that were never analysed (pg_class.reltuples < 0: no ANALYZE, VACUUM or index build has
 * counted them) or have more than doubled since (their pages now against relpages then, plus 8 pages: a table analysed
 * empty and filled later, which PostgreSQL's autovacuum would analyse again), on PGlite only; the tables analysed, by
 * name ([] on PostgreSQL or when every one has fresh enough statistics). The check is one catalogue read (the sizes
 * are the files'), so a job may call it before every run.
 */
export async function analyzeWithoutStatistics(db: Db, tables: readonly string[]): Promise<string[]> {
  if (db.kind !== 'pglite') return [];
  const never = (
    await db.query<{ name: string }>(
      `SELECT c.relname AS name FROM pg_class c
        WHERE c.oid = ANY (SELECT to_regclass(t)::oid FROM unnest($1::text[]) t) AND c.relkind = 'r'
          AND (c.reltuples < 0 OR pg_relation_size(c.oid) / current_setting('block_size')::int > 2 * c.relpages + 8)
        ORDER BY c.relname`,
      [tables],
    )
  ).rows.map((r) => r.name);
  if (never.length) await db.query(`ANALYZE ${never.map((n) => `"${n.replace(/"/g, '""')}"`).join(', ')}`);
  return never;
}
