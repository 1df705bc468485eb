import { describe, expect, it } from 'vitest';
import { translate } from '../../common/i18n.js';
import type { Language } from '../../common/limits.js';
import { call, countRows, DB_KINDS, DEMO, signedInSuite, signIn } from '../helper.js';

describe.each(DB_KINDS)('brand and telemetry on %s', (kind) => {
  const suite = signedInSuite(kind);

  it.each([
    ['localhost', 'DEMO', 'default'],
    ['localhost:8080', 'DEMO', 'default'],
    ['http://nova.localhost:8080/en-US/login', 'NOVA', 'nova'],
    ['AURORA.localhost', 'AURORA', 'aurora'],
    ['terra.localhost', 'TERRA', 'terra'],
  ])('the host %s selects brand %s (%s)', async (url, partnerCode, variant) => {
    const res = await suite.t.app.inject({ method: 'GET', url: `/api/main/brand/logo?url=${encodeURIComponent(url)}` });
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toMatchObject({ partnerCode, variant, theme: { themeColor: expect.stringMatching(/^#[0-9a-f]{6}$/) } });
  });

  it.each(['127.0.0.1:8080', 'unknown.example.com'])('an unknown host (%s) gets the default brand whole, support and contact included', async (url) => {
    const res = await suite.t.app.inject({ method: 'GET', url: `/api/main/brand/logo?url=${url}` });
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toMatchObject({
      partnerCode: 'DEMO',
      variant: 'default',
      theme: { support: { hideSupport: false, englishEmail: 'support@demo.example.com' } },
    });
  });

  it('the url of the brand call is required', async () => {
    expect((await suite.t.app.inject({ method: 'GET', url: '/api/main/brand/logo' })).json().status.message).toBe('url is required');
  });

  it('stores page views with the account when signed in', async () => {
    const s = await signIn(suite.t.app, DEMO.user);
    expect(
      (await call(suite.t.app, s, { method: 'POST', url: '/api/public/analytics/pageview', payload: { path: '/en-US/dashboard/analysis' } })).statusCode,
    ).toBe(200);
    expect((await suite.t.app.inject({ method: 'POST', url: '/api/public/analytics/pageview', payload: { path: '/en-US/login' } })).statusCode).toBe(200);
    expect(await countRows(suite.t.db, 'page_views', "account_id = 'acc-user' AND org_id = 'org-demo'")).toBe(1);
    expect(await countRows(suite.t.db, 'page_views', 'account_id IS NULL')).toBe(1);
    const long = await suite.t.app.inject({ method: 'POST', url: '/api/public/analytics/pageview', payload: { path: 'x'.repeat(501) } });
    expect(long.json().status.message).toBe('path must be at most 500 characters long');
  });

  it('stores error reports and refuses oversized ones', async () => {
    const ok = await suite.t.app.inject({ method: 'POST', url: '/api/public/errors', payload: { message: 'boom', url: '/api/main/x', status: 500 } });
    expect(ok.statusCode).toBe(200);
    expect(await countRows(suite.t.db, 'error_reports', "message = 'boom' AND status = 500")).toBe(1);
    const big = await suite.t.app.inject({ method: 'POST', url: '/api/public/errors', payload: { message: 'm'.repeat(2001) } });
    expect(big.statusCode).toBe(400);
  });

  describe('telemetry files reports under the caller’s own organisation, small and limited', () => {
    const PAGEVIEW = '/api/public/analytics/pageview';
    const ERRORS = '/api/public/errors';

    it('an anonymous report is filed under no organisation, whatever partnerCode names', async () => {
      await suite.t.app.inject({ method: 'POST', url: PAGEVIEW, headers: { partnercode: 'OTHER' }, payload: { path: '/anon-view' } });
      await suite.t.app.inject({ method: 'POST', url: ERRORS, headers: { partnercode: 'OTHER' }, payload: { message: 'anon-error' } });
      // A forged token is anonymous too.
      await suite.t.app.inject({
        method: 'POST',
        url: ERRORS,
        headers: { partnercode: 'OTHER', authorization: 'Bearer forged.token.x' },
        payload: { message: 'forged-error' },
      });
      expect(await countRows(suite.t.db, 'page_views', "path = '/anon-view' AND account_id IS NULL AND org_id IS NULL")).toBe(1);
      expect(await countRows(suite.t.db, 'error_reports', "message IN ('anon-error', 'forged-error') AND account_id IS NULL AND org_id IS NULL")).toBe(2);
    });

    it('a signed-in report naming an organisation the account is no member of is filed under its default, never that one', async () => {
      const s = await signIn(suite.t.app, DEMO.user);
      const headers = { ...s.headers, partnercode: 'OTHER', tenantid: 'OTHER' };
      expect((await suite.t.app.inject({ method: 'POST', url: PAGEVIEW, headers, payload: { path: '/cross-view' } })).statusCode).toBe(200);
      expect((await suite.t.app.inject({ method: 'POST', url: ERRORS, headers, payload: { message: 'cross-error' } })).statusCode).toBe(200);
      expect(await countRows(suite.t.db, 'page_views', "path = '/cross-view' AND account_id = 'acc-user' AND org_id = 'org-demo'")).toBe(1);
      expect(await countRows(suite.t.db, 'error_reports', "message = 'cross-error' AND account_id = 'acc-user' AND org_id = 'org-demo'")).toBe(1);
      expect(await countRows(suite.t.db, 'error_reports', "org_id = 'org-other'")).toBe(0);
    });

    it('a signed-in report naming another organisation of the account is filed there', async () => {
      const s = await signIn(suite.t.app, DEMO.operator);
      const headers = { ...s.headers, partnercode: 'DEMO-NORTH', tenantid: 'DEMO-NORTH' };
      await suite.t.app.inject({ method: 'POST', url: ERRORS, headers, payload: { message: 'north-error' } });
      expect(await countRows(suite.t.db, 'error_reports', "message = 'north-error' AND account_id = 'acc-operator' AND org_id = 'org-demo-north'")).toBe(1);
    });

    it.each([PAGEVIEW, ERRORS])('%s refuses a body over 16 KB with 413 naming the limit, in the caller’s language', async (url) => {
      const payload = JSON.stringify({ path: '/x', message: 'x', referrer: 'r'.repeat(17 * 1024) });
      const before = (await countRows(suite.t.db, 'page_views')) + (await countRows(suite.t.db, 'error_reports'));
      for (const language of ['en-US', 'es-ES', 'zh-CN', 'zh-TW']) {
        const res = await suite.t.app.inject({ method: 'POST', url, headers: { 'content-type': 'application/json', language }, payload });
        expect(res.statusCode).toBe(413);
        const { status, data } = res.json();
        expect(status).toMatchObject({
          code: 'CB-00-0422',
          success: false,
          message: translate(language as Language, 'errors.bodyTooLarge', { limit: '16 KB' }),
        });
        expect(status.message).toContain('16 KB');
        expect(data).toMatchObject({ field: 'body' });
      }
      expect((await countRows(suite.t.db, 'page_views')) + (await countRows(suite.t.db, 'error_reports'))).toBe(before);
    });
  });
});
