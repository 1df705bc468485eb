/**
 * The scale seed of ARCHITECTURE.md (Data and scale): one organisation with N SIMs and M CDRs over the last 60 days,
 * and the daily and hourly rollups built from those CDRs. Pure SQL (generate_series), so a million rows load in seconds on
 * PostgreSQL; ICCIDs carry a real Luhn check digit computed by the database's own luhn_sum_reversed.
 */
import type { Db } from '../server/db/db.js';

export const SCALE_ORG = { id: 'org-scale', code: 'SCALE', name: 'Scale Test Fleet AG' } as const;

export async function scaleSeed(db: Db, { sims, cdrs }: { sims: number; cdrs: number }): Promise<void> {
  await db.query(
    `INSERT INTO organisations (id, code, name, country, parent_id, level, sms_quota, brand_id) VALUES ($1, $2, $3, 'DE', NULL, 1, 100000, 'brand-default')`,
    [SCALE_ORG.id, SCALE_ORG.code, SCALE_ORG.name],
  );
  await db.query(
    "INSERT INTO memberships (account_id, org_id, role, status, is_default, accepted_at) VALUES ('acc-admin', $1, 'admin', 'active', false, now())",
    [SCALE_ORG.id],
  );
  // 18 digits (89 49 + 14-digit serial) and the check digit that makes the Luhn sum a multiple of 10.
  await db.query(
    `INSERT INTO sims (org_id, id, iccid, imsi, msisdn, imei, device_name, status, sub_status, technology, product_type, cycle_usage_kb, activated_at, last_session_at, connection_status, lat, lon, location_at)
     SELECT $1, 'SC' || lpad(n::text, 18, '0'),
            b || ((10 - luhn_sum_reversed(reverse(lpad(b || '0', 20, '0'))) % 10) % 10)::text,
            '26202' || lpad(n::text, 10, '0'),
            '4917' || lpad(n::text, 9, '0'), '35' || lpad(n::text, 13, '0'), 'Unit ' || n,
            s.status, s.sub, CASE WHEN n % 10 = 0 THEN 'MULTI_IMSI' ELSE 'ONE_IMSI' END, 'industrial',
            (n * 37) % 500000, CASE WHEN s.status = 'active' THEN now() - (n % 400) * interval '1 day' END,
            CASE WHEN s.status = 'active' THEN now() - (n % 5000) * interval '1 minute' END,
            CASE WHEN s.status = 'active' THEN 'online' ELSE 'unknown' END,
            -- Active SIMs spread over Europe (the heatmap's cells).
            CASE WHEN s.status = 'active' THEN 36 + ((n::bigint * 7919) % 3000) / 100.0 END,
            CASE WHEN s.status = 'active' THEN -9 + ((n::bigint * 104729) % 4000) / 100.0 END,
            CASE WHEN s.status = 'active' THEN now() - (n % 2000) * interval '1 minute' END
       FROM generate_series(1, $2::int) AS n,
            LATERAL (SELECT '8949' || lpad(n::text, 14, '0') AS b) AS iccid_base,
            LATERAL (SELECT CASE n % 10 WHEN 0 THEN 'inactive' WHEN 1 THEN 'pre_activated' WHEN 2 THEN 'paused' ELSE 'active' END AS status) AS st,
            LATERAL (SELECT st.status, CASE st.status WHEN 'pre_activated' THEN 'test' WHEN 'active' THEN 'active_live' ELSE st.status END AS sub) AS s`,
    [SCALE_ORG.id, sims],
  );
  await db.query(
    `INSERT INTO cdrs (org_id, sim_id, iccid, network, mcc_mnc, country, plan_code, direction, rat, volume_kb, start_at, end_at, duration_s)
     SELECT $1, s.id, s.iccid, 'Vodafone DE 262-02', '26202', 'DE', 'EU-BAS-1G',
            CASE WHEN n % 2 = 0 THEN 'uplink' ELSE 'downlink' END, (ARRAY['LTE', 'CATM', 'NBIoT', '2G'])[1 + n % 4],
            1 + (n * 13) % 4000, t, t + interval '10 minutes', 600
       FROM generate_series(1, $2::int) AS n,
            LATERAL (SELECT now() - ((n::bigint * 5184000) / $2::int) * interval '1 second' AS t) AS tt,
            LATERAL (SELECT id, iccid FROM sims WHERE id = 'SC' || lpad((1 + (n::bigint * 7919) % $3::int)::text, 18, '0')) AS s`,
    [SCALE_ORG.id, cdrs, sims],
  );
  await db.query(
    `INSERT INTO usage_daily (org_id, sim_id, day, iccid, uplink_kb, downlink_kb, volume_kb, cdr_count)
     SELECT org_id, sim_id, (start_at AT TIME ZONE 'UTC')::date, min(iccid),
            coalesce(sum(volume_kb) FILTER (WHERE direction = 'uplink'), 0), coalesce(sum(volume_kb) FILTER (WHERE direction = 'downlink'), 0),
            sum(volume_kb), count(*)
       FROM cdrs WHERE org_id = $1 GROUP BY 1, 2, 3`,
    [SCALE_ORG.id],
  );
  await db.query(
    `INSERT INTO usage_hourly (org_id, hour, uplink_kb, downlink_kb, volume_kb, cdr_count, active_sims)
     SELECT org_id, date_trunc('hour', start_at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC',
            coalesce(sum(volume_kb) FILTER (WHERE direction = 'uplink'), 0), coalesce(sum(volume_kb) FILTER (WHERE direction = 'downlink'), 0),
            sum(volume_kb), count(*), count(DISTINCT sim_id)
       FROM cdrs WHERE org_id = $1 GROUP BY 1, 2`,
    [SCALE_ORG.id],
  );
  await db.query('SELECT rebuild_sim_rollups($1)', [SCALE_ORG.id]);
  await db.query('ANALYZE');
}
