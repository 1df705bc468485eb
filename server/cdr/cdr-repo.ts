/** The SQL of the CDR calls (SPEC.md section 7, CDR service): networks to filter by, and daily sums from the rollups. */
import type { Queryable } from '../db/db.js';

/** The networks the organisation's SIMs were last seen on (one pass over its SIMs, not its CDRs), at most 500. */
export async function networksSeen(q: Queryable, orgId: string): Promise<string[]> {
  return (await q.query<{ network: string }>('SELECT network FROM sims WHERE org_id = $1 AND network IS NOT NULL GROUP BY network ORDER BY network LIMIT 500', [orgId])).rows.map(
    (row) => row.network,
  );
}

/**
 * Each UTC day's totals from `from` to `to`: the organisation's hourly rollup (31 days in 744 rows), or, for the SIMs
 * an ICCID or its trailing digits name (through the reversed-ICCID index, as the list's suffix search), their daily
 * rollups by key.
 */
export async function dailyTotals(q: Queryable, orgId: string, from: string, to: string, iccid?: string) {
  return (
    await q.query<{ day: string; uplinkKb: number; downlinkKb: number; volumeKb: number; cdrCount: number }>(
      iccid
        ? `SELECT to_char(d.day, 'YYYY-MM-DD') AS day,
                  coalesce(sum(u.uplink_kb), 0)::float8 AS "uplinkKb", coalesce(sum(u.downlink_kb), 0)::float8 AS "downlinkKb",
                  coalesce(sum(u.volume_kb), 0)::float8 AS "volumeKb", coalesce(sum(u.cdr_count), 0)::int AS "cdrCount"
             FROM generate_series($2::date, $3::date, interval '1 day') AS d(day)
             LEFT JOIN usage_daily u ON u.org_id = $1 AND u.day = d.day::date
                  AND u.sim_id IN (SELECT id FROM sims WHERE org_id = $1 AND reverse(iccid) LIKE reverse($4) || '%')
            GROUP BY d.day ORDER BY d.day`
        : `SELECT to_char(d.day, 'YYYY-MM-DD') AS day,
                  coalesce(sum(h.uplink_kb), 0)::float8 AS "uplinkKb", coalesce(sum(h.downlink_kb), 0)::float8 AS "downlinkKb",
                  coalesce(sum(h.volume_kb), 0)::float8 AS "volumeKb", coalesce(sum(h.cdr_count), 0)::int AS "cdrCount"
             FROM generate_series($2::date, $3::date, interval '1 day') AS d(day)
             LEFT JOIN usage_hourly h ON h.org_id = $1 AND h.hour >= d.day AT TIME ZONE 'UTC' AND h.hour < (d.day + interval '1 day') AT TIME ZONE 'UTC'
            GROUP BY d.day ORDER BY d.day`,
      iccid ? [orgId, from, to, iccid] : [orgId, from, to],
    )
  ).rows;
}
