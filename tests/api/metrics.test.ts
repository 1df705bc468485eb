/**
 * /metrics (Prometheus text format) and the health answer's event figures: off without METRICS_TOKEN, bearer-guarded
 * with it; request series by route pattern; the job queue, the outbox and each consumer's lag read from the database.
 * On PGlite and PostgreSQL.
 */
import { describe, expect, it } from 'vitest';
import { appendEvents } from '../../server/events/event-log.js';
import { relayOnce } from '../../server/events/relay.js';
import { DEFAULT_RATE_LIMITS } from '../../server/config.js';
import { call, DB_KINDS, DEMO, signedInSuite } from '../helper.js';
import { REDIS_URL, redisAnswers, testPrefix } from '../redis.js';

const TOKEN = 'metrics-test-token-0123456789';
const CAPTCHA_LIMIT = 3;

/** The value of one series in a Prometheus text answer, or undefined when it is absent. */
function series(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split('\n')) {
    if (line.startsWith('#') || !line.startsWith(name)) continue;
    const m = /^([a-zA-Z_:][\w:]*)(\{(.*)\})? (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const have = Object.fromEntries([...(m[3] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((l) => [l[1], l[2]]));
    if (Object.entries(labels).every(([k, v]) => have[k] === v)) return Number(m[4]);
  }
  return undefined;
}

describe.each(DB_KINDS)('metrics on %s', (kind) => {
  const suite = signedInSuite({ kind, config: { metricsToken: TOKEN, rateLimits: { ...DEFAULT_RATE_LIMITS, captcha: CAPTCHA_LIMIT } } }, { admin: DEMO.admin });
  const scrape = async (authorization?: string) => suite.t.app.inject({ method: 'GET', url: '/metrics', headers: authorization ? { authorization } : {} });

  it('answers only to the bearer token', async () => {
    expect((await scrape()).statusCode).toBe(401);
    expect((await scrape(`Bearer ${TOKEN}x`)).statusCode).toBe(401);
    expect((await scrape(`Basic ${TOKEN}`)).statusCode).toBe(401);
    const ok = await scrape(`Bearer ${TOKEN}`);
    expect(ok.statusCode).toBe(200);
    expect(ok.headers['content-type']).toContain('text/plain');
    expect(ok.body).toContain('# TYPE http_requests_total counter');
  });

  it('counts requests by route pattern and status class, never by raw URL', async () => {
    const before = series((await scrape(`Bearer ${TOKEN}`)).body, 'http_requests_total', { method: 'GET', route: '/api/health', status: '2xx' }) ?? 0;
    for (let i = 0; i < 3; i++) await suite.t.app.inject({ method: 'GET', url: '/api/health' });
    await suite.t.app.inject({ method: 'GET', url: '/api/no/such/route/12345' });
    const text = (await scrape(`Bearer ${TOKEN}`)).body;
    expect(series(text, 'http_requests_total', { method: 'GET', route: '/api/health', status: '2xx' })).toBe(before + 3);
    expect(series(text, 'http_request_duration_seconds_count', { method: 'GET', route: '/api/health' })).toBeGreaterThanOrEqual(3);
    expect(text).not.toContain('12345');
    expect(text).not.toMatch(/route="\/metrics"/);
  });

  it('reports the job queue, the outbox and each consumer’s lag from the database', async () => {
    const exported = await call(suite.t.app, suite.admin, { method: 'POST', url: '/api/main/sim/list/export/task', payload: { format: 'csv' } });
    expect(exported.statusCode).toBe(200);
    const orgId = (await suite.t.db.query<{ id: string }>('SELECT id FROM organisations WHERE code = $1', [suite.admin.partnerCode])).rows[0]!.id;
    // The probe consumer starts after everything written so far is numbered: what it waits for is the three below.
    while ((await relayOnce(suite.t.db)) > 0);
    await suite.t.db.query(`INSERT INTO event_consumers (name, position_seq) SELECT 'metrics_probe', last FROM event_sequence`);
    await appendEvents(
      suite.t.db,
      [1, 2, 3].map((n) => ({ orgId, type: 'org' as const, subtype: 'probe', data: { n } })),
    );

    let text = (await scrape(`Bearer ${TOKEN}`)).body;
    expect(series(text, 'job_queue_tasks', { kind: 'sim_export', state: 'waiting' })).toBeGreaterThanOrEqual(1);
    expect(series(text, 'events_outbox_pending')).toBeGreaterThanOrEqual(3);
    // Health says the same.
    const health = (await suite.t.app.inject({ method: 'GET', url: '/api/health' })).json().data;
    expect(health.events.outbox).toBeGreaterThanOrEqual(3);

    // Numbered by the relay, the three wait for the probe consumer, which has read nothing.
    while ((await relayOnce(suite.t.db)) > 0);
    text = (await scrape(`Bearer ${TOKEN}`)).body;
    expect(series(text, 'events_outbox_pending')).toBe(0);
    expect(series(text, 'events_consumer_lag', { consumer: 'metrics_probe' })).toBe(3);
    expect(series(text, 'events_consumer_dead_letters', { consumer: 'metrics_probe' })).toBe(0);
    await suite.t.db.query("DELETE FROM event_consumers WHERE name = 'metrics_probe'");
  });

  it('reports how long the oldest task of each kind has waited', async () => {
    const exported = await call(suite.t.app, suite.admin, { method: 'POST', url: '/api/main/sim/list/export/task', payload: { format: 'xlsx' } });
    expect(exported.statusCode).toBe(200);
    // Queued a minute ago, as a task a stuck worker never took would be.
    await suite.t.db.query(`UPDATE tasks SET created_at = now() - interval '1 minute' WHERE id = $1`, [exported.json().data.taskId]);
    const age = series((await scrape(`Bearer ${TOKEN}`)).body, 'job_queue_oldest_seconds', { kind: 'sim_export' });
    expect(age).toBeGreaterThanOrEqual(60);
    expect(age).toBeLessThan(3600);
  });

  it('counts the calls the rate limits refuse, by limit', async () => {
    const before = series((await scrape(`Bearer ${TOKEN}`)).body, 'http_rate_limited_total', { group: 'captcha' }) ?? 0;
    const answers: number[] = [];
    for (let i = 0; i < CAPTCHA_LIMIT + 2; i++)
      answers.push((await suite.t.app.inject({ method: 'GET', url: '/api/identity/captcha', remoteAddress: '203.0.113.77' })).statusCode);
    expect(answers.filter((c) => c === 429)).toHaveLength(2);
    expect(series((await scrape(`Bearer ${TOKEN}`)).body, 'http_rate_limited_total', { group: 'captcha' })).toBe(before + 2);
  });

  if (kind === 'postgres') {
    it('reports the PostgreSQL pool', async () => {
      const text = (await scrape(`Bearer ${TOKEN}`)).body;
      expect(series(text, 'db_pool_connections', { state: 'total' })).toBeGreaterThanOrEqual(1);
      expect(series(text, 'db_pool_connections', { state: 'waiting' })).toBe(0);
    });
  }
});

describe.runIf(redisAnswers)('metrics with REDIS_URL', () => {
  const suite = signedInSuite({ kind: 'pglite', config: { metricsToken: TOKEN, redisUrl: REDIS_URL, redisPrefix: testPrefix() } });
  it('say whether the instance is connected to Redis', async () => {
    const res = await suite.t.app.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${TOKEN}` } });
    expect(series(res.body, 'redis_connected')).toBe(1);
  });
});

describe('metrics without METRICS_TOKEN', () => {
  const suite = signedInSuite('pglite');
  it('are off', async () => {
    const res = await suite.t.app.inject({ method: 'GET', url: '/metrics', headers: { authorization: 'Bearer anything' } });
    expect(res.statusCode).toBe(404);
  });
});
