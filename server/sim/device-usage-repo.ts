/**
 * The SQL of usage per cycle and per bundle and of the bundles' coverage (device-usage-routes.ts): a SIM's
 * cycles with its CDRs summed in each, the organisation's bundles by product, each product's coverage countries. A
 * list is a query object ({ sql, params }) so that its page, its count and its export job read the same rows.
 */
import { readCursor, type Queryable } from '../db/db.js';

/** A query and its parameters. */
export interface RowQuery {
  sql: string;
  params: unknown[];
}

/** A SIM's id by ICCID; undefined when the organisation has no such SIM. */
export async function simIdByIccid(q: Queryable, orgId: string, iccid: string): Promise<string | undefined> {
  return (await q.query<{ id: string }>('SELECT id FROM sims WHERE org_id = $1 AND iccid = $2', [orgId, iccid])).rows[0]?.id;
}

/** A bundle whose cycles are read, with how many it has begun. */
export interface CycleBundle {
  org_id: string;
  sim_id: string;
  iccid: string;
  id: string;
  name: string;
  reset_cycle: string;
  cycles: number;
}

/**
 * A SIM's data bundle for its cycles: bundleId when given, else the one whose cycle it counts now, else the one
 * activated last; undefined when there is none.
 */
export async function cycleBundleOf(q: Queryable, orgId: string, simId: string, bundleId: string | null): Promise<CycleBundle | undefined> {
  return (
    await q.query<CycleBundle>(
      `SELECT b.org_id, b.sim_id, b.iccid, b.id, b.name, b.reset_cycle,
              CASE WHEN b.activated_at IS NULL THEN 0 ELSE cycle_number(b.reset_cycle, b.activated_at, greatest(b.activated_at, least(now(), coalesce(b.expired_at, now())) - interval '1 microsecond')) END AS cycles
         FROM bundle_orders b
        WHERE b.org_id = $1 AND b.sim_id = $2 AND b.service_type <> 'sms' AND ($3::text IS NULL OR b.id = $3)
        ORDER BY (b.status = 'IN_USE' AND b.type <> 'BEFORE_TEST') DESC, CASE WHEN b.status = 'IN_USE' AND b.type <> 'BEFORE_TEST' THEN b.activated_at END, b.activated_at DESC NULLS LAST, b.id
        LIMIT 1`,
      [orgId, simId, bundleId],
    )
  ).rows[0];
}

/** Cycles `from` down to `to` of a bundle (numbers, newest first) with the SIM's CDRs summed in each. */
const CYCLE_ROWS = `
  SELECT b.iccid, b.name AS bundle, n AS number, cycle_nth_start(b.reset_cycle, b.activated_at, n) AS start, cycle_nth_start(b.reset_cycle, b.activated_at, n + 1) AS "end",
         (b.status = 'IN_USE' AND now() >= cycle_nth_start(b.reset_cycle, b.activated_at, n) AND now() < cycle_nth_start(b.reset_cycle, b.activated_at, n + 1)) AS current,
         coalesce(u.kb, 0)::float8 AS "usageKb",
         (CASE WHEN s.cycle_started_at = cycle_nth_start(b.reset_cycle, b.activated_at, n) THEN s.cycle_limit_kb ELSE b.quota_kb END)::float8 AS "limitKb"
    FROM bundle_orders b JOIN sims s ON s.org_id = b.org_id AND s.id = b.sim_id
    CROSS JOIN LATERAL generate_series($4::int, $5::int, -1) AS n
    LEFT JOIN LATERAL (SELECT sum(c.volume_kb) AS kb FROM cdrs c WHERE c.org_id = b.org_id AND c.sim_id = b.sim_id
                         AND c.start_at >= cycle_nth_start(b.reset_cycle, b.activated_at, n) AND c.start_at < cycle_nth_start(b.reset_cycle, b.activated_at, n + 1)) u ON true
   WHERE b.org_id = $1 AND b.sim_id = $2 AND b.id = $3
   ORDER BY n DESC`;

/** Cycles `from` down to `to` of a bundle (newest first), each with its usage and limit. */
export function cycleRows(orgId: string, b: CycleBundle, from: number, to: number): RowQuery {
  return { sql: CYCLE_ROWS, params: [orgId, b.sim_id, b.id, from, to] };
}

/** A page of a bundle's cycles, `from` down to `to`. */
export async function cyclesOf(db: Queryable, orgId: string, b: CycleBundle, from: number, to: number) {
  const q = cycleRows(orgId, b, from, to);
  return (await db.query<{ usageKb: number; limitKb: number | null }>(q.sql, q.params)).rows;
}

/** The organisation's bundles by product. */
export interface BundleFilter {
  status?: string;
  search?: string;
}

/** One row per product (SKU) of the organisation's bundle orders (only those of `status` when given), biggest use first. */
function bundleSummaryQuery(f: BundleFilter): RowQuery {
  return {
    sql: `SELECT b.sku, min(b.name) AS name, min(b.reset_cycle) AS "resetCycle", max(b.quota_kb)::float8 AS "quotaKb",
                 (array_agg(b.out_of_coverage ORDER BY b.ordered_at DESC, b.id))[1] AS "outOfCoverage",
                 array_agg(DISTINCT b.overage_policy ORDER BY b.overage_policy) AS "overagePolicies",
                 count(DISTINCT b.sim_id)::int AS sims,
                 count(*) FILTER (WHERE b.status = 'IN_USE')::int AS "inUse", count(*) FILTER (WHERE b.status = 'PENDING')::int AS pending,
                 count(*) FILTER (WHERE b.status = 'EXPIRED')::int AS expired, count(*) FILTER (WHERE b.status = 'CANCELLED')::int AS cancelled,
                 coalesce(sum(b.used_kb) FILTER (WHERE b.status = 'IN_USE'), 0)::float8 AS "cycleUsedKb",
                 count(DISTINCT b.sim_id) FILTER (WHERE b.status = 'IN_USE' AND s.overage_at IS NOT NULL)::int AS "overAllowance",
                 count(DISTINCT b.sim_id) FILTER (WHERE b.status = 'IN_USE' AND s.flow_control_policy <> 'none')::int AS controlled
            FROM bundle_orders b JOIN sims s ON s.org_id = b.org_id AND s.id = b.sim_id
           WHERE b.org_id = $1 AND ($2::text IS NULL OR b.status = $2)
             AND ($3::text IS NULL OR b.sku ILIKE '%' || $3 || '%' OR b.name ILIKE '%' || $3 || '%')
           GROUP BY b.sku`,
    params: [f.status ?? null, f.search?.replace(/[\\%_]/g, '\\$&') ?? null],
  };
}
const BUNDLE_ORDER = `ORDER BY "inUse" DESC, sims DESC, sku`;

/** The bundle summary of an organisation, biggest use first: the whole list as a query (for its export). */
export function bundleSummary(orgId: string, f: BundleFilter): RowQuery {
  const q = bundleSummaryQuery(f);
  return { sql: `${q.sql} ${BUNDLE_ORDER}`, params: [orgId, ...q.params] };
}

/** One page of the bundle summary, and the count of all its rows. */
export async function bundleSummaryPage(db: Queryable, orgId: string, f: BundleFilter, page: number, pageSize: number) {
  const q = bundleSummaryQuery(f);
  const r = await db.query<Record<string, unknown> & { total: number }>(
    `SELECT x.*, count(*) OVER ()::int AS total FROM (${q.sql}) x ${BUNDLE_ORDER} LIMIT ${pageSize} OFFSET ${(page - 1) * pageSize}`,
    [orgId, ...q.params],
  );
  const total = r.rows[0]?.total ?? (page > 1 ? await countRows(db, { sql: q.sql, params: [orgId, ...q.params] }) : 0);
  return { items: r.rows, total };
}

/** (Without the organisation's parameter.) Each product's coverage countries (or one row with no country when it lists none), with its SIMs in use. */
function coverageQuery(sku: string | undefined): RowQuery {
  return {
    sql: `WITH p AS (SELECT b.sku, min(b.name) AS name, count(DISTINCT b.sim_id) FILTER (WHERE b.status = 'IN_USE')::int AS sims
                       FROM bundle_orders b WHERE b.org_id = $1 AND ($2::text IS NULL OR b.sku = $2) GROUP BY b.sku),
               -- A product's coverage and policy are those of its latest order.
               l AS (SELECT DISTINCT ON (b.sku) b.sku, b.coverage_countries AS countries, b.out_of_coverage AS policy
                       FROM bundle_orders b WHERE b.org_id = $1 AND ($2::text IS NULL OR b.sku = $2) ORDER BY b.sku, b.ordered_at DESC, b.id)
          SELECT p.sku, p.name, c.country, l.policy, p.sims
            FROM p JOIN l ON l.sku = p.sku LEFT JOIN LATERAL unnest(CASE WHEN cardinality(l.countries) = 0 THEN ARRAY[NULL::text] ELSE l.countries END) AS c(country) ON true
           ORDER BY p.sku, c.country`,
    params: [sku ?? null],
  };
}

/** Each product's coverage countries of an organisation (those of one SKU, when given), as a query. */
export function coverageRows(orgId: string, sku: string | undefined): RowQuery {
  const q = coverageQuery(sku);
  return { sql: q.sql, params: [orgId, ...q.params] };
}

/** How many rows a query answers. */
export async function countRows(db: Queryable, q: RowQuery): Promise<number> {
  return (await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM (${q.sql}) x`, q.params)).rows[0].n;
}

/** The rows of a query, `batch` at a time, through a cursor (an export never holds them all at once). */
export function eachBatch(db: Queryable, q: RowQuery, batch: number, onRows: (rows: Record<string, unknown>[]) => Promise<void>): Promise<void> {
  return readCursor<Record<string, unknown>>(db, q.sql, q.params, batch, onRows);
}
