import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../server/config.js';
import { parseDsn } from '../../server/public/error-sink.js';
import { buildTestApp, DEMO, sessionHeaders, signIn, type TestApp } from '../helper.js';

/** A stand-in for a Sentry-compatible service on loopback: the edge of the system, recorded as it is called. */
function fakeService(): Promise<{ port: number; received: Array<{ url: string; auth: string; body: Record<string, unknown> }>; close: () => void }> {
  const received: Array<{ url: string; auth: string; body: Record<string, unknown> }> = [];
  const server = http.createServer((req, res) => {
    let data = '';
    req.on('data', (c) => (data += c));
    req.on('end', () => {
      received.push({ url: req.url ?? '', auth: String(req.headers['x-sentry-auth'] ?? ''), body: JSON.parse(data || '{}') });
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"id":"x"}');
    });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve({ port: (server.address() as { port: number }).port, received, close: () => server.close() })),
  );
}

describe('error reports to a Sentry-compatible service', () => {
  let t: TestApp;
  let service: Awaited<ReturnType<typeof fakeService>>;
  beforeAll(async () => {
    service = await fakeService();
    t = await buildTestApp({ config: { sentryDsn: `http://publickey@127.0.0.1:${service.port}/42` } });
  });
  afterAll(async () => {
    await t.close();
    service.close();
  });

  it('stores the report and sends it to the DSN’s store endpoint with the account and organisation', async () => {
    const s = await signIn(t.app, DEMO.operator);
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/public/errors',
      headers: sessionHeaders(s.token, 'DEMO'),
      payload: { message: 'boom', url: '/api/main/x', status: 500 },
    });
    expect(res.statusCode).toBe(200);
    await expect.poll(() => service.received.length).toBe(1);
    const [sent] = service.received;
    expect(sent.url).toBe('/api/42/store/');
    expect(sent.auth).toMatch(/sentry_key=publickey/);
    expect(sent.body).toMatchObject({
      level: 'error',
      message: { formatted: 'boom' },
      request: { url: '/api/main/x' },
      tags: { status: '500', organisation: 'DEMO' },
      user: { id: 'acc-operator' },
    });
  });

  it('a DSN that is not one stops the server at start with a message that says what is wrong', () => {
    expect(() => parseDsn('not a url')).toThrow(/SENTRY_DSN is not a URL/);
    expect(() => loadConfig({ SENTRY_DSN: 'https://host.example.com/42' } as NodeJS.ProcessEnv)).toThrow(/<key>@<host>\/<project>/);
    expect(() => loadConfig({ SENTRY_DSN: 'https://key@host.example.com/project' } as NodeJS.ProcessEnv)).toThrow(/numeric project id/);
    expect(parseDsn('https://k@o1.ingest.example.com/7')).toEqual({ storeUrl: 'https://o1.ingest.example.com/api/7/store/', key: 'k' });
  });
});
