/**
 * What a rule's "notify the webhook" action sends: an event of the log, type autoflow and subtype
 * rule_fired, which the webhooks consumer delivers signed and retried like every other event. Try-it-out shows and
 * sends the same body for a sample SIM and a sample of the trigger's event, so what a developer sees is what arrives.
 */
import { conditionOf, type RuleTrigger } from '../../common/autoflow-rule.js';

export const RULE_FIRED = { type: 'autoflow', subtype: 'rule_fired' } as const;

export interface FiredEvent {
  type: string;
  subtype: string;
  at: Date;
  data: Record<string, unknown>;
}

/** The data of a rule_fired event. */
export function ruleFiredData(
  rule: { id: string; name: string; trigger: RuleTrigger },
  iccid: string,
  event: FiredEvent,
  runId: string | null,
): Record<string, unknown> {
  return {
    ruleId: rule.id,
    ruleName: rule.name,
    trigger: rule.trigger.type,
    iccid,
    runId,
    event: { type: event.type, subtype: event.subtype, at: event.at.toISOString(), data: event.data },
  };
}

/** A plausible event of the trigger for a SIM: what the engine would have matched (try-it-out). */
export function sampleEvent(trigger: RuleTrigger, iccid: string, at: Date): FiredEvent {
  switch (trigger.type) {
    case 'status_change':
      return {
        type: 'sim',
        subtype: 'status_change',
        at,
        data: {
          iccid,
          from: trigger.from === 'any' ? 'active' : trigger.from,
          to: trigger.to === 'any' ? (trigger.from === 'paused' ? 'active' : 'paused') : trigger.to,
          source: 'network',
        },
      };
    case 'imei_change':
      return { type: 'sim', subtype: 'imei_change', at, data: { iccid, source: 'network', detail: { from: '356938035643809' } } };
    default:
      // Usage, SMS, expiry and connection triggers are evaluated from rollups: their event names the crossed condition.
      return { type: 'autoflow', subtype: trigger.type, at, data: { iccid, ...conditionOf(trigger) } };
  }
}

/** The body a receiver gets for a rule_fired event ({ type, subtype, timestamp, data }, as server/developer/webhooks.ts). */
export function ruleFiredBody(data: Record<string, unknown>, at: Date): { type: string; subtype: string; timestamp: string; data: Record<string, unknown> } {
  return { ...RULE_FIRED, timestamp: at.toISOString(), data };
}
