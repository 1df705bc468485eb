/**
 * The rule's one schema (common/autoflow-rule.ts) as the console will check it: through the console's RJSF validator
 * (src/resources/csp-validator.ts, which interprets the schema instead of compiling it), each range of SPEC.md section 5
 * is refused on its own field at max+1 and 0, and accepted at 1 and max, as the server's ajv does (tests/api/autoflow-rules.test.ts).
 */
import { describe, expect, it } from 'vitest';
import { AUTOFLOW_RULE_SCHEMA } from '../../common/autoflow-rule.js';
import { cspSafeValidator } from '../../src/resources/csp-validator';

const v = cspSafeValidator();
const schema = AUTOFLOW_RULE_SCHEMA as never;
const doc = (trigger: Record<string, unknown>, over: Record<string, unknown> = {}) => ({
  name: 'Rule',
  trigger,
  scope: { type: 'all' },
  actions: [{ type: 'suspend' }],
  ...over,
});
const errorsOf = (d: unknown) => v.validateFormData(d as never, schema).errors.map((e) => [e.property, e.name, e.params]);

describe('the rule schema in the console’s validator', () => {
  it.each([
    ['KB', { type: 'data_usage', unit: 'KB', window: 'cycle' }, 'threshold', 1_073_741_824],
    ['MB', { type: 'data_usage', unit: 'MB', window: 'cycle' }, 'threshold', 1_048_576],
    ['GB', { type: 'data_usage', unit: 'GB', window: 'rolling_24h' }, 'threshold', 1024],
    ['percent', { type: 'data_usage_percent' }, 'percent', 200],
    ['SMS MO', { type: 'sms_mo', window: 'cycle' }, 'count', 200],
    ['SMS MT', { type: 'sms_mt', window: 'cycle' }, 'count', 1000],
    ['expiry', { type: 'expiry_reminder' }, 'days', 45],
    ['no connection', { type: 'no_connection' }, 'hours', 720],
  ])('%s: 1 and the maximum pass, 0 and one more fail on the field', (_n, trigger, field, max) => {
    expect(errorsOf(doc({ ...trigger, [field]: 1 }))).toEqual([]);
    expect(errorsOf(doc({ ...trigger, [field]: max }))).toEqual([]);
    expect(errorsOf(doc({ ...trigger, [field]: 0 }))).toContainEqual([`.trigger.${field}`, 'minimum', { limit: 1 }]);
    expect(errorsOf(doc({ ...trigger, [field]: max + 1 }))).toContainEqual([`.trigger.${field}`, 'maximum', { limit: max }]);
  });

  it('names the required fields SPEC.md lists: threshold, percentage, product type, tags, shared pool', () => {
    expect(errorsOf(doc({ type: 'data_usage', unit: 'MB', window: 'cycle' }))).toContainEqual([
      '.trigger.threshold',
      'required',
      { missingProperty: 'threshold' },
    ]);
    expect(errorsOf(doc({ type: 'data_usage_percent' }))).toContainEqual(['.trigger.percent', 'required', { missingProperty: 'percent' }]);
    for (const [type, field] of [
      ['product_type', 'productType'],
      ['tags', 'tags'],
      ['pool', 'poolId'],
    ]) {
      expect(errorsOf(doc({ type: 'network_change' }, { scope: { type } }))).toContainEqual([`.scope.${field}`, 'required', { missingProperty: field }]);
    }
  });

  it('takes 1000 typed ICCIDs and 10 e-mails, not 1001 and 11', () => {
    const iccids = (n: number) => Array.from({ length: n }, () => '89490200001234567819');
    expect(errorsOf(doc({ type: 'network_change' }, { scope: { type: 'iccids', iccids: iccids(1000) } }))).toEqual([]);
    expect(errorsOf(doc({ type: 'network_change' }, { scope: { type: 'iccids', iccids: iccids(1001) } }))).toContainEqual([
      '.scope.iccids',
      'maxItems',
      { limit: 1000 },
    ]);
    const emails = (n: number) => Array.from({ length: n }, (_, i) => `a${i}@x.example.com`);
    expect(errorsOf(doc({ type: 'network_change' }, { actions: [{ type: 'email', emails: emails(10) }] }))).toEqual([]);
    expect(errorsOf(doc({ type: 'network_change' }, { actions: [{ type: 'email', emails: emails(11) }] }))).toContainEqual([
      '.actions.0.emails',
      'maxItems',
      { limit: 10 },
    ]);
  });
});
