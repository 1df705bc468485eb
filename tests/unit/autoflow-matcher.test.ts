/** The rule engine's matcher (server/autoflow/matcher.ts) by tables of cases: scope membership and trigger crossing. */
import { describe, expect, it } from 'vitest';
import type { RuleScope, RuleTrigger } from '../../common/autoflow-rule.js';
import { inScope, triggerFires, type SimFacts } from '../../server/autoflow/matcher.js';

const sim: SimFacts = {
  orgId: 'org',
  simId: 's1',
  iccid: '89490200001234567819',
  tags: ['pilot', 'north'],
  productType: 'automotive',
  poolId: 'POOL00000000000000001',
  imei: '356938035643809',
};

describe('scope membership', () => {
  it.each<[string, RuleScope, boolean, ReadonlySet<string>?]>([
    ['all', { type: 'all' }, true],
    ['typed ICCIDs that hold it', { type: 'iccids', iccids: [sim.iccid] }, true],
    ['typed ICCIDs that do not', { type: 'iccids', iccids: ['89490200001234567827'] }, false],
    ['a file that holds it', { type: 'file', fileToken: 't', fileSha256: 'x' }, true, new Set([sim.iccid])],
    ['a file not loaded', { type: 'file', fileToken: 't', fileSha256: 'x' }, false],
    ['a shared tag', { type: 'tags', tags: ['meters', 'north'] }, true],
    ['no shared tag', { type: 'tags', tags: ['meters'] }, false],
    ['its product type', { type: 'product_type', productType: 'automotive' }, true],
    ['another product type', { type: 'product_type', productType: 'consumer' }, false],
    ['its pool', { type: 'pool', poolId: sim.poolId! }, true],
    ['another pool', { type: 'pool', poolId: 'POOL00000000000000002' }, false],
  ])('%s → %s', (_name, scope, expected, file) => {
    expect(inScope(scope, sim, file)).toBe(expected);
  });
});

describe('trigger crossing', () => {
  const status = (from: string, to: string, source = 'console') => ({ type: 'sim' as const, subtype: 'status_change', data: { from, to, source } });
  const imei = { type: 'sim' as const, subtype: 'imei_change', data: {} };
  it.each<[string, RuleTrigger, { type: 'sim'; subtype: string; data: Record<string, unknown> }, boolean, ReadonlySet<string>?]>([
    ['active → paused on active → paused', { type: 'status_change', from: 'active', to: 'paused' }, status('active', 'paused'), true],
    ['any → paused on active → paused', { type: 'status_change', from: 'any', to: 'paused' }, status('active', 'paused'), true],
    ['active → any on paused → active', { type: 'status_change', from: 'active', to: 'any' }, status('paused', 'active'), false],
    ['any → any on a change the autoflow made', { type: 'status_change', from: 'any', to: 'any' }, status('active', 'paused', 'autoflow'), false],
    ['a status trigger on an IMEI change', { type: 'status_change', from: 'any', to: 'any' }, imei, false],
    ['IMEI any', { type: 'imei_change', mode: 'any' }, imei, true],
    ['IMEI outside a list that holds it', { type: 'imei_change', mode: 'outside_list' }, imei, false, new Set([sim.imei!])],
    ['IMEI outside a list that does not', { type: 'imei_change', mode: 'outside_list' }, imei, true, new Set(['490154203237518'])],
    [
      'a usage trigger on an event (scheduled, not event-driven)',
      { type: 'data_usage', threshold: 1, unit: 'KB', window: 'cycle' },
      status('active', 'paused'),
      false,
    ],
  ])('%s → %s', (_name, trigger, event, expected, list) => {
    expect(triggerFires(trigger, event, sim, list)).toBe(expected);
  });
});
