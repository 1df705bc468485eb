import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, call, countRows, DB_KINDS, DEMO, signIn, type TestApp } from '../helper.js';

describe.each(DB_KINDS)('brand and telemetry on %s', (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp({ kind });
  });
  afterAll(() => t.close());

  it.each([
    ['localhost', 'DEMO', 'default'],
    ['localhost:8080', 'DEMO', 'default'],
    ['http://nova.localhost:8080/en-US/login', 'NOVA', 'nova'],
    ['AURORA.localhost', 'AURORA', 'aurora'],
    ['terra.localhost', 'TERRA', 'terra'],
  ])('the host %s selects brand %s (%s)', async (url, partnerCode, variant) => {
    const res = await t.app.inject({ method: 'GET', url: `/api/main/brand/logo?url=${encodeURIComponent(url)}` });
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toMatchObject({ partnerCode, variant, theme: { themeColor: expect.stringMatching(/^#[0-9a-f]{6}$/) } });
  });

  it('an unknown host answers 404 so the console uses the red default', async () => {
    expect((await t.app.inject({ method: 'GET', url: '/api/main/brand/logo?url=unknown.example.com' })).statusCode).toBe(404);
    expect((await t.app.inject({ method: 'GET', url: '/api/main/brand/logo' })).json().status.message).toBe('url: is required');
  });

  it('stores page views with the account when signed in', async () => {
    const s = await signIn(t.app, DEMO.user);
    expect((await call(t.app, s, { method: 'POST', url: '/api/public/analytics/pageview', payload: { path: '/en-US/dashboard/analysis' } })).statusCode).toBe(200);
    expect((await t.app.inject({ method: 'POST', url: '/api/public/analytics/pageview', payload: { path: '/en-US/login' } })).statusCode).toBe(200);
    expect(await countRows(t.db, 'page_views', "account_id = 'acc-user' AND org_id = 'org-demo'")).toBe(1);
    expect(await countRows(t.db, 'page_views', 'account_id IS NULL')).toBe(1);
    const long = await t.app.inject({ method: 'POST', url: '/api/public/analytics/pageview', payload: { path: 'x'.repeat(501) } });
    expect(long.json().status.message).toBe('path: must be at most 500 characters');
  });

  it('stores error reports and refuses oversized ones', async () => {
    const ok = await t.app.inject({ method: 'POST', url: '/api/public/errors', payload: { message: 'boom', url: '/api/main/x', status: 500 } });
    expect(ok.statusCode).toBe(200);
    expect(await countRows(t.db, 'error_reports', "message = 'boom' AND status = 500")).toBe(1);
    const big = await t.app.inject({ method: 'POST', url: '/api/public/errors', payload: { message: 'm'.repeat(2001) } });
    expect(big.statusCode).toBe(400);
  });
});
