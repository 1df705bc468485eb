/**
 * The SIM lifecycle of SPEC.md section 4 as pure functions: which action each state allows, the state it leads to,
 * and, when it is refused, which of SPEC.md section 8's reasons applies. No I/O: the routes and the job worker load
 * the facts, ask decide(), and write what it answers (the SIM row, a sim_events row, the audit trail).
 */

/** The SIM statuses, declared here only: schemas/sims.json's enums must equal these (tests/unit/sim-statuses.test.ts). */
export const SIM_STATUSES = ['inactive', 'pre_activated', 'active', 'paused', 'expired', 'terminated'] as const;
export type SimStatus = (typeof SIM_STATUSES)[number];

/** The finer view: inactive; pre-activated in its test or quiet period; active ready, in test or live. */
export const SUB_STATUSES = ['inactive', 'test', 'quiet', 'active_ready', 'active_test', 'active_live', 'paused', 'expired', 'terminated'] as const;
export type SubStatus = (typeof SUB_STATUSES)[number];

/**
 * Actions a person asks for (activate, suspend, resume, reset) and the ones the system takes: pre-activation at
 * shipment, usage detected by the network, expiry at the end of the service, renewal within the retention period,
 * and termination (final).
 */
export const SIM_ACTIONS = ['activate', 'suspend', 'resume', 'reset', 'preActivate', 'detectUsage', 'expire', 'renew', 'terminate'] as const;
export type SimAction = (typeof SIM_ACTIONS)[number];

/** What the decision needs to know about one SIM. */
export interface SimFacts {
  status: SimStatus;
  subStatus: SubStatus;
  technology: 'OTA' | 'OTA_BIP' | 'ONE_IMSI' | 'MULTI_IMSI';
  /** The operation in progress on this SIM, if any (one at a time). */
  operation: string | null;
  /** A bundle order the activation can start (PENDING or IN_USE). */
  hasAvailableBundle: boolean;
  /** Pre-activated with a test allowance still running. */
  inTestPeriod: boolean;
}

/** SPEC.md section 8's refusals, as message keys (errors.sim.<key>). */
export type Refusal =
  | 'requestInProgress'
  | 'alreadyActivating'
  | 'otaNotSupported'
  | 'multiImsiNotSupported'
  | 'expiredOrTerminated'
  | 'onlyPreActivated'
  | 'noBundle'
  | 'onlyActive'
  | 'onlyPaused'
  | 'notResettable'
  | 'onlyInactive'
  | 'notInService'
  | 'onlyExpired'
  | 'alreadyTerminated';

export type Decision = { ok: true; status: SimStatus; subStatus: SubStatus; changed: boolean } | { ok: false; refusal: Refusal };

/** Actions that take the SIM's one operation slot (a person's request, carried out by a task or at once). */
export const OPERATIONS: readonly SimAction[] = ['activate', 'suspend', 'resume', 'reset'];

const to = (status: SimStatus, subStatus: SubStatus, from: SimFacts): Decision => ({
  ok: true,
  status,
  subStatus,
  changed: status !== from.status || subStatus !== from.subStatus,
});
const no = (refusal: Refusal): Decision => ({ ok: false, refusal });

/**
 * The decision for one SIM and one action. The order of the checks is the order of SPEC.md section 8's Activation
 * list: a request in progress first (nothing else is looked at), then the SIM's kind, then its state, then its bundle.
 */
export function decide(sim: SimFacts, action: SimAction): Decision {
  if (OPERATIONS.includes(action) && sim.operation)
    return no(sim.operation === 'activate' && action === 'activate' ? 'alreadyActivating' : 'requestInProgress');
  switch (action) {
    case 'activate':
      if (sim.technology === 'OTA' || sim.technology === 'OTA_BIP') return no('otaNotSupported');
      if (sim.technology === 'MULTI_IMSI') return no('multiImsiNotSupported');
      if (sim.status === 'expired' || sim.status === 'terminated') return no('expiredOrTerminated');
      if (sim.status !== 'pre_activated') return no('onlyPreActivated');
      if (!sim.hasAvailableBundle) return no('noBundle');
      return to('active', 'active_ready', sim);
    case 'suspend':
      return sim.status === 'active' ? to('paused', 'paused', sim) : no('onlyActive');
    case 'resume':
      return sim.status === 'paused' ? to('active', 'active_live', sim) : no('onlyPaused');
    case 'reset':
      // A network reset (detach and attach again) changes no state; it needs a SIM the network serves.
      return sim.status === 'active' || sim.status === 'paused' || sim.status === 'pre_activated' ? to(sim.status, sim.subStatus, sim) : no('notResettable');
    case 'preActivate':
      return sim.status === 'inactive' ? to('pre_activated', 'test', sim) : no('onlyInactive');
    case 'detectUsage':
      // Active-ready moves to live (or to test while a test allowance runs) when usage is detected; other states keep theirs.
      if (sim.status === 'active' && sim.subStatus === 'active_ready') return to('active', sim.inTestPeriod ? 'active_test' : 'active_live', sim);
      if (sim.status === 'active' || sim.status === 'pre_activated') return to(sim.status, sim.subStatus, sim);
      return no('notInService');
    case 'expire':
      return sim.status === 'active' || sim.status === 'paused' ? to('expired', 'expired', sim) : no('notInService');
    case 'renew':
      return sim.status === 'expired' ? to('active', 'active_live', sim) : no('onlyExpired');
    case 'terminate':
      return sim.status === 'terminated' ? no('alreadyTerminated') : to('terminated', 'terminated', sim);
  }
}
