/** The SQL of the CDR calls (SPEC.md section 7, CDR service): networks to filter by, and daily sums from the rollups. */
import type { Queryable } from '../db/db.js';

/** The networks the organisation's SIMs were last seen on (one pass over its SIMs, not its CDRs), at most 500. */
export async function networksSeen(q: Queryable, orgId: string): Promise<string[]> {
  return (
    await q.query<{ network: string }>('SELECT network FROM sims WHERE org_id = $1 AND network IS NOT NULL GROUP BY network ORDER BY network LIMIT 500', [
      orgId,
    ])
  ).rows.map((row) => row.network);
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

const CDR_SELECT = `c.id::text AS id, c.iccid, c.imsi, c.network, c.mcc_mnc AS "mccMnc", c.country, c.plan_code AS "planCode", c.direction,
  c.rat, c.volume_kb::float8 AS "volumeKb", c.start_at AS "startAt", c.end_at AS "endAt", c.duration_s AS "durationS", c.sim_id`;

/** One CDR of the organisation, with its SIM's id; undefined for another organisation's. */
export async function cdrOf(q: Queryable, orgId: string, id: string) {
  return (
    await q.query<Record<string, unknown> & { sim_id: string; startAt: Date; endAt: Date }>(
      `SELECT ${CDR_SELECT} FROM cdrs c WHERE c.org_id = $1 AND c.id = $2::bigint`,
      [orgId, id],
    )
  ).rows[0];
}

/** The network's last session opening of a SIM at or before `at`, within 3 months (SPEC.md's session data). */
export async function sessionOpenedBefore(q: Queryable, orgId: string, simId: string, at: Date) {
  return (
    await q.query<{ at: Date; apn: string | null; ip: string | null }>(
      `SELECT at, detail->>'apn' AS apn, detail->>'ip' AS ip FROM sim_events
        WHERE org_id = $1 AND sim_id = $2 AND type = 'session' AND detail->>'session' = 'opened' AND at <= $3 AND at >= $3::timestamptz - interval '3 months'
        ORDER BY at DESC LIMIT 1`,
      [orgId, simId, at],
    )
  ).rows[0];
}

/** The first session closing of a SIM at or after `at`. */
export async function sessionClosedAfter(q: Queryable, orgId: string, simId: string, at: Date) {
  return (
    await q.query<{ at: Date }>(
      `SELECT at FROM sim_events WHERE org_id = $1 AND sim_id = $2 AND type = 'session' AND detail->>'session' = 'closed' AND at >= $3 ORDER BY at LIMIT 1`,
      [orgId, simId, at],
    )
  ).rows[0];
}

/** The totals of a SIM's CDRs within a session (still open: endedAt null). */
export async function sessionTotals(q: Queryable, orgId: string, simId: string, startedAt: Date, endedAt: Date | null) {
  return (
    await q.query<{ uplinkKb: number; downlinkKb: number; volumeKb: number; cdrCount: number }>(
      `SELECT coalesce(sum(volume_kb) FILTER (WHERE direction = 'uplink'), 0)::float8 AS "uplinkKb",
              coalesce(sum(volume_kb) FILTER (WHERE direction = 'downlink'), 0)::float8 AS "downlinkKb",
              coalesce(sum(volume_kb), 0)::float8 AS "volumeKb", count(*)::int AS "cdrCount"
         FROM cdrs WHERE org_id = $1 AND sim_id = $2 AND start_at >= $3 AND start_at <= coalesce($4::timestamptz, now()) AND end_at <= coalesce($4::timestamptz, 'infinity')`,
      [orgId, simId, startedAt, endedAt],
    )
  ).rows[0];
}

/** A SIM's last position at or before `at`, no older than 48 hours. */
export async function positionBefore(q: Queryable, orgId: string, simId: string, at: Date) {
  return (
    await q.query<{ lat: number; lon: number; at: Date }>(
      `SELECT (detail->>'lat')::float8 AS lat, (detail->>'lon')::float8 AS lon, at FROM sim_events
        WHERE org_id = $1 AND sim_id = $2 AND type = 'location' AND at <= $3 AND at >= $3::timestamptz - interval '48 hours'
        ORDER BY at DESC LIMIT 1`,
      [orgId, simId, at],
    )
  ).rows[0];
}

/** The countries of the networks the organisation's SIMs were last seen on (one pass over its SIMs, not its CDRs). */
export async function countriesSeen(q: Queryable, orgId: string): Promise<string[]> {
  return (
    await q.query<{ country: string }>(
      `SELECT DISTINCT substring(network FROM ' ([A-Z]{2}) [0-9]{3}-[0-9]{2,3}$') AS country FROM sims WHERE org_id = $1 AND network IS NOT NULL LIMIT 500`,
      [orgId],
    )
  ).rows.map((r) => r.country);
}

/** A SIM's id by ICCID; undefined when the organisation has no such SIM. */
export async function simIdOf(q: Queryable, orgId: string, iccid: string): Promise<string | undefined> {
  return (await q.query<{ id: string }>('SELECT id FROM sims WHERE org_id = $1 AND iccid = $2', [orgId, iccid])).rows[0]?.id;
}

/** A SIM's totals on each UTC day from `from` to `to`, from its daily rollup. */
export async function simDailyTotals(q: Queryable, orgId: string, simId: string, from: string, to: string) {
  return (
    await q.query<{ day: string; uplinkKb: number; downlinkKb: number; volumeKb: number; cdrCount: number }>(
      `SELECT to_char(d.day, 'YYYY-MM-DD') AS day, coalesce(u.uplink_kb, 0)::float8 AS "uplinkKb", coalesce(u.downlink_kb, 0)::float8 AS "downlinkKb",
              coalesce(u.volume_kb, 0)::float8 AS "volumeKb", coalesce(u.cdr_count, 0)::int AS "cdrCount"
         FROM generate_series($3::date, $4::date, interval '1 day') AS d(day)
         LEFT JOIN usage_daily u ON u.org_id = $1 AND u.sim_id = $2 AND u.day = d.day::date
        ORDER BY d.day`,
      [orgId, simId, from, to],
    )
  ).rows;
}

/** A SIM's totals per network and radio from `from` to `to` (UTC days), biggest first, at most 50. */
export async function simNetworkTotals(q: Queryable, orgId: string, simId: string, from: string, to: string) {
  return (
    await q.query<{ network: string; rat: string; uplinkKb: number; downlinkKb: number; volumeKb: number; cdrCount: number }>(
      `SELECT network, rat, coalesce(sum(volume_kb) FILTER (WHERE direction = 'uplink'), 0)::float8 AS "uplinkKb",
              coalesce(sum(volume_kb) FILTER (WHERE direction = 'downlink'), 0)::float8 AS "downlinkKb",
              sum(volume_kb)::float8 AS "volumeKb", count(*)::int AS "cdrCount"
         FROM cdrs WHERE org_id = $1 AND sim_id = $2 AND start_at >= $3::date AT TIME ZONE 'UTC' AND start_at < ($4::date + 1) AT TIME ZONE 'UTC'
        GROUP BY network, rat ORDER BY sum(volume_kb) DESC, network, rat LIMIT 50`,
      [orgId, simId, from, to],
    )
  ).rows;
}
