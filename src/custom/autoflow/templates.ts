/** The rules one can start from: the builder opens with one of these filled in (?template=). */
import type { AutoflowRuleDocument } from '../../../common/autoflow-rule';

export const TEMPLATES = {
  suspendOver1Gb: {
    trigger: { type: 'data_usage', threshold: 1, unit: 'GB', window: 'cycle' },
    scope: { type: 'all' },
    actions: [{ type: 'suspend' }],
  },
  emailOnImeiChange: {
    trigger: { type: 'imei_change', mode: 'any' },
    scope: { type: 'all' },
    actions: [{ type: 'email', emails: [] }],
  },
  throttleAt90: {
    trigger: { type: 'data_usage_percent', percent: 90 },
    scope: { type: 'all' },
    actions: [{ type: 'throttle', speedKbps: 128 }],
  },
} satisfies Record<string, Omit<AutoflowRuleDocument, 'name'>>;

export type TemplateKey = keyof typeof TEMPLATES;
export const TEMPLATE_KEYS = Object.keys(TEMPLATES) as TemplateKey[];

/** A blank rule: the builder's starting point without a template. */
export const BLANK: Omit<AutoflowRuleDocument, 'name'> = {
  trigger: { type: 'data_usage', unit: 'MB', window: 'cycle' },
  scope: { type: 'all' },
  actions: [{ type: 'suspend' }],
};
