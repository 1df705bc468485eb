/**
 * A SIM's diagnose report (SPEC.md section 7, /cube/sims/diagnose/{id}): why it may or may not pass data, as checks that
 * each pass, warn or fail with the reason as a message key under "diagnose." (common/locales) and its parameters.
 * Pure: the caller gathers the facts, so every rule tests without a database.
 */
import { LIMITS } from '../../common/limits.js';

export type CheckResult = 'pass' | 'warn' | 'fail';

export interface DiagnoseFacts {
  status: string;
  subStatus: string;
  imei: string | null;
  lastSessionAt: Date | null;
  locationAt: Date | null;
  operation: string | null;
  operationStartedAt: Date | null;
  flowControlPolicy: string;
  /** Bundle orders of the SIM that may carry data now or later. */
  bundles: Array<{ status: 'PENDING' | 'IN_USE'; quotaKb: number | null; usedKb: number; overagePolicy: string }>;
}

export interface Check {
  key: 'state' | 'bundle' | 'quota' | 'session' | 'location' | 'operation' | 'imei' | 'flowControl';
  result: CheckResult;
  /** Message key under diagnose.reasons. */
  reason: string;
  params: Record<string, string | number>;
  /** The time the check read (last session, location, operation start), shown beside it in the viewer's zone. */
  at?: string;
}

/**
 * The checks in the order a person reads them: can it pass data at all, then what it did lately. The cut-offs of
 * SPEC.md section 9 (a session within 3 months, a location within 48 hours) come from the caller's clock, the
 * database's, so that this report and the connection tab agree to the second.
 */
export function diagnose(f: DiagnoseFacts, since: { session: Date; location: Date }): Check[] {
  const check = (key: Check['key'], result: CheckResult, reason: string, params: Check['params'] = {}, at?: Date | null): Check => ({
    key,
    result,
    reason,
    params,
    ...(at ? { at: at.toISOString() } : {}),
  });
  const checks: Check[] = [];

  if (f.status === 'active') checks.push(check('state', 'pass', 'stateActive'));
  else if (f.status === 'pre_activated' && f.subStatus === 'test') checks.push(check('state', 'warn', 'stateTest'));
  else checks.push(check('state', 'fail', 'stateNoData', { status: f.status }));

  const inUse = f.bundles.filter((b) => b.status === 'IN_USE');
  if (inUse.length) checks.push(check('bundle', 'pass', 'bundleInUse', { count: inUse.length }));
  else if (f.bundles.length) checks.push(check('bundle', 'warn', 'bundlePending', { count: f.bundles.length }));
  else checks.push(check('bundle', 'fail', 'bundleNone'));

  if (!inUse.length) checks.push(check('quota', 'warn', 'quotaNoBundle'));
  else if (inUse.some((b) => b.quotaKb === null)) checks.push(check('quota', 'pass', 'quotaUnlimited'));
  else {
    const quota = inUse.reduce((s, b) => s + (b.quotaKb ?? 0), 0);
    const used = inUse.reduce((s, b) => s + b.usedKb, 0);
    const percent = quota > 0 ? Math.round((used / quota) * 100) : 100;
    const left = Math.max(0, quota - used);
    // Over the allowance, data goes on only where an overage policy bills for it.
    if (left === 0)
      checks.push(
        check(
          'quota',
          inUse.some((b) => b.overagePolicy !== 'stop') ? 'warn' : 'fail',
          inUse.some((b) => b.overagePolicy !== 'stop') ? 'quotaOverBilled' : 'quotaExhausted',
          { percent },
        ),
      );
    else checks.push(check('quota', percent >= 90 ? 'warn' : 'pass', 'quotaLeft', { percent, leftKb: left }));
  }

  if (!f.lastSessionAt) checks.push(check('session', 'fail', 'sessionNever'));
  else if (f.lastSessionAt >= since.session) checks.push(check('session', 'pass', 'sessionRecent', { months: LIMITS.lastSessionMonths }, f.lastSessionAt));
  else checks.push(check('session', 'fail', 'sessionOld', { months: LIMITS.lastSessionMonths }, f.lastSessionAt));

  if (!f.locationAt) checks.push(check('location', 'warn', 'locationNever'));
  else if (f.locationAt >= since.location) checks.push(check('location', 'pass', 'locationRecent', { hours: LIMITS.locationHours }, f.locationAt));
  else checks.push(check('location', 'warn', 'locationOld', { hours: LIMITS.locationHours }, f.locationAt));

  if (!f.operation) checks.push(check('operation', 'pass', 'operationNone'));
  else checks.push(check('operation', 'warn', 'operationBusy', { operation: f.operation }, f.operationStartedAt));

  checks.push(f.imei ? check('imei', 'pass', 'imeiKnown', { imei: f.imei }) : check('imei', 'warn', 'imeiUnknown'));

  if (f.flowControlPolicy === 'none') checks.push(check('flowControl', 'pass', 'flowNone'));
  else if (f.flowControlPolicy === 'stop') checks.push(check('flowControl', 'fail', 'flowStop'));
  else checks.push(check('flowControl', 'warn', 'flowThrottle', { kbps: Number(f.flowControlPolicy.replace(/\D/g, '')) }));

  return checks;
}

/** The report's verdict: its worst check. */
export function overall(checks: Check[]): CheckResult {
  return checks.some((c) => c.result === 'fail') ? 'fail' : checks.some((c) => c.result === 'warn') ? 'warn' : 'pass';
}
