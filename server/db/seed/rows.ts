/** What every generator of the seed shares: its context (the PRNG, the SIMs made so far), batched inserts, dates. */
import type { Db, Queryable } from '../db.js';
import type { SimStatus } from '../../../common/lifecycle.js';
import { Rng } from '../../domain/rng.js';
import type { FileStore } from '../../job/storage.js';
import type { Plan } from './catalogue.js';
import type { SeedSize, SimTechnology } from './fixtures.js';

export type Row = Record<string, unknown>;
export const DAY = 86_400_000;
export const HOUR = 3_600_000;
export const MINUTE = 60_000;
/** A PostgreSQL array literal, passed as text so both pg and PGlite read it the same way. */
export function pgArray(values: readonly (string | number)[]): string {
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
export async function insertRows(q: Queryable, table: string, rows: Row[], batch = 500): Promise<void> {
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

export const dateOnly = (d: Date): string => d.toISOString().slice(0, 10);
export const monthStart = (d: Date, add = 0): Date => new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + add, 1));
export const round2 = (n: number): number => Math.round(n * 100) / 100;
/** What a plan allows a day, on average over its cycle. */
export const perDayKb = (plan: Plan): number => plan.quotaKb / ({ DAY: 1, DAY_24H: 1, MONTH: 30, MONTH_31D: 31, YEAR_366D: 366 } as const)[plan.reset];

export const mccMnc = (network: string): string =>
  network
    .match(/(\d{3})-(\d{2,3})$/)!
    .slice(1)
    .join('');
export const networkCountry = (network: string): string => network.split(' ').slice(-2, -1)[0];

export function fakePublicKey(rng: Rng): string {
  // SPKI DER of a 1024-bit RSA key is 162 bytes; these bytes are random, a placeholder for demo rows only.
  let bin = '';
  for (let i = 0; i < 162; i++) bin += String.fromCharCode(rng.int(0, 255));
  const b64 = btoa(bin);
  return `-----BEGIN PUBLIC KEY-----\n${b64.match(/.{1,64}/g)!.join('\n')}\n-----END PUBLIC KEY-----`;
}

export interface SimSeed {
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

export interface Ctx {
  q: Queryable;
  /** The same transaction as a Db, for code that runs its own transactions (the invoice job): savepoints of it. */
  db: Db;
  /** Where the files the seed lists are written; without it the seed lists no files. */
  files?: FileStore;
  size: SeedSize;
  now: Date;
  rng: Rng;
  sims: SimSeed[];
  pools: { id: string; org: string; members: SimSeed[] }[];
}
