/**
 * The SMS list bench's seed: `count` sms_records of the scale organisation over the last 90 days, set-based
 * (generate_series, in slices of a million so that progress shows and no statement holds all rows at once). Each
 * message goes to one of the scale seed's SIMs (ICCID, number and id computed as scale-seed.ts makes them, no join);
 * nine in ten are MT (delivered, sent, failed), one in ten an MO, half of those answering the MT just before it. The
 * seed bypasses the event log's triggers and the foreign-key checks (session_replication_role = replica): it writes
 * history, not news, and every id it writes exists. The table's secondary indexes are dropped for the load and built
 * again after it (each index built once over sorted rows rather than grown row by row), then VACUUM ANALYZE, as
 * autovacuum would leave a table that has settled.
 */
import type { Db } from '../server/db/db.js';
import { SCALE_ORG } from './scale-seed.js';

const SLICE = 1_000_000;

export async function smsSeed(db: Db, { count, sims, log }: { count: number; sims: number; log: (line: string) => void }): Promise<void> {
  const indexes = (
    await db.query<{ name: string; def: string }>(
      `SELECT indexname AS name, indexdef AS def FROM pg_indexes WHERE tablename = 'sms_records' AND indexname <> 'sms_records_pkey'`,
    )
  ).rows;
  for (const i of indexes) await db.query(`DROP INDEX ${i.name}`);
  for (let from = 1; from <= count; from += SLICE) {
    const to = Math.min(count, from + SLICE - 1);
    await db.tx(async (q) => {
      await q.query('SET LOCAL session_replication_role = replica');
      await q.query(
        `INSERT INTO sms_records (org_id, id, sim_id, iccid, msisdn, direction, content, sms_type, status, reply_to_id, error, created_at, sent_at, delivered_at)
         SELECT $1, 'SM' || lpad(n::text, 18, '0'), 'SC' || lpad(k::text, 18, '0'),
                b || ((10 - luhn_sum_reversed(reverse(lpad(b || '0', 20, '0'))) % 10) % 10)::text,
                '4917' || lpad(k::text, 9, '0'),
                CASE WHEN mo THEN 'MO' ELSE 'MT' END,
                CASE WHEN mo THEN 'OK ' || n ELSE 'STATUS? ' || n END, 'text',
                CASE WHEN mo THEN 'received' WHEN n % 50 = 1 THEN 'failed' WHEN n % 50 = 2 THEN 'sent' ELSE 'delivered' END,
                CASE WHEN mo AND n % 20 = 0 THEN 'SM' || lpad((n - 1)::text, 18, '0') END,
                CASE WHEN NOT mo AND n % 50 = 1 THEN 'undeliverable' END,
                t, CASE WHEN NOT mo THEN t + interval '1 second' END, CASE WHEN NOT mo AND n % 50 > 2 THEN t + interval '5 seconds' END
           FROM generate_series($2::bigint, $3::bigint) AS n,
                LATERAL (SELECT 1 + (n * 7919) % $4::bigint AS k, n % 10 = 0 AS mo,
                                now() - ((($5::bigint - n) * 7776000) / $5::bigint) * interval '1 second' AS t) AS x,
                LATERAL (SELECT '8949' || lpad(x.k::text, 14, '0') AS b) AS iccid_base`,
        [SCALE_ORG.id, from, to, sims, count],
      );
    });
    log(`sms_records: ${to.toLocaleString('en-US')} of ${count.toLocaleString('en-US')}`);
  }
  for (const i of indexes) {
    await db.query(i.def);
    log(`index ${i.name} built`);
  }
  await db.query('VACUUM ANALYZE sms_records');
}
