/** The fleets of the demo seed and the well-known fixtures other tests use: ids and ICCIDs known before the seed runs. */
import { makeIccid } from '../../../common/iccid.js';
import { SIM_STATUSES, type SimStatus } from '../../../common/lifecycle.js';
import { Rng } from '../../domain/rng.js';

export type SeedSize = 'small' | 'demo';

export { SIM_STATUSES, type SimStatus };

export const SIM_TECHNOLOGIES = ['OTA', 'OTA_BIP', 'ONE_IMSI', 'MULTI_IMSI'] as const;
export type SimTechnology = (typeof SIM_TECHNOLOGIES)[number];

// Deterministic ids (the randomness is server/domain/rng.ts).

/** A stable 20-alphanumeric id for a label, so fixtures are known before the seed runs. */
export function fixedId(label: string): string {
  return new Rng(`id:${label}`).id(20);
}

export interface Fleet {
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

export const FLEETS: Fleet[] = [
  {
    org: 'org-demo',
    owner: 'acc-admin',
    country: 'DE',
    iccidPrefix: '894902',
    serialBase: 1_000_000,
    imsiPrefix: '26202',
    msisdnPrefix: '49151',
    currency: 'EUR',
    taxRate: 0.19,
    center: [51.2, 10.4],
  },
  {
    org: 'org-demo-north',
    owner: 'acc-admin',
    country: 'DE',
    iccidPrefix: '894902',
    serialBase: 2_000_000,
    imsiPrefix: '26202',
    msisdnPrefix: '49160',
    currency: 'EUR',
    taxRate: 0.19,
    center: [53.55, 9.99],
  },
  {
    org: 'org-demo-south',
    owner: 'acc-admin',
    country: 'ES',
    iccidPrefix: '893407',
    serialBase: 3_000_000,
    imsiPrefix: '21407',
    msisdnPrefix: '34600',
    currency: 'EUR',
    taxRate: 0.21,
    center: [40.4, -3.7],
  },
  {
    org: 'org-other',
    owner: 'acc-other-admin',
    country: 'GB',
    iccidPrefix: '894410',
    serialBase: 4_000_000,
    imsiPrefix: '23415',
    msisdnPrefix: '44770',
    currency: 'GBP',
    taxRate: 0.2,
    center: [52.5, -1.9],
  },
];

/** SIMs per organisation for each seed size. */
export const FLEET_SIZES: Record<SeedSize, Record<string, number>> = {
  small: { 'org-demo': 60, 'org-demo-north': 10, 'org-demo-south': 10, 'org-other': 10 },
  demo: { 'org-demo': 2000, 'org-demo-north': 150, 'org-demo-south': 150, 'org-other': 100 },
};

export const fleetOf = (org: string): Fleet => FLEETS.find((f) => f.org === org)!;
export const iccidAt = (f: Fleet, index: number): string => makeIccid(f.iccidPrefix, f.serialBase + index, 20);
export const simIdOf = (iccid: string): string => fixedId(`sim:${iccid}`);

// The first SIMs of org-demo are fixed: one per status, then the activation refusals of SPEC.md section 8.
export interface FixedSim {
  status: SimStatus;
  sub: string;
  tech: SimTechnology;
  bundle: 'available' | 'none' | 'default';
  operation?: string;
  pool?: boolean;
}

export const DEMO_FIXED: FixedSim[] = [
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

export const demoIccid = (i: number): string => iccidAt(FLEETS[0], i);
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
export const DEMO_SIM_IDS: Record<SimStatus, string> = Object.fromEntries(SIM_STATUSES.map((s) => [s, simIdOf(DEMO_SIMS[s])])) as Record<SimStatus, string>;

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
export const DEMO_API_KEY_ID = fixedId('apikey:org-demo:0');
export const DEMO_NOTIFICATION_KEY_ID = fixedId('notifkey:org-demo:0');
export const DEMO_REPORT_ID = fixedId('report:org-demo:0');
/** A finished export task of acc-admin in org-demo, with a result file. */
export const DEMO_TASK_ID = fixedId('task:org-demo:done');
/** The processing activation task that holds SPECIAL_SIMS.operationInProgress. */
export const BUSY_TASK_ID = fixedId('task:org-demo:busy');
