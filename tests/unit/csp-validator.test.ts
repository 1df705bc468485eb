import { afterEach, describe, expect, it } from 'vitest';
import { cspSafeValidator } from '../../src/resources/csp-validator';

const schema = {
  type: 'object',
  additionalProperties: false,
  required: ['name', 'country', 'smsQuota'],
  properties: {
    name: { type: 'string', minLength: 5, maxLength: 40, title: 'Name' },
    country: { type: 'string', pattern: '^[A-Z]{2}$', title: 'Country' },
    smsQuota: { type: 'integer', minimum: 1, maximum: 10000, title: 'SMS quota' },
  },
} as const;

describe('the form validator that needs no eval', () => {
  const realFunction = globalThis.Function;
  afterEach(() => {
    globalThis.Function = realFunction;
  });

  it('finds each broken rule on its field, with the limit, without compiling code', () => {
    // Under the console's CSP, new Function throws: so it does here.
    globalThis.Function = function () {
      throw new Error('eval is blocked');
    } as unknown as FunctionConstructor;
    const v = cspSafeValidator();
    const { errors } = v.validateFormData({ name: 'Abcd', country: 'austria', smsQuota: 10001 } as never, schema as never);
    const byField = Object.fromEntries(errors.map((e) => [e.property, { name: e.name, params: e.params }]));
    expect(byField).toEqual({
      '.name': { name: 'minLength', params: { limit: 5 } },
      '.country': { name: 'pattern', params: { pattern: '^[A-Z]{2}$' } },
      '.smsQuota': { name: 'maximum', params: { limit: 10000 } },
    });
  });

  it('names a missing field, and passes good data at the boundaries', () => {
    const v = cspSafeValidator();
    const missing = v.validateFormData({ name: 'Fives', smsQuota: 1 } as never, schema as never);
    expect(missing.errors.map((e) => [e.name, e.params])).toEqual([['required', { missingProperty: 'country' }]]);
    expect(v.isValid(schema as never, { name: 'B'.repeat(40), country: 'AT', smsQuota: 10000 }, schema as never)).toBe(true);
    expect(v.isValid(schema as never, { name: 'B'.repeat(41), country: 'AT', smsQuota: 10000 }, schema as never)).toBe(false);
  });
});
