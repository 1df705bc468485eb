/**
 * A bundle's reset cycle and what its overage policy lets a SIM use in one cycle (SPEC.md section 3, Bundle order:
 * reset cycle and overage policy). Pure functions: the seed builds its usage with them, and the test of the demo seed
 * checks it against them (tests/api/demo-seed.test.ts); the bundle engine (server/bundles/bundle-engine.ts) enforces
 * them on live traffic with the same rules, its cycle bounds in SQL (026_bundle_engine.sql) matching cycleStart/cycleEnd.
 */

export type ResetCycle = 'DAY' | 'DAY_24H' | 'MONTH' | 'MONTH_31D' | 'YEAR_366D';
export type OveragePolicy = 'stop' | 'billing' | 'billing_speed_decrease' | 'billing_throttle_after_threshold' | 'billing_stop_after_allowance';

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
/** The fixed-length cycles, counted from the bundle's activation. */
const ROLLING: Partial<Record<ResetCycle, number>> = { DAY_24H: DAY_MS, MONTH_31D: 31 * DAY_MS, YEAR_366D: 366 * DAY_MS };

/**
 * When the cycle that `now` falls in began. Calendar cycles follow the SIM pages' clock (UTC, SPEC.md section 9):
 * DAY at 00:00 UTC, MONTH on the 1st; the others are 24 hours, 31 days or 366 days long from the activation.
 */
export function cycleStart(reset: ResetCycle, activatedAt: Date, now: Date): Date {
  if (reset === 'DAY') return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));
  if (reset === 'MONTH') return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
  const length = ROLLING[reset]!;
  const since = now.getTime() - activatedAt.getTime();
  return new Date(activatedAt.getTime() + Math.max(0, Math.floor(since / length)) * length);
}

export interface BundleAllowance {
  quotaKb: number | null;
  overagePolicy: OveragePolicy;
  throttleKbps: number | null;
  overageThresholdKb: number | null;
}

/**
 * The most a SIM can have used in a cycle that began at `start`, by `now`, under the bundle's policy; null when the
 * policy sets no bound (no quota, or overage billed at full speed). A throttled SIM goes on at throttleKbps: at most
 * kbps / 8 KB a second for the time the cycle has run.
 */
export function allowanceKb(b: BundleAllowance, start: Date, now: Date): number | null {
  if (b.quotaKb === null) return null;
  const throttled = ((b.throttleKbps ?? 0) / 8) * Math.max(0, (now.getTime() - start.getTime()) / 1000);
  switch (b.overagePolicy) {
    case 'stop':
      return b.quotaKb;
    case 'billing':
      return null;
    case 'billing_speed_decrease':
      return b.quotaKb + throttled;
    case 'billing_throttle_after_threshold':
      return (b.overageThresholdKb ?? b.quotaKb) + throttled;
    case 'billing_stop_after_allowance':
      return b.overageThresholdKb ?? b.quotaKb;
  }
}

/** When the cycle that `now` falls in ends (the next one starts): cycleStart's partner. */
export function cycleEnd(reset: ResetCycle, activatedAt: Date, now: Date): Date {
  if (reset === 'DAY') return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1));
  if (reset === 'MONTH') return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1));
  return new Date(cycleStart(reset, activatedAt, now).getTime() + ROLLING[reset]!);
}

/** What the network is told to do with a SIM's data (sims.flow_control_policy). */
export type FlowControl = 'none' | 'throttle_128' | 'throttle_256' | 'stop';
/** An automation rule's throttle on a SIM (sims.rule_control): kept until lifted, not released by a cycle. */
export type RuleControl = 'none' | 'throttle_128' | 'throttle_256';

/**
 * What the network is told, from the policy's three causes (migration 027's flow_control_of, which the table's check
 * holds every row to): an attach out of coverage that bars data, the bundle's overage, an automation rule's throttle.
 * The strongest wins: a stop, then 128 kbps, then 256 kbps.
 */
export function flowControlOf(barred: boolean, overage: FlowControl, rule: RuleControl): FlowControl {
  if (barred || overage === 'stop') return 'stop';
  if (overage === 'throttle_128' || rule === 'throttle_128') return 'throttle_128';
  if (overage === 'throttle_256' || rule === 'throttle_256') return 'throttle_256';
  return 'none';
}

/** The overage rule of a SIM's cycle: the allowance (the cycle limit) and the policy of the bundle that takes the overage. */
export interface CycleRule {
  limitKb: number | null;
  overagePolicy: OveragePolicy;
  throttleKbps: number | null;
  /** Where "after a threshold" or "after an allowance" starts, counted from the cycle's start like limitKb. */
  thresholdKb: number | null;
}

/**
 * What the overage policy does to a SIM that has used usageKb in its cycle (SPEC.md section 9):
 * - stop: data barred once the allowance is reached;
 * - billing: goes on at full speed, the overage billed;
 * - billing with speed decrease: throttled to the bundle's 128 or 256 kbps once the allowance is reached;
 * - billing and throttle after threshold: full speed (billed) up to the threshold, throttled after it;
 * - billing and stop after allowance: full speed (billed) up to the extra allowance, barred after it.
 * `reached` says whether the allowance is reached (overage from here on).
 */
export function overageControl(rule: CycleRule, usageKb: number): { reached: boolean; control: FlowControl } {
  if (rule.limitKb === null || usageKb < rule.limitKb) return { reached: false, control: 'none' };
  const throttle: FlowControl = rule.throttleKbps === 256 ? 'throttle_256' : 'throttle_128';
  const threshold = rule.thresholdKb ?? rule.limitKb;
  switch (rule.overagePolicy) {
    case 'stop':
      return { reached: true, control: 'stop' };
    case 'billing':
      return { reached: true, control: 'none' };
    case 'billing_speed_decrease':
      return { reached: true, control: throttle };
    case 'billing_throttle_after_threshold':
      return { reached: true, control: usageKb >= threshold ? throttle : 'none' };
    case 'billing_stop_after_allowance':
      return { reached: true, control: usageKb >= threshold ? 'stop' : 'none' };
  }
}

/** The stronger of two controls (a bar beats a throttle, a slower throttle a faster one). */
export function strongerControl(a: FlowControl, b: FlowControl): FlowControl {
  const rank: Record<FlowControl, number> = { none: 0, throttle_256: 1, throttle_128: 2, stop: 3 };
  return rank[a] >= rank[b] ? a : b;
}
