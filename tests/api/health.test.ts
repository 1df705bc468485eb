import { describe, expect, it } from 'vitest';
import { DB_KINDS, signedInSuite } from '../helper.js';

describe.each(DB_KINDS)('health and envelope on %s', (kind) => {
  const suite = signedInSuite(kind);

  it('answers 200 with the database state', async () => {
    const res = await suite.t.app.inject({ method: 'GET', url: '/api/health' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ status: { code: 'CB-00-0000', success: true }, data: { status: 'ok', database: { kind, ok: true } } });
  });

  it('answers unknown API paths with 404 in the envelope', async () => {
    const res = await suite.t.app.inject({ method: 'GET', url: '/api/main/nothing/here' });
    expect(res.statusCode).toBe(404);
    expect(res.json().status).toMatchObject({ success: false, code: 'CB-00-0404' });
  });

  it('answers a missing built asset with 404, not the console page', async () => {
    const res = await suite.t.app.inject({ method: 'GET', url: '/assets/index-gone.js' });
    expect(res.statusCode).toBe(404);
  });

  it('sends security headers', async () => {
    const res = await suite.t.app.inject({ method: 'GET', url: '/api/health' });
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(String(res.headers['content-security-policy'])).toContain("frame-ancestors 'none'");
  });
});
