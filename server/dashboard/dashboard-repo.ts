/**
 * The SQL of the dashboard and its heatmap (SPEC.md section 2): counts kept by triggers (sim_status_counts,
 * sim_online_counts) and usage from the rollups of 007_dashboard.sql, never from the CDRs. Every query names the
 * organisation first.
 */
import type { Queryable } from '../db/db.js';

/** A span of time: [start, end). */
export interface Span {
  start: Date;
  end: Date;
}

/** The organisation's usage and SMS in each span, summed from its UTC hours, in the spans' order. */
export async function usagePerSpan(q: Queryable, orgId: string, spans: Span[]) {
  return (
    await q.query<{ i: number; up: string; down: string; vol: string; mo: string; mt: string }>(
      `SELECT b.i, coalesce(sum(h.uplink_kb), 0) AS up, coalesce(sum(h.downlink_kb), 0) AS down, coalesce(sum(h.volume_kb), 0) AS vol,
              coalesce(sum(h.sms_mo), 0) AS mo, coalesce(sum(h.sms_mt), 0) AS mt
         FROM unnest($2::timestamptz[], $3::timestamptz[]) WITH ORDINALITY AS b(s, e, i)
         LEFT JOIN usage_hourly h ON h.org_id = $1 AND h.hour >= b.s AND h.hour < b.e
        GROUP BY b.i ORDER BY b.i`,
      [orgId, spans.map((b) => b.start.toISOString()), spans.map((b) => b.end.toISOString())],
    )
  ).rows;
}

/** The organisation's data use and SMS (both ways) in a span. */
export async function usageBetween(q: Queryable, orgId: string, start: Date, end: Date) {
  const r = await q.query<{ vol: string; mo: string; mt: string }>(
    `SELECT coalesce(sum(volume_kb), 0) AS vol, coalesce(sum(sms_mo), 0) AS mo, coalesce(sum(sms_mt), 0) AS mt
       FROM usage_hourly WHERE org_id = $1 AND hour >= $2 AND hour < $3`,
    [orgId, start.toISOString(), end.toISOString()],
  );
  return { volumeKb: Number(r.rows[0].vol), sms: Number(r.rows[0].mo) + Number(r.rows[0].mt) };
}

/** The 10 SIMs that used most: from the UTC+8 months firstMonth to lastMonth ('YYYY-MM-DD', their first days), or in a span of hours. */
export async function topTenUsers(q: Queryable, orgId: string, range: { firstMonth: string; lastMonth: string } | Span) {
  const rows =
    'firstMonth' in range
      ? await q.query<{ sim_id: string; iccid: string; kb: string }>(
          `SELECT sim_id, min(iccid) AS iccid, sum(volume_kb) AS kb FROM usage_sim_monthly
            WHERE org_id = $1 AND month >= $2::date AND month <= $3::date GROUP BY sim_id ORDER BY kb DESC, sim_id LIMIT 10`,
          [orgId, range.firstMonth, range.lastMonth],
        )
      : await q.query<{ sim_id: string; iccid: string; kb: string }>(
          `SELECT sim_id, min(iccid) AS iccid, sum(volume_kb) AS kb FROM usage_sim_hourly
            WHERE org_id = $1 AND hour >= $2 AND hour < $3 GROUP BY sim_id ORDER BY kb DESC, sim_id LIMIT 10`,
          [orgId, range.start.toISOString(), range.end.toISOString()],
        );
  return rows.rows.map((r) => ({ simId: r.sim_id, iccid: r.iccid, volumeKb: Number(r.kb) }));
}

/** How many SIMs the organisation holds and how many are active (kept by triggers: no count of the SIMs). */
export async function simTotals(q: Queryable, orgId: string) {
  const r = await q.query<{ total: string; active: string }>(
    `SELECT coalesce(sum(n), 0) AS total, coalesce(sum(n) FILTER (WHERE status = 'active'), 0) AS active FROM sim_status_counts WHERE org_id = $1`,
    [orgId],
  );
  return { total: Number(r.rows[0].total), active: Number(r.rows[0].active) };
}

/** How many of the organisation's SIMs are online (kept by triggers on sims, 010_online_counts.sql). */
export async function onlineSimCount(q: Queryable, orgId: string): Promise<number> {
  return Number((await q.query<{ n: string }>('SELECT coalesce(sum(n), 0) AS n FROM sim_online_counts WHERE org_id = $1', [orgId])).rows[0].n);
}

/** How many active or paused SIMs expire in a span. */
export async function expiringSimCount(q: Queryable, orgId: string, from: Date, to: Date): Promise<number> {
  return Number(
    (
      await q.query<{ n: string }>(
        `SELECT count(*) AS n FROM sims WHERE org_id = $1 AND status IN ('active', 'paused') AND expires_at >= $2 AND expires_at < $3`,
        [orgId, from.toISOString(), to.toISOString()],
      )
    ).rows[0].n,
  );
}

/** The device names of those of these SIMs the organisation still holds, by SIM id. */
export async function deviceNames(q: Queryable, orgId: string, simIds: string[]): Promise<Map<string, string | null>> {
  const r = await q.query<{ id: string; device_name: string | null }>('SELECT id, device_name FROM sims WHERE org_id = $1 AND id = ANY($2::text[])', [
    orgId,
    simIds,
  ]);
  return new Map(r.rows.map((n) => [n.id, n.device_name]));
}

/** How many of the organisation's SIMs are in each status (only the statuses some SIM is in). */
export async function statusCounts(q: Queryable, orgId: string): Promise<Map<string, number>> {
  const r = await q.query<{ status: string; n: string }>('SELECT status, n FROM sim_status_counts WHERE org_id = $1', [orgId]);
  return new Map(r.rows.map((x) => [x.status, Number(x.n)]));
}

/**
 * The organisation's located SIMs per cell of cellDeg degrees (at their last known place), with each cell's usage:
 * from the UTC+8 months firstMonth to lastMonth, or in a span of hours. Usage counts for the SIMs the organisation
 * holds now; a SIM transferred away takes its place and its usage with it.
 */
export async function locatedCells(q: Queryable, orgId: string, range: { firstMonth: string; lastMonth: string } | Span, cellDeg: number) {
  const usage =
    'firstMonth' in range
      ? {
          sql: 'SELECT sim_id, sum(volume_kb) AS kb FROM usage_sim_monthly WHERE org_id = $1 AND month >= $2::date AND month <= $3::date GROUP BY sim_id',
          params: [range.firstMonth, range.lastMonth],
        }
      : {
          sql: 'SELECT sim_id, sum(volume_kb) AS kb FROM usage_sim_hourly WHERE org_id = $1 AND hour >= $2 AND hour < $3 GROUP BY sim_id',
          params: [range.start.toISOString(), range.end.toISOString()],
        };
  return (
    await q.query<{ y: number; x: number; n: string; kb: string; lat: number; lon: number }>(
      `WITH u AS (${usage.sql})
       SELECT floor(s.lat / $4)::int AS y, floor(s.lon / $4)::int AS x, count(*) AS n, coalesce(sum(u.kb), 0) AS kb,
              avg(s.lat)::float8 AS lat, avg(s.lon)::float8 AS lon
         FROM sims s LEFT JOIN u ON u.sim_id = s.id
        WHERE s.org_id = $1 AND s.lat IS NOT NULL
        GROUP BY 1, 2`,
      [orgId, ...usage.params, cellDeg],
    )
  ).rows;
}
