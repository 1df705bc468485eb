/**
 * The server's side of NetworkReports: what the network tells us, written to the database one report per
 * transaction. recordUsage is the one writer of CDRs: the CDR, its UTC-day and UTC-hour rollups, the SIM's cycle
 * usage, its bundle's and pool's usage, and the first-usage move of an active-ready SIM all land together.
 */
import type { Db, Queryable } from '../db/db.js';
import { newId } from '../db/ids.js';
import { decide, type SimFacts } from '../domain/lifecycle.js';
import { confirmActivation, confirmActivations } from '../sim/activation.js';
import type { Cdr, NetworkAdapter, NetworkName, NetworkReports } from '../network/adapter.js';
import { applyCoverage, evaluateOverage, rollCycles, syncPolicies } from '../bundles/bundle-engine.js';
import { recordPoolUsage } from '../pool/pool-engine.js';
import { networkEvent } from '../sim/sim-events.js';

const HOUR = 3_600_000;

// Months whose CDR partition this process has made sure of (partitions for 2026-2027 come with the migration).
const ensuredMonths = new Set<string>();

async function ensurePartition(q: Queryable, at: Date): Promise<void> {
  const month = at.toISOString().slice(0, 7);
  if (ensuredMonths.has(month)) return;
  await q.query("SELECT ensure_month_partition('cdrs', $1::date)", [`${month}-01`]);
  ensuredMonths.add(month);
}

interface UsageRow {
  status: SimFacts['status'];
  sub_status: SimFacts['subStatus'];
  technology: SimFacts['technology'];
  operation: string | null;
  test_data_status: string;
  pool_id: string | null;
}

/**
 * Record one CDR in q's transaction with everything that follows from it. The CDR counts on the UTC day and hour
 * of its start (SIM pages end the day at 23:59 UTC+0; the dashboard sums hours). A real network adapter calls this too.
 * The SIM's cycle counts the CDR when it started inside the cycle: a CDR starting after the cycle's end rolls the
 * cycle over first (as the bundle job would), a late one of an earlier cycle is not counted in this one. Returns
 * whether the SIM's data policy changed (the allowance crossed: the network is to be told, syncPolicies).
 */
export async function recordUsage(q: Queryable, cdr: Cdr): Promise<boolean> {
  const { sim } = cdr;
  const kb = Math.max(0, Math.round(cdr.volumeKb));
  const start = cdr.start.toISOString();
  const hour = new Date(Math.floor(cdr.start.getTime() / HOUR) * HOUR).toISOString();
  const day = start.slice(0, 10);
  const up = cdr.direction === 'uplink' ? kb : 0;
  const down = kb - up;
  await ensurePartition(q, cdr.start);
  // The SIM's own hour (the dashboard's ranks); a new row there means the SIM is new in the organisation's hour too,
  // which is what usage_hourly.active_sims counts.
  const first = (
    await q.query<{ first: boolean }>(
      `INSERT INTO usage_sim_hourly (org_id, hour, sim_id, iccid, uplink_kb, downlink_kb, volume_kb) VALUES ($1, $2::timestamptz, $3, $4, $5, $6, $7)
       ON CONFLICT (org_id, hour, sim_id) DO UPDATE SET uplink_kb = usage_sim_hourly.uplink_kb + EXCLUDED.uplink_kb,
         downlink_kb = usage_sim_hourly.downlink_kb + EXCLUDED.downlink_kb, volume_kb = usage_sim_hourly.volume_kb + EXCLUDED.volume_kb
       RETURNING (xmax = 0) AS first`,
      [sim.orgId, hour, sim.simId, sim.iccid, up, down, kb],
    )
  ).rows[0].first;
  const seen = !first;
  // The SIM's month as the dashboard counts it (UTC+8).
  await q.query(
    `INSERT INTO usage_sim_monthly (org_id, month, sim_id, iccid, uplink_kb, downlink_kb, volume_kb)
     VALUES ($1, date_trunc('month', $2::timestamptz AT TIME ZONE 'Asia/Shanghai')::date, $3, $4, $5, $6, $7)
     ON CONFLICT (org_id, month, sim_id) DO UPDATE SET uplink_kb = usage_sim_monthly.uplink_kb + EXCLUDED.uplink_kb,
       downlink_kb = usage_sim_monthly.downlink_kb + EXCLUDED.downlink_kb, volume_kb = usage_sim_monthly.volume_kb + EXCLUDED.volume_kb`,
    [sim.orgId, start, sim.simId, sim.iccid, up, down, kb],
  );
  await q.query(
    `INSERT INTO cdrs (org_id, sim_id, iccid, imsi, network, mcc_mnc, country, plan_code, direction, rat, volume_kb, start_at, end_at, duration_s)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)`,
    [
      sim.orgId,
      sim.simId,
      sim.iccid,
      sim.imsi,
      cdr.network.name,
      cdr.network.mccMnc,
      cdr.network.country,
      cdr.planCode,
      cdr.direction,
      cdr.rat,
      kb,
      start,
      cdr.end.toISOString(),
      Math.max(0, Math.round((cdr.end.getTime() - cdr.start.getTime()) / 1000)),
    ],
  );
  await q.query(
    `INSERT INTO usage_daily (org_id, sim_id, day, iccid, uplink_kb, downlink_kb, volume_kb, cdr_count) VALUES ($1, $2, $3::date, $4, $5, $6, $7, 1)
     ON CONFLICT (org_id, sim_id, day) DO UPDATE SET uplink_kb = usage_daily.uplink_kb + EXCLUDED.uplink_kb, downlink_kb = usage_daily.downlink_kb + EXCLUDED.downlink_kb,
       volume_kb = usage_daily.volume_kb + EXCLUDED.volume_kb, cdr_count = usage_daily.cdr_count + 1`,
    [sim.orgId, sim.simId, day, sim.iccid, up, down, kb],
  );
  await q.query(
    `INSERT INTO usage_hourly (org_id, hour, uplink_kb, downlink_kb, volume_kb, cdr_count, active_sims) VALUES ($1, $2::timestamptz, $3, $4, $5, 1, $6)
     ON CONFLICT (org_id, hour) DO UPDATE SET uplink_kb = usage_hourly.uplink_kb + EXCLUDED.uplink_kb, downlink_kb = usage_hourly.downlink_kb + EXCLUDED.downlink_kb,
       volume_kb = usage_hourly.volume_kb + EXCLUDED.volume_kb, cdr_count = usage_hourly.cdr_count + 1, active_sims = usage_hourly.active_sims + EXCLUDED.active_sims`,
    [sim.orgId, hour, up, down, kb, seen ? 0 : 1],
  );
  await rollCycles(q, cdr.start, { only: { orgId: sim.orgId, simId: sim.simId }, limit: 1 });
  const row = (
    await q.query<UsageRow & { counted: boolean; cycle_usage_kb: string; cycle_limit_kb: string | null; overage_control: string }>(
      `WITH prev AS (SELECT cycle_started_at IS NOT NULL AND $4::timestamptz >= cycle_started_at AS counted FROM sims WHERE org_id = $1 AND id = $2)
       UPDATE sims SET cycle_usage_kb = cycle_usage_kb + CASE WHEN prev.counted THEN $3::bigint ELSE 0 END, updated_at = now() FROM prev WHERE org_id = $1 AND id = $2
       RETURNING status, sub_status, technology, operation, test_data_status, pool_id, prev.counted, cycle_usage_kb, cycle_limit_kb, overage_control`,
      [sim.orgId, sim.simId, kb, start],
    )
  ).rows[0];
  if (!row) return false;
  // The bundle the usage draws on: the test bundle while the SIM is in its test, else the bundles in use in order,
  // each up to its quota (the last one in use takes what goes past them all).
  if (row.counted || row.sub_status === 'active_test' || row.sub_status === 'test') {
    await q.query(
      `UPDATE bundle_orders SET used_kb = used_kb + $3 WHERE id = (
         SELECT id FROM bundle_orders WHERE org_id = $1 AND sim_id = $2 AND status = 'IN_USE' AND service_type <> 'sms'
          ORDER BY (type = 'BEFORE_TEST') = $4 DESC, (quota_kb IS NULL OR used_kb < quota_kb) DESC,
                   CASE WHEN quota_kb IS NULL OR used_kb < quota_kb THEN activated_at END ASC NULLS LAST, activated_at DESC NULLS LAST, id LIMIT 1)`,
      [sim.orgId, sim.simId, kb, row.sub_status === 'active_test' || row.sub_status === 'test'],
    );
  }
  // The pool's cycle, its rollup, its overage and its stop (server/pool/pool-engine.ts).
  const poolStopped = row.pool_id ? await recordPoolUsage(q, sim, row.pool_id, kb, day, cdr.end) : false;
  // Usage detected: an active-ready SIM goes live (or to test while its test allowance runs).
  const d = decide(
    {
      status: row.status,
      subStatus: row.sub_status,
      technology: row.technology,
      operation: row.operation,
      hasAvailableBundle: true,
      inTestPeriod: row.test_data_status === 'in_test',
    },
    'detectUsage',
  );
  if (d.ok && d.changed) {
    await q.query('UPDATE sims SET status = $3, sub_status = $4, updated_at = now() WHERE org_id = $1 AND id = $2', [
      sim.orgId,
      sim.simId,
      d.status,
      d.subStatus,
    ]);
    await networkEvent(q, {
      orgId: sim.orgId,
      simId: sim.simId,
      iccid: sim.iccid,
      type: 'status_change',
      from: row.status,
      to: d.status,
      detail: { action: 'detectUsage', fromSub: row.sub_status, toSub: d.subStatus },
      at: cdr.end,
    });
  }
  // The allowance reached (or an earlier control to escalate): the overage policy decides.
  if (row.counted && row.cycle_limit_kb !== null && Number(row.cycle_usage_kb) >= Number(row.cycle_limit_kb) && row.overage_control !== 'stop') {
    return (await evaluateOverage(q, { orgId: sim.orgId, simId: sim.simId }, cdr.end)) || poolStopped;
  }
  return poolStopped;
}

/** Count an SMS in the rollups of its UTC day and hour. */
export async function countSms(q: Queryable, e: { orgId: string; simId: string; iccid: string; direction: 'MO' | 'MT'; at: Date }): Promise<void> {
  const mo = e.direction === 'MO' ? 1 : 0;
  const at = e.at.toISOString();
  await q.query(
    `INSERT INTO usage_daily (org_id, sim_id, day, iccid, sms_mo, sms_mt) VALUES ($1, $2, $3::date, $4, $5, $6)
     ON CONFLICT (org_id, sim_id, day) DO UPDATE SET sms_mo = usage_daily.sms_mo + EXCLUDED.sms_mo, sms_mt = usage_daily.sms_mt + EXCLUDED.sms_mt`,
    [e.orgId, e.simId, at.slice(0, 10), e.iccid, mo, 1 - mo],
  );
  await q.query(
    `INSERT INTO usage_hourly (org_id, hour, sms_mo, sms_mt) VALUES ($1, date_trunc('hour', $2::timestamptz AT TIME ZONE 'UTC') AT TIME ZONE 'UTC', $3, $4)
     ON CONFLICT (org_id, hour) DO UPDATE SET sms_mo = usage_hourly.sms_mo + EXCLUDED.sms_mo, sms_mt = usage_hourly.sms_mt + EXCLUDED.sms_mt`,
    [e.orgId, at, mo, 1 - mo],
  );
}

interface ConnectionRow {
  connection_status: string;
  network: string | null;
  network_country: string | null;
}

/** The connection status and network now, and the row locked for the change. */
async function lockConnection(q: Queryable, orgId: string, simId: string): Promise<ConnectionRow | undefined> {
  return (await q.query<ConnectionRow>('SELECT connection_status, network, network_country FROM sims WHERE org_id = $1 AND id = $2 FOR UPDATE', [orgId, simId]))
    .rows[0];
}

/**
 * The SIM is on `network` now: remember its country, and when it was on another network before, write a
 * network_change event (with both countries), which the rule engine's network and country triggers match.
 */
async function networkSeen(
  q: Queryable,
  sim: { orgId: string; simId: string; iccid: string },
  before: ConnectionRow,
  network: NetworkName,
  at: Date,
): Promise<void> {
  const country = /^[A-Z]{2}$/.test(network.country) ? network.country : null;
  if (before.network_country !== country) await q.query('UPDATE sims SET network_country = $3 WHERE org_id = $1 AND id = $2', [sim.orgId, sim.simId, country]);
  if (!before.network || before.network === network.name) return;
  await networkEvent(q, {
    ...ids(sim),
    type: 'network_change',
    at,
    detail: {
      fromNetwork: before.network,
      toNetwork: network.name,
      fromCountry: before.network_country ?? countryOf(before.network),
      toCountry: country,
      mccMnc: network.mccMnc,
    },
  });
}

/** The country of a network named like the simulator's ("Vodafone DE 262-02"), for a SIM seen before countries were kept. */
const countryOf = (name: string): string | null => / ([A-Z]{2}) \d{3}-?\d{2,3}$/.exec(name)?.[1] ?? null;

/**
 * NetworkReports written to db, each report in its own transaction. A report that changes a SIM's data policy (an
 * allowance crossed, an attach out of coverage) tells the network right after its commit, through `adapter` (given
 * late: the network is built with these reports); what it could not tell stays queued for the bundle job.
 */
export function networkReports(db: Db, adapter: () => NetworkAdapter | undefined = () => undefined): NetworkReports {
  const tell = async (changed: boolean, sim: { orgId: string; simId: string }) => {
    const a = adapter();
    if (changed && a) await syncPolicies(db, a, { only: [sim] });
  };
  return {
    activationCompleted: (e) => confirmActivation(db, e),
    activationsCompleted: (e) => confirmActivations(db, e),
    usage: async (cdr) => tell(await db.tx((q) => recordUsage(q, cdr)), cdr.sim),
    connectionStatus: async (e) =>
      tell(
        await db.tx(async (q) => {
          const now = await lockConnection(q, e.sim.orgId, e.sim.simId);
          if (!now || (now.connection_status === e.status && !e.network)) return false;
          await q.query(`UPDATE sims SET connection_status = $3, network = coalesce($4, network), updated_at = now() WHERE org_id = $1 AND id = $2`, [
            e.sim.orgId,
            e.sim.simId,
            e.status,
            e.network?.name ?? null,
          ]);
          await networkEvent(q, {
            ...ids(e.sim),
            type: 'session',
            detail: { connection: e.status, from: now.connection_status, network: e.network?.name, rat: e.rat },
            at: e.at,
          });
          if (e.network) await networkSeen(q, e.sim, now, e.network, e.at);
          // Attached in a country: the bundle's out-of-coverage policy.
          return e.network && e.status !== 'offline' ? applyCoverage(q, e.sim, e.network.country, e.at) : false;
        }),
        e.sim,
      ),
    sessionOpened: (e) =>
      db.tx(async (q) => {
        const before = await lockConnection(q, e.sim.orgId, e.sim.simId);
        if (!before) return;
        await q.query(
          `UPDATE sims SET connection_status = 'online', apn = $3, ip = $4, network = $5, last_session_at = $6, last_session_kb = 0, updated_at = now() WHERE org_id = $1 AND id = $2`,
          [e.sim.orgId, e.sim.simId, e.apn, e.ip, e.network.name, e.at.toISOString()],
        );
        await networkEvent(q, {
          ...ids(e.sim),
          type: 'session',
          detail: { session: 'opened', connection: 'online', apn: e.apn, ip: e.ip, network: e.network.name, rat: e.rat },
          at: e.at,
        });
        await networkSeen(q, e.sim, before, e.network, e.at);
      }),
    sessionClosed: (e) =>
      db.tx(async (q) => {
        if (!(await lockConnection(q, e.sim.orgId, e.sim.simId))) return;
        await q.query(`UPDATE sims SET connection_status = 'connected', last_session_kb = $3, updated_at = now() WHERE org_id = $1 AND id = $2`, [
          e.sim.orgId,
          e.sim.simId,
          Math.round(e.kb),
        ]);
        await networkEvent(q, { ...ids(e.sim), type: 'session', detail: { session: 'closed', connection: 'connected', kb: Math.round(e.kb) }, at: e.at });
      }),
    location: (e) =>
      db.tx(async (q) => {
        await q.query('UPDATE sims SET lat = $3, lon = $4, location_at = $5, updated_at = now() WHERE org_id = $1 AND id = $2', [
          e.sim.orgId,
          e.sim.simId,
          e.lat,
          e.lon,
          e.at.toISOString(),
        ]);
        await networkEvent(q, { ...ids(e.sim), type: 'location', detail: { lat: e.lat, lon: e.lon }, at: e.at });
      }),
    smsDelivered: (e) =>
      db
        .query(
          `UPDATE sms_records SET status = 'delivered', delivered_at = $3 WHERE org_id = $1 AND id = $2 AND direction = 'MT' AND status IN ('pending', 'sent')`,
          [e.orgId, e.smsId, e.at.toISOString()],
        )
        .then(() => undefined),
    moSms: (e) =>
      db.tx(async (q) => {
        await q.query(
          `INSERT INTO sms_records (org_id, id, sim_id, iccid, msisdn, direction, content, status, reply_to_id, created_at, sent_at, delivered_at)
           VALUES ($1, $2, $3, $4, $5, 'MO', $6, 'received', $7, $8, $8, $8)`,
          [e.sim.orgId, e.id ?? newId(), e.sim.simId, e.sim.iccid, e.sim.msisdn, e.content.slice(0, 140), e.replyToId, e.at.toISOString()],
        );
        await countSms(q, { orgId: e.sim.orgId, simId: e.sim.simId, iccid: e.sim.iccid, direction: 'MO', at: e.at });
      }),
  };
}

const ids = (sim: { orgId: string; simId: string; iccid: string }) => ({ orgId: sim.orgId, simId: sim.simId, iccid: sim.iccid });
