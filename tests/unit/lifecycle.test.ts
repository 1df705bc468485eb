/**
 * The SIM state machine exhaustively: every state (with its finer sub-state) x every action, for a plain SIM; then
 * each refusal of SPEC.md section 8's Activation list on its own, and the one-operation-at-a-time rule.
 */
import { describe, expect, it } from 'vitest';
import { decide, OPERATIONS, SIM_ACTIONS, type SimAction, type SimFacts, type SimStatus, type SubStatus } from '../../server/domain/lifecycle';

const STATES: Array<[SimStatus, SubStatus]> = [
  ['inactive', 'inactive'],
  ['pre_activated', 'test'],
  ['pre_activated', 'quiet'],
  ['active', 'active_ready'],
  ['active', 'active_test'],
  ['active', 'active_live'],
  ['paused', 'paused'],
  ['expired', 'expired'],
  ['terminated', 'terminated'],
];

// Row: the state; columns in SIM_ACTIONS order. "status/sub" is the state it leads to; "!reason" a refusal.
const EXPECTED: Record<string, Record<SimAction, string>> = {
  'inactive/inactive': {
    activate: '!onlyPreActivated',
    suspend: '!onlyActive',
    resume: '!onlyPaused',
    reset: '!notResettable',
    preActivate: 'pre_activated/test',
    detectUsage: '!notInService',
    expire: '!notInService',
    renew: '!onlyExpired',
    terminate: 'terminated/terminated',
  },
  'pre_activated/test': {
    activate: 'active/active_ready',
    suspend: '!onlyActive',
    resume: '!onlyPaused',
    reset: 'pre_activated/test',
    preActivate: '!onlyInactive',
    detectUsage: 'pre_activated/test',
    expire: '!notInService',
    renew: '!onlyExpired',
    terminate: 'terminated/terminated',
  },
  'pre_activated/quiet': {
    activate: 'active/active_ready',
    suspend: '!onlyActive',
    resume: '!onlyPaused',
    reset: 'pre_activated/quiet',
    preActivate: '!onlyInactive',
    detectUsage: 'pre_activated/quiet',
    expire: '!notInService',
    renew: '!onlyExpired',
    terminate: 'terminated/terminated',
  },
  'active/active_ready': {
    activate: '!onlyPreActivated',
    suspend: 'paused/paused',
    resume: '!onlyPaused',
    reset: 'active/active_ready',
    preActivate: '!onlyInactive',
    detectUsage: 'active/active_live',
    expire: 'expired/expired',
    renew: '!onlyExpired',
    terminate: 'terminated/terminated',
  },
  'active/active_test': {
    activate: '!onlyPreActivated',
    suspend: 'paused/paused',
    resume: '!onlyPaused',
    reset: 'active/active_test',
    preActivate: '!onlyInactive',
    detectUsage: 'active/active_test',
    expire: 'expired/expired',
    renew: '!onlyExpired',
    terminate: 'terminated/terminated',
  },
  'active/active_live': {
    activate: '!onlyPreActivated',
    suspend: 'paused/paused',
    resume: '!onlyPaused',
    reset: 'active/active_live',
    preActivate: '!onlyInactive',
    detectUsage: 'active/active_live',
    expire: 'expired/expired',
    renew: '!onlyExpired',
    terminate: 'terminated/terminated',
  },
  'paused/paused': {
    activate: '!onlyPreActivated',
    suspend: '!onlyActive',
    resume: 'active/active_live',
    reset: 'paused/paused',
    preActivate: '!onlyInactive',
    detectUsage: '!notInService',
    expire: 'expired/expired',
    renew: '!onlyExpired',
    terminate: 'terminated/terminated',
  },
  'expired/expired': {
    activate: '!expiredOrTerminated',
    suspend: '!onlyActive',
    resume: '!onlyPaused',
    reset: '!notResettable',
    preActivate: '!onlyInactive',
    detectUsage: '!notInService',
    expire: '!notInService',
    renew: 'active/active_live',
    terminate: 'terminated/terminated',
  },
  'terminated/terminated': {
    activate: '!expiredOrTerminated',
    suspend: '!onlyActive',
    resume: '!onlyPaused',
    reset: '!notResettable',
    preActivate: '!onlyInactive',
    detectUsage: '!notInService',
    expire: '!notInService',
    renew: '!onlyExpired',
    terminate: '!alreadyTerminated',
  },
};

const plain = (status: SimStatus, subStatus: SubStatus, extra: Partial<SimFacts> = {}): SimFacts => ({
  status,
  subStatus,
  technology: 'ONE_IMSI',
  operation: null,
  hasAvailableBundle: true,
  inTestPeriod: false,
  ...extra,
});
const show = (d: ReturnType<typeof decide>) => (d.ok ? `${d.status}/${d.subStatus}` : `!${d.refusal}`);

describe('every state x every action', () => {
  for (const [status, sub] of STATES) {
    for (const action of SIM_ACTIONS) {
      it(`${status}/${sub} ${action} → ${EXPECTED[`${status}/${sub}`][action]}`, () => {
        const sim = plain(status, sub);
        const before = { ...sim };
        expect(show(decide(sim, action))).toBe(EXPECTED[`${status}/${sub}`][action]);
        expect(sim).toEqual(before); // pure: the facts are never changed
      });
    }
  }
  it('the table covers every state and action', () => {
    expect(Object.keys(EXPECTED)).toHaveLength(STATES.length);
    for (const row of Object.values(EXPECTED)) expect(Object.keys(row).sort()).toEqual([...SIM_ACTIONS].sort());
  });
  it('a decision says whether anything changed', () => {
    expect(decide(plain('active', 'active_live'), 'reset')).toMatchObject({ ok: true, changed: false });
    expect(decide(plain('active', 'active_live'), 'suspend')).toMatchObject({ ok: true, changed: true });
  });
});

describe('activation refusals of SPEC.md section 8, each on its own', () => {
  it.each([
    ['an OTA SIM', { technology: 'OTA' as const }, 'otaNotSupported'],
    ['an OTA BIP SIM', { technology: 'OTA_BIP' as const }, 'otaNotSupported'],
    ['a multi-IMSI SIM', { technology: 'MULTI_IMSI' as const }, 'multiImsiNotSupported'],
    ['a SIM without an available bundle', { hasAvailableBundle: false }, 'noBundle'],
    ['a SIM being activated', { operation: 'activate' }, 'alreadyActivating'],
    ['a SIM with another request in progress', { operation: 'suspend' }, 'requestInProgress'],
  ])('%s', (_n, extra, refusal) => {
    expect(decide(plain('pre_activated', 'quiet', extra), 'activate')).toEqual({ ok: false, refusal });
  });
  it('usage detected on an active-ready SIM in its test period makes it active-test', () => {
    expect(show(decide(plain('active', 'active_ready', { inTestPeriod: true }), 'detectUsage'))).toBe('active/active_test');
  });
});

describe('one operation at a time', () => {
  it.each(OPERATIONS.map((a) => [a]))('%s waits for the request in progress, whatever the state', (action) => {
    for (const [status, sub] of STATES) {
      const d = decide(plain(status, sub, { operation: 'reset' }), action);
      expect(d).toEqual({ ok: false, refusal: 'requestInProgress' });
    }
  });
  it('system actions do not wait (expiry, termination)', () => {
    expect(decide(plain('active', 'active_live', { operation: 'reset' }), 'expire').ok).toBe(true);
    expect(decide(plain('paused', 'paused', { operation: 'resume' }), 'terminate').ok).toBe(true);
  });
});
