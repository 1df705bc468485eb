/**
 * The rule engine's matcher: pure functions, no I/O, tested by tables of cases. Given an event of the log,
 * the facts of its SIM and a rule, does the rule fire? The engine (engine.ts) loads the facts once per batch.
 *
 * Event-driven triggers are matched here. Usage, SMS-count, expiry and no-connection triggers are time- or
 * rollup-based and are evaluated on a schedule over rollups (schedule.ts).
 */
import type { RuleScope, RuleTrigger, TriggerType } from '../../common/autoflow-rule.js';
import type { DomainEvent } from '../events/event-log.js';

/** The triggers an event of the log can fire, by "type.subtype". */
export const EVENT_TRIGGERS: Readonly<Record<string, readonly TriggerType[]>> = {
  'sim.status_change': ['status_change'],
  'sim.imei_change': ['imei_change'],
  // The network a SIM is on changed (server/network-reports/network-reports.ts): a network change always, a country change when the
  // country differs too.
  'sim.network_change': ['network_change', 'country_change'],
};

/** The triggers an event may fire (none for most events, so most of the log costs one lookup). */
export const triggersOf = (e: Pick<DomainEvent, 'type' | 'subtype'>): readonly TriggerType[] => EVENT_TRIGGERS[`${e.type}.${e.subtype}`] ?? [];

/** What the matcher needs to know of the event's SIM. */
export interface SimFacts {
  orgId: string;
  simId: string;
  iccid: string;
  tags: string[];
  productType: string;
  poolId: string | null;
  imei: string | null;
}

/**
 * Is the SIM in the rule's scope? fileItems: the ICCIDs of the scope's validated file, or of its typed list as a set
 * (the engine keeps one per rule: a lookup, not a scan of up to 1,000).
 */
export function inScope(scope: RuleScope, sim: SimFacts, fileItems?: ReadonlySet<string>): boolean {
  switch (scope.type) {
    case 'all':
      return true;
    case 'iccids':
      return fileItems ? fileItems.has(sim.iccid) : (scope.iccids ?? []).includes(sim.iccid);
    case 'file':
      return fileItems?.has(sim.iccid) ?? false;
    case 'tags':
      return (scope.tags ?? []).some((t) => sim.tags.includes(t));
    case 'product_type':
      return sim.productType === scope.productType;
    case 'pool':
      return sim.poolId !== null && sim.poolId === scope.poolId;
  }
}

/**
 * Does the event cross the trigger's condition? A status change the autoflow itself made (source "autoflow") fires
 * nothing, so a rule whose action changes the SIM's status cannot set off itself or another rule in a loop.
 * imeiList: the allowed IMEIs of an "outside the list" trigger (typed or from its validated file).
 */
export function triggerFires(trigger: RuleTrigger, e: Pick<DomainEvent, 'type' | 'subtype' | 'data'>, sim: SimFacts, imeiList?: ReadonlySet<string>): boolean {
  if (!triggersOf(e).includes(trigger.type)) return false;
  switch (trigger.type) {
    case 'status_change': {
      if (e.data.source === 'autoflow') return false;
      const fromOk = trigger.from === 'any' || trigger.from === e.data.from;
      const toOk = trigger.to === 'any' || trigger.to === e.data.to;
      return fromOk && toOk;
    }
    case 'imei_change':
      if (trigger.mode === 'any') return true;
      return sim.imei !== null && !(imeiList?.has(sim.imei) ?? false);
    case 'network_change':
    case 'country_change': {
      const d = (e.data.detail ?? {}) as { fromCountry?: string | null; toCountry?: string | null };
      if (trigger.type === 'country_change' && (!d.toCountry || d.fromCountry === d.toCountry)) return false;
      // Countries named: only a change into one of them.
      return !trigger.countries?.length || (!!d.toCountry && trigger.countries.includes(d.toCountry));
    }
    default:
      return false;
  }
}
