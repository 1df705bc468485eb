/**
 * Fleet demo data: SIMs, bundles, CDRs with their rollups, pools, autoflow rules, SMS, developer keys and
 * logs, invoices, reports, tasks and files, for the organisations of seed.ts.
 * Values come from a seeded PRNG, so every run makes the same ids, ICCIDs and volumes; times are relative
 * to opts.now (default: the current minute) so that "last 7 days" and "last 30 days" screens have content.
 */
import type { Db, Queryable } from './db.js';
import { EXPORT_JOBS, EXPORTS, type ExportKind } from '../job/export-jobs.js';
import { REPORT_CONTENT_TYPE, SCHEDULED_LANGUAGE, writeReport, type ReportKind } from '../job/report-jobs.js';
import type { FileStore } from '../job/storage.js';
import { ACTIVATION_ANSWER_MINUTES } from '../network/activation.js';
import { armScheduled } from '../autoflow/schedule.js';
import { dueDateOf } from '../../common/billing.js';
import { makeIccid, makeImei } from '../../common/iccid.js';
import { allowanceKb, cycleEnd, cycleStart, overageControl, type OveragePolicy, type ResetCycle } from '../domain/bundle-cycle.js';
import { Rng } from '../domain/rng.js';
import { SIM_STATUSES, type SimStatus } from '../../common/lifecycle.js';
import { nextOccurrence, previousOccurrences, type Recurrence } from '../sms-schedules/recurrence.js';

export type SeedSize = 'small' | 'demo';

export { SIM_STATUSES, type SimStatus };
export const SIM_TECHNOLOGIES = ['OTA', 'OTA_BIP', 'ONE_IMSI', 'MULTI_IMSI'] as const;
export type SimTechnology = (typeof SIM_TECHNOLOGIES)[number];

// ---------------------------------------------------------------------------------------------------------
// Deterministic ids (the randomness is server/domain/rng.ts).

/** A stable 20-alphanumeric id for a label, so fixtures are known before the seed runs. */
export function fixedId(label: string): string {
  return new Rng(`id:${label}`).id(20);
}

// ---------------------------------------------------------------------------------------------------------
// The fleets and the well-known fixtures other tests use.

interface Fleet {
  org: string;
  owner: string;
  country: 'DE' | 'ES' | 'GB';
  iccidPrefix: string;
  serialBase: number;
  imsiPrefix: string;
  msisdnPrefix: string;
  currency: string;
  taxRate: number;
  center: [number, number];
}

const FLEETS: Fleet[] = [
  { org: 'org-demo', owner: 'acc-admin', country: 'DE', iccidPrefix: '894902', serialBase: 1_000_000, imsiPrefix: '26202', msisdnPrefix: '49151', currency: 'EUR', taxRate: 0.19, center: [51.2, 10.4] },
  { org: 'org-demo-north', owner: 'acc-admin', country: 'DE', iccidPrefix: '894902', serialBase: 2_000_000, imsiPrefix: '26202', msisdnPrefix: '49160', currency: 'EUR', taxRate: 0.19, center: [53.55, 9.99] },
  { org: 'org-demo-south', owner: 'acc-admin', country: 'ES', iccidPrefix: '893407', serialBase: 3_000_000, imsiPrefix: '21407', msisdnPrefix: '34600', currency: 'EUR', taxRate: 0.21, center: [40.4, -3.7] },
  { org: 'org-other', owner: 'acc-other-admin', country: 'GB', iccidPrefix: '894410', serialBase: 4_000_000, imsiPrefix: '23415', msisdnPrefix: '44770', currency: 'GBP', taxRate: 0.2, center: [52.5, -1.9] },
];

/** SIMs per organisation for each seed size. */
export const FLEET_SIZES: Record<SeedSize, Record<string, number>> = {
  small: { 'org-demo': 60, 'org-demo-north': 10, 'org-demo-south': 10, 'org-other': 10 },
  demo: { 'org-demo': 2000, 'org-demo-north': 150, 'org-demo-south': 150, 'org-other': 100 },
};

const fleetOf = (org: string): Fleet => FLEETS.find((f) => f.org === org)!;
const iccidAt = (f: Fleet, index: number): string => makeIccid(f.iccidPrefix, f.serialBase + index, 20);
const simIdOf = (iccid: string): string => fixedId(`sim:${iccid}`);

// The first SIMs of org-demo are fixed: one per status, then the activation refusals of SPEC.md section 8.
interface FixedSim {
  status: SimStatus;
  sub: string;
  tech: SimTechnology;
  bundle: 'available' | 'none' | 'default';
  operation?: string;
  pool?: boolean;
}
const DEMO_FIXED: FixedSim[] = [
  { status: 'inactive', sub: 'inactive', tech: 'ONE_IMSI', bundle: 'default' },
  { status: 'pre_activated', sub: 'quiet', tech: 'ONE_IMSI', bundle: 'available' },
  { status: 'active', sub: 'active_live', tech: 'ONE_IMSI', bundle: 'default' },
  { status: 'paused', sub: 'paused', tech: 'ONE_IMSI', bundle: 'default' },
  { status: 'expired', sub: 'expired', tech: 'ONE_IMSI', bundle: 'default' },
  { status: 'terminated', sub: 'terminated', tech: 'ONE_IMSI', bundle: 'default' },
  { status: 'pre_activated', sub: 'test', tech: 'OTA', bundle: 'available' },
  { status: 'pre_activated', sub: 'test', tech: 'MULTI_IMSI', bundle: 'available' },
  { status: 'pre_activated', sub: 'quiet', tech: 'ONE_IMSI', bundle: 'none' },
  { status: 'pre_activated', sub: 'quiet', tech: 'ONE_IMSI', bundle: 'available', operation: 'activate' },
  { status: 'active', sub: 'active_live', tech: 'ONE_IMSI', bundle: 'default', pool: true },
];

const demoIccid = (i: number): string => iccidAt(FLEETS[0], i);

/** One ICCID per lifecycle status in org-demo. */
export const DEMO_SIMS: Record<SimStatus, string> = {
  inactive: demoIccid(0),
  pre_activated: demoIccid(1),
  active: demoIccid(2),
  paused: demoIccid(3),
  expired: demoIccid(4),
  terminated: demoIccid(5),
};
/** The SIM ids of DEMO_SIMS. */
export const DEMO_SIM_IDS: Record<SimStatus, string> = Object.fromEntries(
  SIM_STATUSES.map((s) => [s, simIdOf(DEMO_SIMS[s])]),
) as Record<SimStatus, string>;
/** Pre-activated SIMs of org-demo that activation must refuse, and other special cases. */
export const SPECIAL_SIMS = {
  /** Pre-activated, ONE_IMSI, with an available bundle and nothing in progress: activation succeeds. */
  activatable: demoIccid(1),
  preActivatedOta: demoIccid(6),
  preActivatedMultiImsi: demoIccid(7),
  preActivatedNoBundle: demoIccid(8),
  /** Pre-activated with an activation already in progress (operation set, task processing). */
  operationInProgress: demoIccid(9),
  /** Active and a member of DEMO_POOL_ID: cannot be transferred. */
  inSharedPool: demoIccid(10),
} as const;
export const NORTH_SIM_ICCID = iccidAt(fleetOf('org-demo-north'), 0);
export const SOUTH_SIM_ICCID = iccidAt(fleetOf('org-demo-south'), 0);
/** An active SIM of org-other: no demo account may see it. */
export const OTHER_SIM_ICCID = iccidAt(fleetOf('org-other'), 0);

export const DEMO_POOL_ID = fixedId('pool:org-demo:0');
export const DEMO_RULE_ID = fixedId('rule:org-demo:0');
export const OTHER_RULE_ID = fixedId('rule:org-other:0');
/** "Data over 50 MB", an enabled rule in org-demo; its name is taken. */
export const DEMO_RULE_NAME = 'Data over 50 MB';
/** A repeated, enabled scheduled SMS in org-demo. */
export const DEMO_SCHEDULE_ID = fixedId('schedule:org-demo:0');
/** A once-only scheduled SMS that is executing: cannot be edited or deleted. */
export const EXECUTING_SCHEDULE_ID = fixedId('schedule:org-demo:1');
export const DEMO_INVOICE_ID = fixedId('invoice:org-demo:1');
export const OTHER_INVOICE_ID = fixedId('invoice:org-other:1');
export const DEMO_API_KEY_ID = fixedId('apikey:org-demo:0');
export const DEMO_NOTIFICATION_KEY_ID = fixedId('notifkey:org-demo:0');
export const DEMO_REPORT_ID = fixedId('report:org-demo:0');
/** A finished export task of acc-admin in org-demo, with a result file. */
export const DEMO_TASK_ID = fixedId('task:org-demo:done');
/** The processing activation task that holds SPECIAL_SIMS.operationInProgress. */
export const BUSY_TASK_ID = fixedId('task:org-demo:busy');

// ---------------------------------------------------------------------------------------------------------
// Catalogue.

const NETWORKS: Record<Fleet['country'], string[]> = {
  DE: ['Vodafone DE 262-02', 'Telekom DE 262-01', 'O2 DE 262-03'],
  ES: ['Movistar ES 214-07', 'Vodafone ES 214-01', 'Orange ES 214-03'],
  GB: ['EE GB 234-30', 'Vodafone GB 234-15', 'O2 GB 234-10'],
};
const ROAMING = ['Orange FR 208-01', 'KPN NL 204-08', 'Swisscom CH 228-01', 'A1 AT 232-01', 'TIM IT 222-01'];
const RATS = [['LTE', 40], ['CATM', 25], ['NBIoT', 15], ['3G', 10], ['2G', 7], ['undetermined', 3]] as const;
const TACS = ['35332011', '86723004', '35881910', '01542700', '35473711'];
const TAGS = ['fleet', 'cold', 'gps', 'pilot', 'eu', 'trial', 'v2', 'meter', 'gateway', 'spare'];
const DEVICE_KINDS = ['Tracker', 'Truck', 'Meter', 'Gateway', 'Reefer', 'Trailer', 'Sensor', 'Kiosk'];
const COUNTRIES = ['DE', 'AT', 'FR', 'NL', 'ES', 'IT', 'GB', 'CH', 'BE', 'PL'];
const OVERAGE = ['stop', 'billing', 'billing_speed_decrease', 'billing_throttle_after_threshold', 'billing_stop_after_allowance'] as const;

interface Plan {
  name: string;
  sku: string;
  quotaKb: number;
  reset: 'DAY' | 'DAY_24H' | 'MONTH' | 'MONTH_31D' | 'YEAR_366D';
  price: number;
}
const PLANS: Plan[] = [
  { name: 'IoT Basic 100 MB', sku: 'EU-BAS-100M', quotaKb: 102_400, reset: 'MONTH', price: 1.5 },
  { name: 'IoT Basic 1 GB', sku: 'EU-BAS-1G', quotaKb: 1_048_576, reset: 'MONTH', price: 4 },
  { name: 'IoT Daily 5 MB', sku: 'EU-DAY-5M', quotaKb: 5_120, reset: 'DAY', price: 2 },
  { name: 'IoT 24h 10 MB', sku: 'EU-24H-10M', quotaKb: 10_240, reset: 'DAY_24H', price: 2.5 },
  { name: 'IoT 500 MB 31 days', sku: 'EU-31D-500M', quotaKb: 512_000, reset: 'MONTH_31D', price: 3 },
  { name: 'IoT Annual 5 GB', sku: 'EU-YR-5G', quotaKb: 5_242_880, reset: 'YEAR_366D', price: 30 },
];
const TEST_PLAN: Plan = { name: 'Test 10 MB', sku: 'TST-10M', quotaKb: 10_240, reset: 'MONTH', price: 0 };
const SUPPLEMENT_PLAN: Plan = { name: 'Top-up 50 MB', sku: 'EU-TOP-50M', quotaKb: 51_200, reset: 'MONTH', price: 1 };
const POOL_PLAN: Plan = { name: 'Pool share 200 MB', sku: 'EU-POOL-200M', quotaKb: 204_800, reset: 'MONTH', price: 2 };

// ---------------------------------------------------------------------------------------------------------
// Helpers.

type Row = Record<string, unknown>;
const DAY = 86_400_000;
const HOUR = 3_600_000;
const MINUTE = 60_000;

/** A PostgreSQL array literal, passed as text so both pg and PGlite read it the same way. */
function pgArray(values: readonly (string | number)[]): string {
  return `{${values.map((v) => (typeof v === 'number' ? String(v) : `"${v.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`)).join(',')}}`;
}

function toParam(v: unknown): unknown {
  if (v === undefined || v === null) return null;
  if (v instanceof Date) return v.toISOString();
  if (Array.isArray(v)) return pgArray(v as (string | number)[]);
  if (typeof v === 'object') return JSON.stringify(v);
  return v;
}

/** Multi-row INSERT in batches, with parameters; columns are the union of the rows' keys. */
async function insertRows(q: Queryable, table: string, rows: Row[], batch = 500): Promise<void> {
  if (rows.length === 0) return;
  const cols = [...new Set(rows.flatMap((r) => Object.keys(r)))];
  const per = Math.max(1, Math.min(batch, Math.floor(60_000 / cols.length)));
  for (let i = 0; i < rows.length; i += per) {
    const chunk = rows.slice(i, i + per);
    const params: unknown[] = [];
    // A key a row leaves out takes the column's DEFAULT; an explicit null stays null.
    const values = chunk.map((r) => `(${cols.map((c) => (c in r ? (params.push(toParam(r[c])), `$${params.length}`) : 'DEFAULT')).join(',')})`).join(',');
    await q.query(`INSERT INTO ${table} (${cols.join(',')}) VALUES ${values}`, params);
  }
}

const dateOnly = (d: Date): string => d.toISOString().slice(0, 10);
const monthStart = (d: Date, add = 0): Date => new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + add, 1));
const round2 = (n: number): number => Math.round(n * 100) / 100;
/** What a plan allows a day, on average over its cycle. */
const perDayKb = (plan: Plan): number =>
  plan.quotaKb / ({ DAY: 1, DAY_24H: 1, MONTH: 30, MONTH_31D: 31, YEAR_366D: 366 } as const)[plan.reset];
const mccMnc = (network: string): string => network.match(/(\d{3})-(\d{2,3})$/)!.slice(1).join('');
const networkCountry = (network: string): string => network.split(' ').slice(-2, -1)[0];

function fakePublicKey(rng: Rng): string {
  // SPKI DER of a 1024-bit RSA key is 162 bytes; these bytes are random, a placeholder for demo rows only.
  let bin = '';
  for (let i = 0; i < 162; i++) bin += String.fromCharCode(rng.int(0, 255));
  const b64 = btoa(bin);
  return `-----BEGIN PUBLIC KEY-----\n${b64.match(/.{1,64}/g)!.join('\n')}\n-----END PUBLIC KEY-----`;
}

// ---------------------------------------------------------------------------------------------------------
// The seed.

interface SimSeed {
  org: string;
  id: string;
  iccid: string;
  imsi: string;
  msisdn: string;
  status: SimStatus;
  sub: string;
  tech: SimTechnology;
  activatedAt: Date | null;
  network: string | null;
  poolId: string | null;
  /** The plan of its base bundle (the pool's share for a pool member): its bundles, cycle limit and CDRs name it. */
  plan: Plan;
  /** Typical KB per day, for CDRs: a share of what the plan allows a day. */
  dailyKb: number;
}

interface Ctx {
  q: Queryable;
  /** Where the files the seed lists are written; without it the seed lists no files. */
  files?: FileStore;
  size: SeedSize;
  now: Date;
  rng: Rng;
  sims: SimSeed[];
  pools: { id: string; org: string; members: SimSeed[] }[];
}

/** Fill every fleet table for the organisations and accounts of seed.ts. */
export async function seedFleet(q: Queryable, opts: { size: SeedSize; now?: Date; files?: FileStore }): Promise<void> {
  const now = new Date(Math.floor((opts.now ?? new Date()).getTime() / MINUTE) * MINUTE);
  const ctx: Ctx = { q, files: opts.files, size: opts.size, now, rng: new Rng(`fleet:${opts.size}`), sims: [], pools: [] };
  await seedPoolsAndSims(ctx);
  await seedBundles(ctx);
  await seedSimEvents(ctx);
  await seedCdrs(ctx);
  await seedPoolEvents(ctx);
  await seedAutoflow(ctx);
  await seedSms(ctx);
  await seedRollups(ctx);
  await seedDeveloper(ctx);
  await seedInvoices(ctx);
  await seedReportsAndTasks(ctx);
  await armAutoflow(ctx);
}

async function seedPoolsAndSims(ctx: Ctx): Promise<void> {
  const { rng, now, size } = ctx;
  const poolDefs: { org: string; name: string; target: number; overage: string; optIn: string; rule: string }[] = [
    { org: 'org-demo', name: 'EU Fleet Pool', target: size === 'small' ? 4 : 150, overage: 'no_limit', optIn: 'automatic', rule: 'standard' },
  ];
  if (size === 'demo') {
    poolDefs.push(
      { org: 'org-demo', name: 'Cold Chain Pool', target: 60, overage: 'stop_overage_sims', optIn: 'manual', rule: 'pro_rata' },
      { org: 'org-demo-north', name: 'North Trucks Pool', target: 30, overage: 'no_limit', optIn: 'automatic', rule: 'standard' },
    );
  }
  const poolRows: Row[] = [];
  poolDefs.forEach((p, i) => {
    const n = poolDefs.slice(0, i).filter((x) => x.org === p.org).length;
    const id = fixedId(`pool:${p.org}:${n}`);
    ctx.pools.push({ id, org: p.org, members: [] });
    const created = monthStart(now, -4 - i);
    poolRows.push({
      org_id: p.org, id, name: p.name, bundle_name: POOL_PLAN.name, bundle_sku: POOL_PLAN.sku, base_bundle_kb: POOL_PLAN.quotaKb,
      cycle_start: dateOnly(monthStart(now)), cycle_end: dateOnly(monthStart(now, 1)), overage_policy: p.overage, opt_in_mode: p.optIn,
      activation_rule: p.rule, status: 'active', effective_from: dateOnly(monthStart(created, 1)), created_at: created, updated_at: now,
    });
  });
  await insertRows(ctx.q, 'shared_pools', poolRows);
  const poolTarget = new Map(poolDefs.map((p, i) => [ctx.pools[i].id, p.target]));

  const rows: Row[] = [];
  for (const f of FLEETS) {
    const count = FLEET_SIZES[size][f.org];
    const orgPools = ctx.pools.filter((p) => p.org === f.org);
    for (let i = 0; i < count; i++) {
      const fixed: FixedSim | undefined =
        f.org === 'org-demo' ? DEMO_FIXED[i] : i === 0 ? { status: 'active', sub: 'active_live', tech: 'ONE_IMSI', bundle: 'default' } : undefined;
      const status: SimStatus =
        fixed?.status ?? rng.weighted<SimStatus>([['active', 55], ['pre_activated', 12], ['inactive', 10], ['paused', 8], ['expired', 8], ['terminated', 7]]);
      const tech: SimTechnology = fixed?.tech ?? SIM_TECHNOLOGIES[i % 4];
      let sub: string = fixed?.sub ?? status;
      if (!fixed && status === 'pre_activated') sub = rng.chance(0.5) ? 'test' : 'quiet';
      if (!fixed && status === 'active') sub = rng.weighted([['active_live', 80], ['active_test', 10], ['active_ready', 10]]);

      const iccid = iccidAt(f, i);
      const id = simIdOf(iccid);
      const imsi = f.imsiPrefix + String(f.serialBase + i).padStart(10, '0');
      const msisdn = f.msisdnPrefix + String(f.serialBase + i).slice(-7).padStart(7, '0');
      const used = status !== 'inactive' && status !== 'pre_activated';
      const shipped = new Date(now.getTime() - rng.int(200, 500) * DAY);
      // A SIM still pre-activated is inside its 180-day pre-activated period (the bundle job ends it at its end).
      const preActivatedAt =
        status === 'inactive' ? null : status === 'pre_activated' ? new Date(now.getTime() - rng.int(5, 150) * DAY) : new Date(shipped.getTime() + rng.int(5, 30) * DAY);
      const activatedAt = used ? new Date(preActivatedAt!.getTime() + rng.int(5, 60) * DAY) : null;
      const network = used ? (rng.chance(0.15) ? rng.pick(ROAMING) : rng.pick(NETWORKS[f.country])) : null;
      const live = status === 'active' && sub !== 'active_ready';
      const connection = live ? rng.weighted([['online', 40], ['connected', 30], ['offline', 30]]) : status === 'paused' ? 'offline' : used ? rng.pick(['offline', 'unknown']) : 'unknown';
      const located = live && connection !== 'offline';

      let poolId: string | null = null;
      if (fixed?.pool) poolId = orgPools[0].id;
      else if (!fixed && status === 'active' && sub === 'active_live') {
        const open = orgPools.find((p) => p.members.length < poolTarget.get(p.id)!);
        if (open && rng.chance(0.5)) poolId = open.id;
      }

      let expiresAt: Date | null = null;
      if (status === 'active' || status === 'paused') {
        expiresAt = rng.chance(0.06) ? new Date(now.getTime() + rng.int(1, 45) * DAY) : new Date(activatedAt!.getTime() + rng.pick([1, 2, 3]) * 366 * DAY);
        if (expiresAt.getTime() <= now.getTime()) expiresAt = new Date(now.getTime() + rng.int(46, 400) * DAY);
      } else if (status === 'expired' || status === 'terminated') expiresAt = new Date(now.getTime() - rng.int(1, 120) * DAY);

      const plan = poolId ? POOL_PLAN : rng.pick(PLANS);
      if (poolId) rng.pick(PLANS); // one draw either way, so that the rest of the seed keeps its values
      // From 3% to 130% of what the plan allows a day: most SIMs well within it, a few over it (and billed for it).
      const sim: SimSeed = {
        org: f.org, id, iccid, imsi, msisdn, status, sub, tech, activatedAt, network, poolId, plan,
        dailyKb: Math.max(1, Math.round(perDayKb(plan) * Math.exp(Math.log(0.03) + rng.next() * Math.log(1.3 / 0.03)))),
      };
      ctx.sims.push(sim);
      if (poolId) ctx.pools.find((p) => p.id === poolId)!.members.push(sim);

      rows.push({
        org_id: f.org, id, iccid, imsi, msisdn,
        imei: used || sub === 'test' ? makeImei(rng.pick(TACS), (f.serialBase + i) % 1_000_000) : null,
        device_name: rng.chance(0.8) ? `${rng.pick(DEVICE_KINDS)} ${f.country}-${String(i + 1).padStart(4, '0')}` : null,
        notes: rng.chance(0.2) ? rng.pick(['Installed in depot 3', 'Replace battery in spring', 'Customer pilot unit', 'Roams between DE and NL', 'Check antenna placement']) : null,
        tags: rng.chance(0.6) ? rng.subset(TAGS, 1, 3) : [],
        status, sub_status: sub, technology: tech,
        product_type: rng.weighted([['industrial', 55], ['automotive', 30], ['consumer', 15]]),
        batch_no: `B${shipped.getUTCFullYear()}-${String(shipped.getUTCMonth() + 1).padStart(2, '0')}-${String(1 + (i % 7)).padStart(2, '0')}`,
        delivery_note: `DN-${f.country}-${String(100000 + Math.floor(i / 50)).slice(1)}`,
        shipment_date: dateOnly(shipped),
        pool_id: poolId,
        activated_at: activatedAt,
        cycle_start: null,
        // The cycle, its usage and its limit are those of the bundles in use (seedCycles).
        cycle_limit_kb: null,
        test_data_status: status === 'pre_activated' ? (sub === 'test' ? 'in_test' : 'not_started') : used ? 'ended' : 'not_started',
        test_data_kb: status === 'inactive' ? null : TEST_PLAN.quotaKb,
        test_period_days: status === 'inactive' ? null : 30,
        test_started_at: sub === 'test' ? new Date(now.getTime() - rng.int(1, 20) * DAY) : null,
        pre_activated_at: preActivatedAt,
        pre_activated_period_days: status === 'inactive' ? null : 180,
        deactivated_at: status === 'paused' || status === 'expired' || status === 'terminated' ? new Date(now.getTime() - rng.int(1, 90) * DAY) : null,
        deactivated_period_days: status === 'expired' ? 365 : null,
        connection_status: connection,
        apn: used ? (f.org === 'org-other' ? 'iot.other' : 'iot.demo') : null,
        ip: connection === 'online' || connection === 'connected' ? `10.${20 + FLEETS.indexOf(f)}.${Math.floor(i / 250)}.${(i % 250) + 2}` : null,
        network,
        lat: located ? round2(f.center[0] + (rng.next() - 0.5) * 4) : null,
        lon: located ? round2(f.center[1] + (rng.next() - 0.5) * 6) : null,
        location_at: located ? new Date(now.getTime() - rng.int(5, 47 * 60) * MINUTE) : null,
        // What the network does with its data follows from its cycle's usage and overage policy (seedCycles).
        flow_control_policy: 'none',
        expires_at: expiresAt,
        operation: fixed?.operation ?? null,
        operation_task_id: fixed?.operation ? BUSY_TASK_ID : null,
        operation_started_at: fixed?.operation ? new Date(now.getTime() - 2 * MINUTE) : null,
        created_at: shipped,
        updated_at: now,
      });
    }
  }
  await insertRows(ctx.q, 'sims', rows);
  const memberRows: Row[] = [];
  for (const p of ctx.pools) {
    for (const s of p.members) {
      memberRows.push({ org_id: p.org, pool_id: p.id, sim_id: s.id, iccid: s.iccid, joined_at: new Date(Math.max(s.activatedAt!.getTime(), now.getTime() - 120 * DAY)) });
    }
    await ctx.q.query('UPDATE shared_pools SET total_sims = $2::int, activated_sims = $2::int, limit_kb = $2::int * base_bundle_kb WHERE id = $1', [p.id, p.members.length]);
  }
  await insertRows(ctx.q, 'pool_members', memberRows);
}

async function seedBundles(ctx: Ctx): Promise<void> {
  const { rng, now } = ctx;
  const rows: Row[] = [];
  const order = (s: SimSeed, type: string, plan: Plan, status: string, requestedAt: Date, extra: Row = {}): void => {
    let orderedAt = requestedAt;
    const prepaid = type.startsWith('BEFORE');
    const overage = type === 'BEFORE_TEST' ? 'stop' : rng.pick(OVERAGE);
    const ended = status === 'EXPIRED' || status === 'CANCELLED';
    // Started by now; one that has ended had started at least two days before.
    const activated = status === 'PENDING' ? null : new Date(Math.min(orderedAt.getTime() + rng.int(0, 3) * DAY, now.getTime() - (ended ? 2 * DAY : 0)));
    if (activated && activated < orderedAt) orderedAt = activated;
    // A bundle in use has not reached its end: one ordered long ago has renewed, term by term, past `now`.
    const term = (plan.reset === 'YEAR_366D' ? 366 : 365) * DAY;
    let expires = activated ? activated.getTime() + term : null;
    if (expires !== null && status === 'IN_USE' && expires <= now.getTime()) expires += Math.ceil((now.getTime() - expires + 1) / term) * term;
    // One that has ended did so in the past: an expired bundle at the end of its term (a test bundle's is 30 days),
    // a cancelled one when it was cancelled.
    const cancelledAt = Math.max(activated?.getTime() ?? 0, Math.min(now.getTime() - DAY, orderedAt.getTime() + 200 * DAY));
    let endedAt: number | null = null;
    if (status === 'EXPIRED') {
      endedAt = Math.min(activated!.getTime() + (plan === TEST_PLAN ? 30 * DAY : term), now.getTime() - DAY);
      expires = endedAt;
    } else if (status === 'CANCELLED') endedAt = cancelledAt;
    rows.push({
      org_id: s.org, id: rng.id(), sim_id: s.id, iccid: s.iccid, type, payment_mode: prepaid ? 'prepaid' : 'postpaid',
      name: plan.name, sku: plan.sku, service_type: rng.chance(0.2) ? 'data_sms' : 'data', ordered_at: orderedAt, activated_at: activated,
      expected_expire_at: expires === null ? null : new Date(expires),
      expired_at: endedAt === null ? null : new Date(endedAt),
      sales_order_id: `SO-${orderedAt.getUTCFullYear()}-${rng.digits(6)}`, quota_kb: plan.quotaKb, reset_cycle: plan.reset,
      overage_policy: overage,
      throttle_kbps: overage === 'billing_speed_decrease' || overage === 'billing_throttle_after_threshold' ? rng.pick([128, 256]) : null,
      overage_threshold_kb: overage === 'billing_throttle_after_threshold' || overage === 'billing_stop_after_allowance' ? plan.quotaKb * 2 : null,
      out_of_coverage: rng.weighted([['not_applicable', 60], ['billing', 25], ['shut_down', 15]]),
      coverage_countries: rng.subset(COUNTRIES, 3, 8).sort(), status, price: plan.price,
      currency: s.org === 'org-other' ? 'GBP' : 'EUR', created_at: orderedAt, pool_id: null, ...extra,
    });
  };
  ctx.sims.forEach((s, idx) => {
    const fixed = s.org === 'org-demo' ? DEMO_FIXED[idx] : undefined;
    const plan = s.plan;
    const base = s.activatedAt ?? new Date(now.getTime() - rng.int(30, 120) * DAY);
    switch (s.status) {
      case 'inactive':
        if (rng.chance(0.5)) order(s, 'BEFORE_BASIC', plan, 'PENDING', base);
        break;
      case 'pre_activated':
        if (fixed?.bundle === 'none') {
          order(s, 'BEFORE_TEST', TEST_PLAN, 'EXPIRED', new Date(now.getTime() - 200 * DAY));
          break;
        }
        order(s, 'BEFORE_TEST', TEST_PLAN, s.sub === 'test' ? 'IN_USE' : 'PENDING', base);
        order(s, 'BEFORE_BASIC', plan, 'PENDING', base);
        break;
      case 'active':
      case 'paused': {
        order(s, 'BEFORE_TEST', TEST_PLAN, 'EXPIRED', new Date(s.activatedAt!.getTime() - 20 * DAY));
        if (s.poolId) {
          order(s, rng.chance(0.5) ? 'BEFORE_SHARE' : 'AFTER_SHARE', POOL_PLAN, 'IN_USE', s.activatedAt!, { pool_id: s.poolId });
        } else {
          order(s, rng.chance(0.6) ? 'BEFORE_BASIC' : 'AFTER_BUNDLE', plan, 'IN_USE', s.activatedAt!);
          // Top-ups are monthly: only a monthly plan takes them, so that a SIM's bundles in use share one cycle.
          if (rng.chance(0.15) && plan.reset === SUPPLEMENT_PLAN.reset) order(s, 'BEFORE_SUPPLEMENT', SUPPLEMENT_PLAN, rng.pick(['IN_USE', 'EXPIRED']), new Date(now.getTime() - rng.int(1, 60) * DAY));
          if (rng.chance(0.1) && plan.reset === SUPPLEMENT_PLAN.reset) order(s, 'AFTER_FLOW', SUPPLEMENT_PLAN, 'IN_USE', new Date(now.getTime() - rng.int(1, 30) * DAY));
        }
        break;
      }
      case 'expired':
        order(s, 'BEFORE_BASIC', plan, 'EXPIRED', s.activatedAt!);
        break;
      case 'terminated':
        order(s, 'AFTER_BUNDLE', plan, rng.chance(0.5) ? 'CANCELLED' : 'EXPIRED', s.activatedAt!);
        break;
    }
  });
  await insertRows(ctx.q, 'bundle_orders', rows);
}

async function seedSimEvents(ctx: Ctx): Promise<void> {
  const { rng, now } = ctx;
  const rows: Row[] = [];
  const ev = (s: SimSeed, from: SimStatus | null, to: SimStatus, at: Date, source = 'system', account: string | null = null): void => {
    rows.push({ org_id: s.org, sim_id: s.id, iccid: s.iccid, type: 'status_change', from_status: from, to_status: to, at, source, account_id: account, detail: {} });
  };
  for (const s of ctx.sims) {
    if (s.status === 'inactive') continue;
    const base = s.activatedAt ?? new Date(now.getTime() - rng.int(10, 60) * DAY);
    ev(s, 'inactive', 'pre_activated', new Date(base.getTime() - rng.int(5, 30) * DAY));
    if (s.status === 'pre_activated') continue;
    ev(s, 'pre_activated', 'active', base, rng.chance(0.5) ? 'console' : 'network', null);
    const later = new Date(Math.min(now.getTime() - HOUR, base.getTime() + rng.int(30, 200) * DAY));
    if (s.status === 'paused') ev(s, 'active', 'paused', later, 'console', s.org === 'org-other' ? 'acc-other-admin' : 'acc-operator');
    if (s.status === 'expired') ev(s, 'active', 'expired', later);
    if (s.status === 'terminated') {
      ev(s, 'active', 'expired', later);
      ev(s, 'expired', 'terminated', new Date(Math.min(now.getTime() - MINUTE, later.getTime() + 30 * DAY)));
    }
    if (s.status === 'active' && rng.chance(0.1)) {
      rows.push({ org_id: s.org, sim_id: s.id, iccid: s.iccid, type: 'imei_change', at: new Date(now.getTime() - rng.int(1, 20) * DAY), source: 'network', detail: { from: makeImei(rng.pick(TACS), rng.int(0, 999_999)) } });
    }
  }
  await insertRows(ctx.q, 'sim_events', rows);
}

async function seedCdrs(ctx: Ctx): Promise<void> {
  const { rng, now, size } = ctx;
  const days = size === 'small' ? 5 : 30;
  let live = ctx.sims.filter((s) => s.status === 'active' && s.sub !== 'active_ready');
  if (size === 'small') {
    // A few hundred CDRs: twenty SIMs of org-demo and the first of each other organisation.
    const others = live.filter((s) => s.org !== 'org-demo');
    live = [...live.filter((s) => s.org === 'org-demo').slice(0, 20), ...others.filter((s, i) => others.findIndex((x) => x.org === s.org) === i)];
  }
  const start = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()) - (days - 1) * DAY);
  for (let m = monthStart(start); m.getTime() <= now.getTime(); m = monthStart(m, 1)) {
    await ctx.q.query('SELECT cdr_ensure_partition($1::date)', [dateOnly(m)]);
  }
  const rows: Row[] = [];
  for (const s of live) {
    const home = s.network!;
    // The draw that once chose a plan here is kept, so that the rest of the seed keeps its values.
    if (!s.poolId) rng.pick(PLANS);
    const plan = s.plan.sku;
    const rat = rng.weighted(RATS);
    for (let d = 0; d < days; d++) {
      const dayStart = start.getTime() + d * DAY;
      const sessions = rng.weighted([[0, 15], [1, 50], [2, 25], [3, 10]]);
      for (let k = 0; k < sessions; k++) {
        const at = new Date(dayStart + rng.int(0, 24 * 60 - 1) * MINUTE + rng.int(0, 59) * 1000);
        if (at.getTime() > now.getTime()) continue;
        // A CDR is written when its session ends: a session started shortly before `now` ended at `now` at the latest.
        const duration = Math.min(rng.int(60, 6 * 3600), Math.floor((now.getTime() - at.getTime()) / 1000));
        const end = new Date(at.getTime() + duration * 1000);
        const network = rng.chance(0.08) ? rng.pick(ROAMING) : home;
        const kb = Math.max(1, Math.round((s.dailyKb / Math.max(1, sessions)) * (0.5 + rng.next())));
        const up = Math.max(1, Math.round(kb * (0.2 + rng.next() * 0.3)));
        for (const [direction, volume] of [['uplink', up], ['downlink', kb - up]] as const) {
          rows.push({
            org_id: s.org, sim_id: s.id, iccid: s.iccid, imsi: s.imsi, network, mcc_mnc: mccMnc(network), country: networkCountry(network),
            plan_code: plan, direction, rat, volume_kb: Math.max(0, volume), start_at: at, end_at: end, duration_s: duration,
          });
        }
      }
    }
  }
  await insertRows(ctx.q, 'cdrs', rows);
}

async function seedPoolEvents(ctx: Ctx): Promise<void> {
  const { rng, now } = ctx;
  const rows: Row[] = [];
  for (const p of ctx.pools) {
    const created = new Date(now.getTime() - 120 * DAY);
    const ev = (type: string, state: string, at: Date, extra: Row = {}): void => {
      rows.push({ org_id: p.org, pool_id: p.id, type, state, at, sim_count: null, limit_kb: null, detail: {}, account_id: null, effective_at: null, ...extra });
    };
    const admin = p.org === 'org-other' ? 'acc-other-admin' : 'acc-admin';
    ev('setup', 'effected', created, { account_id: admin, detail: { bundle: POOL_PLAN.sku } });
    ev('new_pool_launch', 'effected', new Date(created.getTime() + DAY), { effective_at: monthStart(created, 1) });
    ev('sim_enrolment', 'effected', new Date(created.getTime() + 2 * DAY), { sim_count: p.members.length });
    ev('manage_sims_add', 'modified', new Date(now.getTime() - 20 * DAY), { sim_count: 1, account_id: admin });
    ev('sim_exit', 'effected', new Date(now.getTime() - 15 * DAY), { sim_count: 1 });
    ev('limit_increase', 'effected', monthStart(now), { limit_kb: p.members.length * POOL_PLAN.quotaKb });
    ev('limit_decrease', 'created', monthStart(now, -1), { limit_kb: Math.max(0, p.members.length - 1) * POOL_PLAN.quotaKb });
    ev('overage', 'effected', new Date(now.getTime() - 40 * DAY), { detail: { usagePercent: 102 } });
    ev('overage_recovery', 'effected', monthStart(now, -1));
    const scans = ctx.size === 'small' ? 2 : 14;
    for (let d = scans; d >= 1; d--) ev('scheduled_scan', 'effected', new Date(now.getTime() - d * DAY + rng.int(0, 60) * MINUTE), { sim_count: p.members.length });
  }
  await insertRows(ctx.q, 'pool_events', rows);
}

async function seedAutoflow(ctx: Ctx): Promise<void> {
  const { rng, now, size } = ctx;
  interface RuleTemplate {
    name: string;
    trigger: string;
    condition: Record<string, unknown>;
    scope: Record<string, unknown>;
    actions: Array<{ type: string; emails?: string[]; speedKbps?: number }>;
    status: 'enabled' | 'disabled' | 'deleted';
  }
  // Documents in the shape of common/autoflow-rule.ts, so the builder opens every seeded rule as it is.
  const templates: RuleTemplate[] = [
    { name: DEMO_RULE_NAME, trigger: 'data_usage', condition: { threshold: 50, unit: 'MB', window: 'cycle' }, scope: { type: 'all' }, actions: [{ type: 'email', emails: ['ops@demo.example.com'] }], status: 'enabled' },
    { name: 'Suspend at 90% of bundle', trigger: 'data_usage_percent', condition: { percent: 90 }, scope: { type: 'tags', tags: ['pilot'] }, actions: [{ type: 'suspend' }, { type: 'webhook' }], status: 'enabled' },
    { name: 'Paused back to active', trigger: 'status_change', condition: { from: 'paused', to: 'active' }, scope: { type: 'all' }, actions: [{ type: 'webhook' }], status: 'disabled' },
    { name: 'Expiry in 30 days', trigger: 'expiry_reminder', condition: { days: 30 }, scope: { type: 'all' }, actions: [{ type: 'email', emails: ['billing@demo.example.com'] }], status: 'enabled' },
    { name: 'IMEI swap guard', trigger: 'imei_change', condition: { mode: 'any' }, scope: { type: 'product_type', productType: 'automotive' }, actions: [{ type: 'suspend' }], status: 'enabled' },
    { name: 'MO SMS burst', trigger: 'sms_mo', condition: { count: 20, window: 'rolling_24h' }, scope: { type: 'all' }, actions: [{ type: 'email', emails: ['ops@demo.example.com'] }], status: 'disabled' },
    { name: 'Pool SIMs at 80 %', trigger: 'data_usage_percent', condition: { percent: 80 }, scope: { type: 'pool', poolId: DEMO_POOL_ID }, actions: [{ type: 'throttle', speedKbps: 256 }, { type: 'email', emails: ['ops@demo.example.com'] }], status: 'enabled' },
    { name: 'Old threshold rule', trigger: 'data_usage', condition: { threshold: 10, unit: 'MB', window: 'cycle' }, scope: { type: 'all' }, actions: [{ type: 'email', emails: ['ops@demo.example.com'] }], status: 'deleted' },
  ];
  const perOrg: Record<string, typeof templates> = {
    'org-demo': size === 'small' ? [templates[0], templates[1], templates[2], templates[7]] : templates,
    'org-demo-north': size === 'small' ? [] : [templates[0], templates[3]],
    'org-other': [{ ...templates[0], name: 'Other data alert', actions: [{ type: 'email', emails: ['ops@other.example.com'] }] }],
  };
  const rules: Row[] = [];
  const runs: Row[] = [];
  for (const [org, list] of Object.entries(perOrg)) {
    const orgSims = ctx.sims.filter((s) => s.org === org && s.status === 'active');
    list.forEach((t, i) => {
      const id = fixedId(`rule:${org}:${i}`);
      const created = new Date(now.getTime() - (60 - i * 5) * DAY);
      const runCount = t.status === 'enabled' ? (size === 'small' ? 2 : rng.int(10, 40)) : 0;
      let last: Date | null = null;
      for (let r = 0; r < runCount && orgSims.length > 0; r++) {
        const s = rng.pick(orgSims);
        const at = new Date(now.getTime() - rng.int(10, 29 * 24 * 60) * MINUTE);
        if (!last || at > last) last = at;
        runs.push({ org_id: org, rule_id: id, sim_id: s.id, iccid: s.iccid, trigger: t.trigger, at, status: rng.chance(0.9) ? 'success' : 'failed', detail: { actions: t.actions.map((a) => a.type), condition: t.condition } });
      }
      rules.push({
        org_id: org, id, name: t.name, trigger: t.trigger, condition: t.condition, scope: t.scope, actions: JSON.stringify(t.actions),
        status: t.status, activation_at: created, expiry_at: i % 3 === 1 ? new Date(now.getTime() + 180 * DAY) : null,
        created_by: org === 'org-other' ? 'acc-other-admin' : i % 2 ? 'acc-superadmin' : 'acc-admin', origin: i === 4 ? 'template' : 'console',
        last_run_at: last, run_count: runCount, deleted_at: t.status === 'deleted' ? new Date(now.getTime() - 3 * DAY) : null,
        created_at: created, updated_at: created,
      });
    });
  }
  await insertRows(ctx.q, 'autoflow_rules', rules);
  await insertRows(ctx.q, 'autoflow_runs', runs);
}

/**
 * The seeded rules have "run" for weeks (their run history says so): what their scheduled triggers meet at seed time
 * fired back then. Armed, not fired, so the first evaluation after the seed fires only crossings that happen after it
 * (without this a fresh start fired hundreds of runs, mails and suspensions). Last, over the finished rollups.
 */
async function armAutoflow(ctx: Ctx): Promise<void> {
  await armScheduled(ctx.q, ctx.now);
}

async function seedSms(ctx: Ctx): Promise<void> {
  const { rng, now, size } = ctx;
  const mtTexts = ['STATUS?', 'REBOOT', 'APN=iot.demo', 'GPS ON', 'PING', 'CONFIG INTERVAL=15MIN', 'FW CHECK', 'LOCATE'];
  const moTexts = ['OK', 'BATT 87%', 'TEMP 4.2C', 'GPS 52.5200,13.4050', 'ALARM DOOR OPEN', 'FW 2.4.1', 'PONG'];
  const schedules: Row[] = [];
  const scheduleRuns: Row[] = [];
  const records: Row[] = [];
  const activeOf = (org: string): SimSeed[] => ctx.sims.filter((s) => s.org === org && s.status === 'active');

  const defs = [
    { name: 'Daily heartbeat ping', content: 'PING', type: 'text', mode: 'repeated', weekdays: [1, 2, 3, 4, 5], never: true, status: 'enabled', executing: false },
    { name: 'Firmware wake-up', content: 'FW CHECK', type: 'text', mode: 'once', weekdays: [], never: false, status: 'enabled', executing: true },
    { name: 'Weekend config push', content: '0A1B2C3D4E5F', type: 'binary', mode: 'repeated', weekdays: [6, 7], never: false, status: 'disabled', executing: false },
    { name: 'Monthly APN refresh', content: 'APN=iot.demo', type: 'text', mode: 'repeated', weekdays: [1], never: false, status: 'enabled', executing: false },
    { name: 'Cold chain temperature poll', content: 'TEMP?', type: 'text', mode: 'repeated', weekdays: [1, 3, 5], never: true, status: 'enabled', executing: false },
    { name: 'One-off reboot of pilot units', content: 'REBOOT', type: 'text', mode: 'once', weekdays: [], never: false, status: 'disabled', executing: false },
  ];
  const perOrg: Record<string, typeof defs> = {
    'org-demo': size === 'small' ? defs.slice(0, 3) : defs,
    'org-other': [{ ...defs[0], name: 'Other heartbeat' }],
  };
  for (const [org, list] of Object.entries(perOrg)) {
    const targets = activeOf(org);
    const sender = org === 'org-other' ? 'acc-other-admin' : 'acc-operator';
    list.forEach((d, i) => {
      const id = fixedId(`schedule:${org}:${i}`);
      // Early enough for eight weekly runs before now.
      const created = new Date(now.getTime() - (70 - i) * DAY);
      const chosen = rng.subset(targets, 1, Math.min(5, targets.length));
      const startAt = d.mode === 'once' ? (d.executing ? new Date(now.getTime() - 5 * MINUTE) : new Date(now.getTime() + 3 * DAY)) : created;
      const runCount = d.mode === 'repeated' && d.status === 'enabled' ? (size === 'small' ? 2 : 8) : d.executing ? 1 : 0;
      // The history and the next run follow the schedule (09:00 UTC on its weekdays; a once-only one at its start).
      const rec: Recurrence = { mode: d.mode as Recurrence['mode'], weekdays: d.weekdays, sendTime: d.mode === 'once' ? startAt.toISOString().slice(11, 16) : '09:00', timezone: 'UTC', startAt, endAt: d.mode === 'repeated' && !d.never ? new Date(now.getTime() + 60 * DAY) : null };
      const past = d.executing ? [startAt] : previousOccurrences(rec, now, runCount);
      let lastRun: Date | null = null;
      for (let r = runCount; r >= 1; r--) {
        const at = past[past.length - r];
        lastRun = at;
        const running = d.executing;
        // A run under way holds its targets and has written no record yet: the scheduler sends them (019_sms_schedule_runs.sql).
        scheduleRuns.push({ org_id: org, schedule_id: id, at, occurrence_at: at, status: running ? 'running' : 'done', targets: chosen.length, sent: running ? 0 : chosen.length, failed: 0, detail: {}, iccids: running ? chosen.map((s) => s.iccid) : [], ended_at: running ? null : at });
        for (const s of chosen) {
          (running ? [] : records).push({
            org_id: org, id: rng.id(), sim_id: s.id, iccid: s.iccid, msisdn: s.msisdn, direction: 'MT', content: d.content, sms_type: d.type,
            status: running ? 'pending' : 'delivered', schedule_id: id, account_id: null, created_at: at,
            sent_at: running ? null : at, delivered_at: running ? null : new Date(at.getTime() + 5000), reply_to_id: null,
          });
        }
      }
      schedules.push({
        org_id: org, id, name: d.name, content: d.content, sms_type: d.type, mode: d.mode, weekdays: d.weekdays, send_time: rec.sendTime, timezone: 'UTC',
        start_at: startAt, end_at: rec.endAt, never_ends: d.never,
        target_iccids: chosen.map((s) => s.iccid), email_notify: i % 2 === 0, notify_emails: i % 2 === 0 ? ['ops@demo.example.com'] : [],
        status: d.status, executing: d.executing, next_run_at: d.status === 'enabled' && !d.executing ? nextOccurrence(rec, now) : null,
        last_run_at: lastRun, created_by: org === 'org-other' ? 'acc-other-admin' : 'acc-admin', created_at: created, updated_at: created,
      });
    });
    // Instant SMS from the console, device messages and replies within 24 hours.
    const instant = org === 'org-other' ? 3 : size === 'small' ? 12 : 600;
    for (let k = 0; k < instant && targets.length > 0; k++) {
      const s = rng.pick(targets);
      const at = new Date(now.getTime() - rng.int(1, (size === 'small' ? 3 : 30) * 24 * 60) * MINUTE);
      if (rng.chance(0.45)) {
        const mo = { org_id: org, id: rng.id(), sim_id: s.id, iccid: s.iccid, msisdn: s.msisdn, direction: 'MO', content: rng.pick(moTexts), sms_type: 'text', status: 'received', schedule_id: null, account_id: null, created_at: at, sent_at: at, delivered_at: at, reply_to_id: null };
        records.push(mo);
        if (rng.chance(0.4)) {
          const replyAt = new Date(Math.min(now.getTime(), at.getTime() + rng.int(1, 600) * MINUTE));
          records.push({ ...mo, id: rng.id(), direction: 'MT', content: 'ACK', status: 'delivered', account_id: sender, created_at: replyAt, sent_at: replyAt, delivered_at: new Date(replyAt.getTime() + 4000), reply_to_id: mo.id });
        }
      } else {
        // Not pending: an SMS of hours or days ago is no longer on its way (the maintenance gives such ones up).
        const status = rng.weighted([['delivered', 80], ['sent', 13], ['failed', 7]]);
        records.push({
          org_id: org, id: rng.id(), sim_id: s.id, iccid: s.iccid, msisdn: s.msisdn, direction: 'MT', content: rng.pick(mtTexts), sms_type: 'text', status,
          schedule_id: null, account_id: sender, created_at: at, sent_at: status === 'pending' ? null : at,
          delivered_at: status === 'delivered' ? new Date(at.getTime() + 3000) : null, reply_to_id: null, error: status === 'failed' ? 'Absent subscriber' : null,
        });
      }
    }
  }
  await insertRows(ctx.q, 'sms_schedules', schedules);
  await insertRows(ctx.q, 'sms_schedule_runs', scheduleRuns);
  // Replies point at earlier rows, so MO rows go first.
  await insertRows(ctx.q, 'sms_records', records.filter((r) => r.reply_to_id === null));
  await insertRows(ctx.q, 'sms_records', records.filter((r) => r.reply_to_id !== null));
  // Each message of a finished run points at its run, so its history opens on its records.
  await ctx.q.query(`UPDATE sms_records r SET run_id = u.id FROM sms_schedule_runs u WHERE r.schedule_id = u.schedule_id AND r.created_at = u.at AND r.direction = 'MT'`);
}

/** Rollups from the rows just written, so that they match the CDRs and SMS exactly. */
async function seedRollups(ctx: Ctx): Promise<void> {
  const { q } = ctx;
  await q.query(`
    INSERT INTO usage_daily (org_id, sim_id, day, iccid, uplink_kb, downlink_kb, volume_kb, cdr_count)
    SELECT org_id, sim_id, (start_at AT TIME ZONE 'UTC')::date, min(iccid),
           coalesce(sum(volume_kb) FILTER (WHERE direction = 'uplink'), 0), coalesce(sum(volume_kb) FILTER (WHERE direction = 'downlink'), 0),
           sum(volume_kb), count(*)
    FROM cdrs GROUP BY 1, 2, 3`);
  await q.query(`
    INSERT INTO usage_daily (org_id, sim_id, day, iccid, sms_mo, sms_mt)
    SELECT org_id, sim_id, (created_at AT TIME ZONE 'UTC')::date, min(iccid), count(*) FILTER (WHERE direction = 'MO'), count(*) FILTER (WHERE direction = 'MT')
    FROM sms_records WHERE sim_id IS NOT NULL AND status <> 'pending' GROUP BY 1, 2, 3
    ON CONFLICT (org_id, sim_id, day) DO UPDATE SET sms_mo = EXCLUDED.sms_mo, sms_mt = EXCLUDED.sms_mt`);
  await q.query(`
    INSERT INTO usage_hourly (org_id, hour, uplink_kb, downlink_kb, volume_kb, cdr_count, active_sims)
    SELECT org_id, date_trunc('hour', start_at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC',
           coalesce(sum(volume_kb) FILTER (WHERE direction = 'uplink'), 0), coalesce(sum(volume_kb) FILTER (WHERE direction = 'downlink'), 0),
           sum(volume_kb), count(*), count(DISTINCT sim_id)
    FROM cdrs GROUP BY 1, 2`);
  await q.query(`
    INSERT INTO usage_hourly (org_id, hour, sms_mo, sms_mt)
    SELECT org_id, date_trunc('hour', created_at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC', count(*) FILTER (WHERE direction = 'MO'), count(*) FILTER (WHERE direction = 'MT')
    FROM sms_records WHERE status <> 'pending' GROUP BY 1, 2
    ON CONFLICT (org_id, hour) DO UPDATE SET sms_mo = EXCLUDED.sms_mo, sms_mt = EXCLUDED.sms_mt`);
  // The dashboard's per-SIM rollups (007_dashboard.sql).
  await q.query('SELECT rebuild_sim_rollups(NULL)');
  await seedCycles(ctx);
  await q.query(`
    UPDATE sims s SET last_session_at = l.start_at, last_session_kb = l.kb
    FROM (SELECT DISTINCT ON (sim_id) sim_id, start_at, kb FROM (SELECT sim_id, start_at, sum(volume_kb) AS kb FROM cdrs GROUP BY sim_id, start_at) x
          ORDER BY sim_id, start_at DESC) l
    WHERE s.id = l.sim_id`);
  // The pools' cycle usage, daily rollups and enrolment flags from the SIMs' rollups (035_pool_engine.sql).
  await q.query('SELECT rebuild_pool_rollups(NULL)');
}

/**
 * Each SIM's cycle as every tab tells it (issue 14): the bundles in use (not the test one) share the base bundle's reset
 * cycle; the SIM's cycle starts when that cycle did, its usage is what its CDRs carried since, and its limit is the sum
 * of those bundles' quotas. The usage is drawn from the bundles in order (the base one first, each up to its quota, the
 * last one takes the rest), and a bundle whose overage policy could not have let the SIM use that much bills the
 * overage instead: usage never exceeds what the policy allows (server/domain/bundle-cycle.ts).
 */
async function seedCycles(ctx: Ctx): Promise<void> {
  const { q, now } = ctx;
  const inUse = (
    await q.query<{ id: string; sim_id: string; quota_kb: string; reset_cycle: ResetCycle; activated_at: Date | string; overage_policy: OveragePolicy; throttle_kbps: number | null; overage_threshold_kb: string | null }>(
      `SELECT b.id, b.sim_id, b.quota_kb, b.reset_cycle, b.activated_at, b.overage_policy, b.throttle_kbps, b.overage_threshold_kb
         FROM bundle_orders b JOIN sims s ON s.id = b.sim_id
        WHERE b.status = 'IN_USE' AND b.type <> 'BEFORE_TEST' AND s.status IN ('active', 'paused')
        ORDER BY b.sim_id, b.activated_at, b.id`,
    )
  ).rows;
  const bySim = new Map<string, typeof inUse>();
  for (const b of inUse) bySim.set(b.sim_id, [...(bySim.get(b.sim_id) ?? []), b]);
  const sims = [...bySim.keys()];
  const starts = sims.map((id) => {
    const base = bySim.get(id)![0];
    return cycleStart(base.reset_cycle, new Date(base.activated_at), now);
  });
  const usage = new Map(
    (
      await q.query<{ sim_id: string; kb: string }>(
        `SELECT c.sim_id, sum(c.volume_kb) AS kb FROM cdrs c JOIN unnest($1::text[], $2::timestamptz[]) AS x(sim_id, since) ON c.sim_id = x.sim_id AND c.start_at >= x.since
          GROUP BY c.sim_id`,
        [pgArray(sims), pgArray(starts.map((d) => d.toISOString()))],
      )
    ).rows.map((r) => [r.sim_id, Number(r.kb)]),
  );
  const bundleRows: Row[] = [];
  const simRows: Row[] = [];
  sims.forEach((simId, i) => {
    const bundles = bySim.get(simId)!;
    const total = usage.get(simId) ?? 0;
    let left = total;
    let last: Row = {};
    bundles.forEach((b, k) => {
      const quota = Number(b.quota_kb);
      const used = k === bundles.length - 1 ? left : Math.min(left, quota);
      left -= used;
      const allowed = allowanceKb(
        { quotaKb: quota, overagePolicy: b.overage_policy, throttleKbps: b.throttle_kbps, overageThresholdKb: b.overage_threshold_kb === null ? null : Number(b.overage_threshold_kb) },
        starts[i],
        now,
      );
      const fits = allowed === null || used <= allowed;
      // One that could not have carried that much slows down past its quota instead (256 kbps) when that fits, else bills it.
      const slowed = !fits && used <= (allowanceKb({ quotaKb: quota, overagePolicy: 'billing_speed_decrease', throttleKbps: 256, overageThresholdKb: null }, starts[i], now) ?? 0);
      last = fits
        ? { id: b.id, used_kb: used, overage_policy: b.overage_policy, throttle_kbps: b.throttle_kbps, overage_threshold_kb: b.overage_threshold_kb }
        : slowed
          ? { id: b.id, used_kb: used, overage_policy: 'billing_speed_decrease', throttle_kbps: 256, overage_threshold_kb: null }
          : { id: b.id, used_kb: used, overage_policy: 'billing', throttle_kbps: null, overage_threshold_kb: null };
      bundleRows.push(last);
    });
    // The last bundle takes the overage: its policy, with its threshold counted from the cycle's start, says what the
    // network does with the SIM's data now (the bundle engine's rule, server/network/bundle-engine.ts evaluateOverage).
    const limit = bundles.reduce((sum, b) => sum + Number(b.quota_kb), 0);
    const lastQuota = Number(bundles[bundles.length - 1].quota_kb);
    const { control } = overageControl(
      {
        limitKb: limit, overagePolicy: last.overage_policy as OveragePolicy, throttleKbps: (last.throttle_kbps as number | null) ?? null,
        thresholdKb: last.overage_threshold_kb === null || last.overage_threshold_kb === undefined ? null : limit - lastQuota + Number(last.overage_threshold_kb),
      },
      total,
    );
    const base = bundles[0];
    simRows.push({
      id: simId, cycle_start: dateOnly(starts[i]), cycle_usage_kb: total, cycle_limit_kb: limit, cycle_reset: base.reset_cycle, cycle_anchor: new Date(base.activated_at).toISOString(),
      cycle_started_at: starts[i].toISOString(), cycle_ends_at: cycleEnd(base.reset_cycle, new Date(base.activated_at), now).toISOString(), overage_control: control,
    });
  });
  // An array literal whose nulls are NULL (pgArray quotes every string).
  const column = (rows: Row[], key: string) => `{${rows.map((r) => (r[key] === null || r[key] === undefined ? 'NULL' : `"${String(r[key])}"`)).join(',')}}`;
  await q.query(
    `UPDATE bundle_orders b SET used_kb = x.used_kb, overage_policy = x.overage_policy, throttle_kbps = x.throttle_kbps, overage_threshold_kb = x.overage_threshold_kb
       FROM unnest($1::text[], $2::bigint[], $3::text[], $4::int[], $5::bigint[]) AS x(id, used_kb, overage_policy, throttle_kbps, overage_threshold_kb)
      WHERE b.id = x.id`,
    [column(bundleRows, 'id'), column(bundleRows, 'used_kb'), column(bundleRows, 'overage_policy'), column(bundleRows, 'throttle_kbps'), column(bundleRows, 'overage_threshold_kb')],
  );
  await q.query(
    `UPDATE sims s SET cycle_start = x.cycle_start, cycle_usage_kb = x.cycle_usage_kb, cycle_limit_kb = x.cycle_limit_kb, cycle_reset = x.cycle_reset, cycle_anchor = x.cycle_anchor,
            cycle_started_at = x.cycle_started_at, cycle_ends_at = x.cycle_ends_at, overage_control = x.overage_control, flow_control_policy = x.overage_control
       FROM unnest($1::text[], $2::date[], $3::bigint[], $4::bigint[], $5::text[], $6::timestamptz[], $7::timestamptz[], $8::timestamptz[], $9::text[])
            AS x(id, cycle_start, cycle_usage_kb, cycle_limit_kb, cycle_reset, cycle_anchor, cycle_started_at, cycle_ends_at, overage_control)
      WHERE s.id = x.id`,
    [
      column(simRows, 'id'), column(simRows, 'cycle_start'), column(simRows, 'cycle_usage_kb'), column(simRows, 'cycle_limit_kb'), column(simRows, 'cycle_reset'),
      column(simRows, 'cycle_anchor'), column(simRows, 'cycle_started_at'), column(simRows, 'cycle_ends_at'), column(simRows, 'overage_control'),
    ],
  );
  // When the allowance was reached: the end of the CDR that took the cycle's usage to its limit.
  await q.query(
    `UPDATE sims s SET overage_at = x.at, flow_control_at = CASE WHEN s.flow_control_policy <> 'none' THEN x.at END
       FROM (SELECT DISTINCT ON (r.sim_id) r.sim_id, r.end_at AS at
               FROM (SELECT c.sim_id, c.end_at, c.start_at, sum(c.volume_kb) OVER (PARTITION BY c.sim_id ORDER BY c.start_at, c.id) AS run, s.cycle_limit_kb
                       FROM cdrs c JOIN sims s ON s.org_id = c.org_id AND s.id = c.sim_id
                      WHERE s.cycle_limit_kb IS NOT NULL AND s.cycle_usage_kb >= s.cycle_limit_kb AND c.start_at >= s.cycle_started_at) r
              WHERE r.run >= r.cycle_limit_kb ORDER BY r.sim_id, r.run) x
      WHERE s.id = x.sim_id`,
  );
}

/** A Standard Webhooks signing secret made of the seed's random characters (whsec_ + base64). */
const whsec = (raw: string) => `whsec_${Buffer.from(raw).toString('base64')}`;

async function seedDeveloper(ctx: Ctx): Promise<void> {
  const { rng, now, size } = ctx;
  const keys: Row[] = [
    { org_id: 'org-demo', id: DEMO_API_KEY_ID, account_id: 'acc-admin', name: 'Fleet backend', key_id: rng.id(24), public_key: fakePublicKey(rng), created_at: new Date(now.getTime() - 90 * DAY), last_used_at: new Date(now.getTime() - HOUR) },
    { org_id: 'org-demo', id: fixedId('apikey:org-demo:1'), account_id: 'acc-superadmin', name: null, key_id: rng.id(24), public_key: fakePublicKey(rng), created_at: new Date(now.getTime() - 30 * DAY), last_used_at: null },
    { org_id: 'org-other', id: fixedId('apikey:org-other:0'), account_id: 'acc-other-admin', name: 'ERP connector', key_id: rng.id(24), public_key: fakePublicKey(rng), created_at: new Date(now.getTime() - 60 * DAY), last_used_at: null },
  ];
  await insertRows(ctx.q, 'api_keys', keys);
  const notif: Row[] = [
    // The demo's receiver does not exist (example.com): its webhook is kept off, or every event would queue deliveries
    // that fail and, after 3 days, mail the demo admin that it was disabled. Switching it on shows exactly that.
    { org_id: 'org-demo', id: DEMO_NOTIFICATION_KEY_ID, account_id: 'acc-admin', key_id: rng.id(24), secret: whsec(rng.id(40)), webhook_url: 'https://hooks.demo.example.com/iot/events', status: 'disabled', created_at: new Date(now.getTime() - 90 * DAY) },
    { org_id: 'org-other', id: fixedId('notifkey:org-other:0'), account_id: 'acc-other-admin', key_id: rng.id(24), secret: whsec(rng.id(40)), webhook_url: null, status: 'disabled', created_at: new Date(now.getTime() - 60 * DAY) },
  ];
  await insertRows(ctx.q, 'notification_keys', notif);

  const paths = [['POST', '/api/public/v1/sims/list'], ['GET', '/api/public/v1/sims/{iccid}'], ['POST', '/api/public/v1/sims/suspend'], ['POST', '/api/public/v1/sms/send'], ['GET', '/api/public/v1/usage']] as const;
  const logs: Row[] = [];
  const notifLogs: Row[] = [];
  // Types and subtypes of the event log (server/developer/notification-routes.ts EVENT_CATALOGUE).
  const events = [['sim', 'status_change'], ['sim', 'connection'], ['task', 'finished'], ['sms', 'received'], ['sms', 'delivered']] as const;
  const n = size === 'small' ? 10 : 400;
  for (let i = 0; i < n; i++) {
    const org = i % 10 === 9 ? 'org-other' : 'org-demo';
    const [method, path] = rng.pick(paths);
    const code = rng.weighted([[200, 88], [400, 6], [401, 2], [403, 2], [500, 2]]);
    const at = new Date(now.getTime() - rng.int(1, 30 * 24 * 60) * MINUTE);
    logs.push({
      org_id: org, api_key_id: org === 'org-demo' ? DEMO_API_KEY_ID : fixedId('apikey:org-other:0'), ip: `203.0.113.${rng.int(1, 254)}`, trace_id: rng.id(32).toLowerCase(), at, http_code: code,
      method, path, headers: { 'content-type': 'application/json', 'user-agent': 'fleet-backend/2.3' }, body: method === 'POST' ? '{"pageSize":50}' : null,
      response: code === 200 ? '{"status":{"code":"CB-00-0000","success":true}}' : `{"status":{"success":false,"httpCode":${code}}}`, duration_ms: rng.int(8, 900),
    });
    if (org === 'org-demo') {
      const [eventType, subtype] = rng.pick(events);
      const http = rng.weighted([[200, 90], [500, 5], [504, 5]]);
      notifLogs.push({ org_id: org, notification_key_id: DEMO_NOTIFICATION_KEY_ID, url: 'https://hooks.demo.example.com/iot/events', event_type: eventType, subtype, payload: { type: eventType, subtype, timestamp: at.toISOString(), data: { iccid: rng.pick(ctx.sims.filter((s) => s.org === org)).iccid } }, sent_at: at, http_code: http, response: http === 200 ? 'OK' : 'Upstream error', attempt: http === 200 ? 1 : rng.int(1, 3) });
    }
  }
  await insertRows(ctx.q, 'api_logs', logs);
  await insertRows(ctx.q, 'notification_logs', notifLogs);
}

async function seedInvoices(ctx: Ctx): Promise<void> {
  const { rng, now, size } = ctx;
  const months: Record<string, number> = size === 'small' ? { 'org-demo': 2, 'org-other': 1 } : { 'org-demo': 6, 'org-demo-north': 3, 'org-demo-south': 3, 'org-other': 3 };
  const invoices: Row[] = [];
  const lines: Row[] = [];
  for (const [org, count] of Object.entries(months)) {
    const f = fleetOf(org);
    const billed = ctx.sims.filter((s) => s.org === org && s.activatedAt && s.status !== 'terminated');
    for (let k = 1; k <= count; k++) {
      const cycleStart = monthStart(now, -k);
      const cycleEnd = new Date(monthStart(now, -k + 1).getTime() - DAY);
      const billingDate = new Date(monthStart(now, -k + 1).getTime() + 2 * DAY);
      const due = new Date(`${dueDateOf(billingDate)}T00:00:00Z`);
      const cycle = cycleStart.toISOString().slice(0, 7);
      const id = fixedId(`invoice:${org}:${k}`);
      let cents = 0;
      let usage = 0;
      let overageKb = 0;
      let overageCents = 0;
      const inCycle = billed.filter((s) => s.activatedAt!.getTime() < cycleEnd.getTime());
      for (const s of inCycle) {
        const plan = s.plan;
        const used = Math.round(s.dailyKb * 30 * (0.6 + rng.next() * 0.8));
        const over = s.poolId ? 0 : Math.max(0, used - Math.round(perDayKb(plan) * 30));
        const overAmount = Math.round((over / 1024) * 2); // 0.02 per MB, in cents
        const lineCents = Math.round(plan.price * 100) + overAmount;
        cents += lineCents;
        usage += used;
        overageKb += over;
        overageCents += overAmount;
        lines.push({ org_id: org, invoice_id: id, sim_id: s.id, iccid: s.iccid, sku: plan.sku, bundle_quantity: 1, bundle_price: plan.price, usage_kb: used, overage_kb: over, overage_amount: overAmount / 100, amount: lineCents / 100 });
      }
      const taxCents = Math.round(cents * f.taxRate);
      const status = k === 1 ? 'published' : k === count && count > 2 ? 'obsolete' : 'paid';
      invoices.push({
        org_id: org, id, bill_id: `INV-${f.country}-${cycle.replace('-', '')}-${rng.digits(4)}`, status, type: 'post_payment',
        cycle_start: dateOnly(cycleStart), cycle_end: dateOnly(cycleEnd), billing_cycle: cycle, billing_date: dateOnly(billingDate), issued_at: billingDate,
        due_date: dateOnly(due), paid_at: status === 'paid' ? new Date(due.getTime() - 2 * DAY) : null, currency: f.currency,
        amount_excl_tax: cents / 100, tax_rate: f.taxRate, tax_amount: taxCents / 100, amount_incl_tax: (cents + taxCents) / 100, unit_price: null,
        settlement_customer: org === 'org-other' ? 'Other Customer Ltd' : 'Demo Logistics GmbH',
        bank_details: { bank: 'Demo Bank AG', iban: 'DE89370400440532013000', bic: 'COBADEFFXXX' }, credit_limit: 5000, sku: 'POSTPAID-STD', version: 1,
        bundle_quantity: inCycle.length, bundle_price: round2((cents - overageCents) / 100), overage_quantity_kb: overageKb, overage_price: overageCents / 100,
        pool_info: org === 'org-demo' ? { poolId: DEMO_POOL_ID, name: 'EU Fleet Pool' } : null, usage_kb: usage, sim_count: inCycle.length,
        created_at: billingDate, updated_at: billingDate,
      });
    }
  }
  if (size === 'demo') {
    // A prepaid top-up and this month's draft, so every type and status shows.
    const f = FLEETS[0];
    invoices.push({
      org_id: 'org-demo', id: fixedId('invoice:org-demo:predeposit'), bill_id: `PRE-DE-${rng.digits(6)}`, status: 'paid', type: 'predeposit',
      cycle_start: dateOnly(monthStart(now, -2)), cycle_end: dateOnly(monthStart(now, -2)), billing_cycle: monthStart(now, -2).toISOString().slice(0, 7),
      billing_date: dateOnly(monthStart(now, -2)), issued_at: monthStart(now, -2), due_date: dueDateOf(monthStart(now, -2)),
      paid_at: new Date(monthStart(now, -2).getTime() + 3 * DAY), currency: f.currency, amount_excl_tax: 1000, tax_rate: f.taxRate, tax_amount: 190, amount_incl_tax: 1190,
      settlement_customer: 'Demo Logistics GmbH', version: 1, created_at: monthStart(now, -2), updated_at: monthStart(now, -2),
    });
    invoices.push({
      org_id: 'org-demo', id: fixedId('invoice:org-demo:draft'), bill_id: `INV-DE-${monthStart(now).toISOString().slice(0, 7).replace('-', '')}-DRAFT`, status: 'draft', type: 'advance',
      cycle_start: dateOnly(monthStart(now)), cycle_end: dateOnly(new Date(monthStart(now, 1).getTime() - DAY)), billing_cycle: monthStart(now).toISOString().slice(0, 7),
      billing_date: dateOnly(now), issued_at: null, due_date: dueDateOf(now), paid_at: null,
      currency: f.currency, amount_excl_tax: 250, tax_rate: f.taxRate, tax_amount: 47.5, amount_incl_tax: 297.5, settlement_customer: 'Demo Logistics GmbH', version: 1,
      created_at: now, updated_at: now,
    });
    invoices.push({
      org_id: 'org-demo', id: fixedId('invoice:org-demo:credit'), bill_id: `CRN-DE-${rng.digits(6)}`, status: 'published', type: 'credit',
      cycle_start: dateOnly(monthStart(now, -1)), cycle_end: dateOnly(new Date(monthStart(now).getTime() - DAY)), billing_cycle: monthStart(now, -1).toISOString().slice(0, 7),
      billing_date: dateOnly(new Date(monthStart(now).getTime() + 4 * DAY)), issued_at: new Date(monthStart(now).getTime() + 4 * DAY),
      due_date: dueDateOf(new Date(monthStart(now).getTime() + 4 * DAY)), paid_at: null, currency: f.currency, amount_excl_tax: -20, tax_rate: f.taxRate, tax_amount: -3.8,
      amount_incl_tax: -23.8, settlement_customer: 'Demo Logistics GmbH', version: 1, created_at: monthStart(now), updated_at: monthStart(now),
    });
  }
  await insertRows(ctx.q, 'invoices', invoices);
  await insertRows(ctx.q, 'invoice_lines', lines);
  // A paid invoice was paid by one payment (a settle) on the day it was paid; each organisation's billing profile
  // (the monthly invoice job's currency, tax rate and bank, server/billing/invoice-job.ts).
  await insertRows(ctx.q, 'invoice_settles', invoices.filter((i) => i.status === 'paid').map((i) => ({
    org_id: i.org_id, invoice_id: i.id, amount: i.amount_incl_tax, currency: i.currency, paid_on: dateOnly(i.paid_at as Date), reference: `SEPA-${rng.digits(8)}`, recorded_at: i.paid_at,
  })));
  for (const f of FLEETS) {
    await ctx.q.query(
      `INSERT INTO billing_profiles (org_id, currency, tax_rate, overage_minor_per_mb, settlement_customer, bank_details, credit_limit) VALUES ($1, $2, $3, 2, $4, $5, 5000)
       ON CONFLICT (org_id) DO UPDATE SET currency = EXCLUDED.currency, tax_rate = EXCLUDED.tax_rate, settlement_customer = EXCLUDED.settlement_customer, bank_details = EXCLUDED.bank_details, credit_limit = EXCLUDED.credit_limit`,
      [f.org, f.currency, f.taxRate, f.org === 'org-other' ? 'Other Customer Ltd' : 'Demo Logistics GmbH', JSON.stringify({ bank: 'Demo Bank AG', iban: 'DE89370400440532013000', bic: 'COBADEFFXXX' })],
    );
  }
}

/**
 * Reports and the task center. Every report and finished task that offers a download has its file, made by the same
 * code as the real job from the data just seeded (issue 14: the demo makes the files it lists, or lists no download).
 * Without a file store (ctx.files) there are no files: no reports, and finished tasks offer no download.
 */
async function seedReportsAndTasks(ctx: Ctx): Promise<void> {
  const { rng, now, size, files: store } = ctx;
  const files: Row[] = [];
  /** Publish a file the seed wrote under key; its files row, and its id. */
  const publish = async (org: string, account: string | null, kind: string, key: string, name: string, contentType: string, created: Date): Promise<string> => {
    const id = fixedId(`file:${key}`);
    const size = await store!.publish(key);
    files.push({ org_id: org, id, account_id: account, kind, storage_key: key, name, content_type: contentType, size_bytes: size, created_at: created, expires_at: new Date(created.getTime() + 30 * DAY) });
    return id;
  };

  const prefColumns = ['iccid', 'imsi', 'msisdn', 'imei', 'device_name', 'status', 'usage_kb', 'sms_mo', 'sms_mt', 'network', 'bundle', 'expires_at'];
  const prefs: Row[] = [];
  for (const org of ['org-demo', 'org-other']) {
    prefColumns.forEach((c, i) => prefs.push({ org_id: org, column_key: c, enabled: !['imei', 'sms_mo', 'bundle'].includes(c), position: i, updated_by: null, updated_at: now }));
  }
  // The reports are written with these preferences, as the report job would.
  await insertRows(ctx.q, 'report_preferences', prefs);

  // Reports of past months, made on the 6th (within the 5th-8th window, UTC+8), with the rows they really hold.
  const reports: Row[] = [];
  const reportMonths = size === 'small' ? 1 : 6;
  const kinds: ReportKind[] = size === 'small' ? ['monthly_usage', 'sim_inventory'] : ['monthly_usage', 'sim_inventory', 'sms_usage', 'bundle_usage', 'pool_usage'];
  for (const org of store ? ['org-demo', 'org-other'] : []) {
    for (let k = 1; k <= (org === 'org-demo' ? reportMonths : 1); k++) {
      const period = monthStart(now, -k).toISOString().slice(0, 7);
      const made = new Date(monthStart(now, -k + 1).getTime() + 5 * DAY - 6 * HOUR);
      if (made > now) continue;
      for (const [i, kind] of kinds.entries()) {
        const id = org === 'org-demo' && k === 1 && i === 0 ? DEMO_REPORT_ID : fixedId(`report:${org}:${k}:${kind}`);
        const written = await writeReport(ctx.q, store!, { orgId: org, report: kind, period, lang: SCHEDULED_LANGUAGE, folder: `${org}/reports/seed-${id}` });
        const fileId = await publish(org, null, 'report', written.key, written.name, REPORT_CONTENT_TYPE, made);
        reports.push({ org_id: org, id, report: kind, period, status: 'ready', file_id: fileId, row_count: written.rows, created_at: made, updated_at: made });
      }
    }
  }

  // Tasks: the last 7 days show in the task center; a few older ones prove the window.
  const tasks: Row[] = [];
  /** Finished exports whose file the export job writes below. */
  const exports: Array<{ row: Row; kind: ExportKind; query: Record<string, unknown>; format: 'csv' | 'xlsx' }> = [];
  let ref = 1000;
  const simCount = (org: string) => ctx.sims.filter((x) => x.org === org).length;
  const task = (org: string, account: string, kind: string, status: 'done' | 'issues' | 'processing', created: Date, extra: Row = {}): Row => {
    // A task of SIMs counts at most the organisation's SIMs.
    const quantity = Math.min(rng.int(1, 5000), simCount(org));
    const started = new Date(created.getTime() + rng.int(1, 20) * 1000);
    const ended = status === 'processing' ? null : new Date(started.getTime() + rng.int(2, 600) * 1000);
    const row: Row = {
      org_id: org, id: rng.id(), account_id: account, reference_id: `T${created.toISOString().slice(0, 10).replace(/-/g, '')}${String(ref++)}`, kind, quantity,
      remark: null, status, progress: status === 'done' ? 100 : status === 'issues' ? 100 : rng.int(5, 80), payload: { format: 'csv' }, result: status === 'processing' ? null : { ok: quantity },
      result_file_id: null, error: null, attempts: status === 'processing' ? 0 : 1, claimed_by: null, claimed_at: null,
      heartbeat_at: null, started_at: started, ended_at: ended, created_at: created, updated_at: ended ?? now, ...extra,
    };
    tasks.push(row);
    return row;
  };
  /** A finished export of `kind` with this list query: its file is the export job's, its quantity the rows written. */
  const exported = (row: Row, kind: ExportKind, query: Record<string, unknown>, format: 'csv' | 'xlsx' = 'csv') => {
    row.payload = { query, format, lang: 'en-US' };
    exports.push({ row, kind, query, format });
  };
  const doneAt = new Date(now.getTime() - 2 * HOUR);
  exported(task('org-demo', 'acc-admin', 'sim_export', 'done', doneAt, { id: DEMO_TASK_ID, remark: 'All active SIMs' }), 'sim_export', { status: 'active' }, 'xlsx');
  // An activation sent to the network before the demo started, which the network never answers: a worker takes it up,
  // waits for the answer until the stated time after it was sent (ACTIVATION_ANSWER_MINUTES), then ends it as issues
  // with its report (docs/decisions.md, "The demo's activation in progress").
  // No worker holds it (no lease into the future): it is first looked at when its answer is due.
  const busyAt = new Date(now.getTime() - 2 * MINUTE);
  const sentAt = new Date(busyAt.getTime() + 5000);
  task('org-demo', 'acc-admin', 'sim_activate', 'processing', busyAt, {
    id: BUSY_TASK_ID, quantity: 1, remark: 'Activation in progress', progress: 10,
    payload: { iccids: [SPECIAL_SIMS.operationInProgress], lang: 'en-US', sentAt: sentAt.toISOString(), refused: {} },
    run_after: new Date(sentAt.getTime() + ACTIVATION_ANSWER_MINUTES * MINUTE),
  });
  task('org-demo', 'acc-admin', 'sim_info_upload', 'issues', new Date(now.getTime() - 26 * HOUR), {
    remark: 'devices.csv', quantity: 43, result: { ok: 41, failed: 2, errors: [{ row: 3, message: 'Invalid ICCID' }, { row: 17, message: 'Device name longer than 40 characters' }] },
  });
  exported(task('org-other', 'acc-other-admin', 'sim_export', 'done', new Date(now.getTime() - 5 * HOUR)), 'sim_export', {});
  if (size === 'demo') {
    // Kinds the task center names; the exports among them are ones the export job makes.
    const kindsList = ['sim_export', 'cdr_export', 'sim_reset', 'bundle_export', 'sim_suspend', 'sim_resume', 'sim_transfer', 'sim_export', 'bundle_export', 'sim_suspend'];
    const owners = ['acc-admin', 'acc-operator', 'acc-superadmin', 'acc-user'];
    const live = ctx.sims.filter((s) => s.org === 'org-demo' && s.status === 'active');
    for (let i = 0; i < 24; i++) {
      const created = new Date(now.getTime() - rng.int(10, 7 * 24 * 60 - 10) * MINUTE);
      const status = rng.weighted([['done', 85], ['issues', 15]]) as 'done' | 'issues';
      const kind = rng.pick(kindsList);
      const owner = rng.pick(owners);
      const row = task('org-demo', owner, kind, status, created);
      if (status !== 'done' || !(kind in EXPORTS)) continue;
      // Narrow selections, as people export them: one status, one bundle state, one SIM's last week of CDRs.
      if (kind === 'sim_export') exported(row, kind, { status: SIM_STATUSES[i % SIM_STATUSES.length] });
      else if (kind === 'bundle_export') exported(row, kind, { status: ['IN_USE', 'PENDING', 'EXPIRED'][i % 3] });
      else exported(row, 'cdr_export', { search: { field: 'iccid', value: live[i % live.length].iccid }, startAtFrom: new Date(now.getTime() - 7 * DAY).toISOString(), startAtTo: now.toISOString() });
    }
    for (let i = 0; i < 3; i++) exported(task('org-demo', 'acc-admin', 'sim_export', 'done', new Date(now.getTime() - (9 + i * 3) * DAY)), 'sim_export', {});
  }
  for (const e of exports) {
    if (!store) continue;
    const t = e.row;
    const job = EXPORT_JOBS[e.kind];
    const taskRow = { id: String(t.id), org_id: String(t.org_id), account_id: String(t.account_id), kind: e.kind, quantity: 0, payload: t.payload as Record<string, unknown>, attempts: 1 };
    // The job's own code over the seeded rows (it reads through the seed's transaction).
    const out = await job({ db: ctx.q as Db, store, task: taskRow, progress: async () => undefined });
    const file = out.file!;
    t.result_file_id = await publish(String(t.org_id), String(t.account_id), 'export', file.key, file.name, file.contentType, t.ended_at as Date);
    t.quantity = Number(out.result.rows);
    t.result = out.result;
  }
  await insertRows(ctx.q, 'files', files);
  await insertRows(ctx.q, 'reports', reports);
  await insertRows(ctx.q, 'tasks', tasks);
}
