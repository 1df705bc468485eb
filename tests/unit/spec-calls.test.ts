/** Every call of SPEC.md section 7 is a route of the server, or its exception is recorded with a reason. */
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ALL_ROUTES } from '../../server/routes.js';
import { SPEC_CALL_EXCEPTIONS } from '../../scripts/spec-call-exceptions.js';
import { missingCalls, normalise, parseSection7 } from '../../scripts/spec-calls-lib.js';

const section7 = fs.readFileSync(new URL('../fixtures/spec-section7.md', import.meta.url), 'utf8');

describe('SPEC.md section 7 against the routes', () => {
  const { calls, unparsed } = parseSection7(section7);

  it('reads every call of the section: each fragment is a path or read by hand', () => {
    expect(unparsed).toEqual([]);
    expect(calls.length).toBeGreaterThan(170);
    expect(calls).toContainEqual(expect.objectContaining({ method: 'DELETE', path: '/permission/info/cube/permissions/{a}/{b}/batch' }));
    expect(calls).toContainEqual(expect.objectContaining({ method: 'PUT', path: '/orgs/smsOperService' }));
  });

  it('answers each call with a route, or names why not', () => {
    const missing = missingCalls(
      calls,
      ALL_ROUTES.map((r) => ({ method: r.method, path: r.path })),
    );
    const unexplained = missing.filter((c) => !SPEC_CALL_EXCEPTIONS[`${c.method} ${normalise(c.path)}`]).map((c) => `${c.method} ${c.path}`);
    expect(unexplained).toEqual([]);
  });

  it('answers the CDR, job and organisation calls of SPEC.md section 7', () => {
    const missing = missingCalls(
      calls,
      ALL_ROUTES.map((r) => ({ method: r.method, path: r.path })),
    ).map((c) => `${c.method} ${c.path}`);
    for (const call of [
      'GET /stdcdrs/{id}',
      'GET /info_country_areas',
      'GET /sum/{a}/stdcdrs/{b}',
      'POST /export/distributor/{a}/{b}/cdrs',
      'POST /export/all/distributor/{a}/{b}/cdrs',
      'GET /rest/logs/provider/result/{id}',
      'GET /rest/subscribe/group',
      'PUT /rest/subscribe/group',
      'POST /rest/subscribe/group',
      'GET /enterprises/selectByOrgCode/{code}',
      'PUT /enterprises',
    ]) {
      expect(missing).not.toContain(call);
    }
  });
});
