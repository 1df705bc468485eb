/**
 * The console's HTTP helper against the real server: the refresh queue of SPEC.md section 4.
 * Node stands in for the browser: a Map for localStorage and a fetch that keeps the cookie, as a browser does.
 */
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { dataProvider } from '../../src/providers/data-provider.js';
import { api, configureHttp, download, upload, type HttpEvent } from '../../src/providers/http.js';
import { disconnectLive, subscribeLive } from '../../src/providers/live.js';
import { store } from '../../src/providers/session-store.js';
import { publishLive } from '../../server/live/hub.js';
import { defineRoutes } from '../../server/http/route.js';
import { countRows, DEMO, DEMO_PASSWORD, signedInSuite, TEST_CODE } from '../helper.js';

/** Fixture routes at the edge of what the console sends: a multipart upload and a file download. */
const fixtures = defineRoutes([
  {
    service: 'main',
    method: 'POST',
    path: '/fixture/upload',
    permission: 'signedIn',
    schema: { response: {} },
    handler: async (req) => {
      const file = await req.file();
      const bytes = await file!.toBuffer();
      return {
        filename: file!.filename,
        size: bytes.length,
        note: (file!.fields.note as { value?: string } | undefined)?.value ?? null,
        scene: req.headers.scene ?? null,
      };
    },
  },
  {
    service: 'main',
    method: 'GET',
    path: '/fixture/download',
    permission: 'signedIn',
    raw: true,
    schema: { response: {} },
    handler: async (_req, reply) =>
      reply
        .header('content-type', 'text/csv')
        .header('content-disposition', "attachment; filename*=UTF-8''sims%20export.csv")
        .send('iccid\n8949000000000000001\n'),
  },
]);

const memory = new Map<string, string>();
Object.assign(globalThis, {
  localStorage: {
    getItem: (k: string) => memory.get(k) ?? null,
    setItem: (k: string, v: string) => memory.set(k, String(v)),
    removeItem: (k: string) => memory.delete(k),
    clear: () => memory.clear(),
  },
  sessionStorage: { clear: () => undefined },
});

describe('console HTTP helper', () => {
  const suite = signedInSuite({ routes: fixtures, config: { livePollMs: 50 } });
  let cookie = '';
  const calls: string[] = [];
  const events: HttpEvent[] = [];
  /** When set, the next call's answer is held until this resolves (an answer that arrives late). */
  let holdNext: Promise<void> | null = null;

  beforeAll(async () => {
    await suite.t.app.listen({ port: 0, host: '127.0.0.1' });
    const address = suite.t.app.server.address() as { port: number };
    configureHttp({
      baseUrl: `http://127.0.0.1:${address.port}`,
      onEvent: (e) => events.push(e),
      fetch: async (input, init) => {
        calls.push(String(input));
        const res = await fetch(input, { ...init, headers: { ...(init?.headers as Record<string, string>), cookie } });
        const set = res.headers.get('set-cookie');
        if (set) cookie = set.split(';')[0];
        const hold = holdNext;
        holdNext = null;
        if (hold) await hold;
        return res;
      },
    });
  });

  beforeEach(async () => {
    memory.clear();
    calls.length = 0;
    events.length = 0;
    const s = await api<{ user: { token: string; id: string }; customData: { partner_code: string } }>(
      'POST',
      '/api/identity/sso/signin/direct/cube/offline-access',
      { username: DEMO.admin, password: DEMO_PASSWORD, verificationCode: TEST_CODE, agreeTerms: true },
      { quiet: true },
    );
    store.set('token', s.user.token);
    store.set('partnerCode', s.customData.partner_code);
    store.set('userId', s.user.id);
  });

  const expireToken = async () => {
    const sid = (await suite.t.db.query<{ id: string }>("SELECT id FROM sessions WHERE account_id = 'acc-admin' ORDER BY created_at DESC LIMIT 1")).rows[0].id;
    store.set('token', await suite.t.app.tokens.sign({ sub: 'acc-admin', sid }, -10));
    return sid;
  };

  it('sends the headers of SPEC.md section 7 and unwraps the envelope', async () => {
    const orgs = await api<Array<{ code: string }>>('GET', '/api/main/orgs');
    expect(orgs.map((o) => o.code)).toContain('DEMO');
  });

  it('refreshes once for 5 calls in flight with an expired token, and all 5 succeed', async () => {
    const sid = await expireToken();
    const before = await countRows(suite.t.db, 'refresh_tokens', 'family_id = $1', [sid]);
    calls.length = 0;
    const results = await Promise.all(Array.from({ length: 5 }, () => api<unknown[]>('GET', '/api/main/orgs')));
    expect(results.every((r) => Array.isArray(r) && r.length > 0)).toBe(true);
    expect(calls.filter((c) => c.includes('/refresh')).length).toBe(1);
    // The server counts exactly one refresh: one new token in the family.
    expect(await countRows(suite.t.db, 'refresh_tokens', 'family_id = $1', [sid])).toBe(before + 1);
    expect(events).toEqual([]);
  });

  it('a call refused for the old token after the one refresh has ended is replayed with the new token, without a second refresh', async () => {
    await expireToken();
    calls.length = 0;
    let release = () => {};
    holdNext = new Promise<void>((resolve) => (release = resolve));
    const late = api<unknown[]>('GET', '/api/main/orgs');
    // Another call meets the expired token, refreshes and is replayed while the first one's answer is held.
    expect(await api<unknown[]>('GET', '/api/main/orgs')).not.toHaveLength(0);
    await new Promise((resolve) => setTimeout(resolve, 10));
    release();
    expect(await late).not.toHaveLength(0);
    expect(calls.filter((c) => c.includes('/refresh'))).toHaveLength(1);
    expect(events).toEqual([]);
  });

  it('a failed refresh drops the queue, removes the token and signs out with the server message', async () => {
    const sid = await expireToken();
    await suite.t.db.query('UPDATE sessions SET revoked_at = now() WHERE id = $1', [sid]);
    const results = await Promise.allSettled(Array.from({ length: 3 }, () => api('GET', '/api/main/orgs')));
    expect(results.every((r) => r.status === 'rejected')).toBe(true);
    expect(store.get('token')).toBeNull();
    expect(events).toEqual([{ type: 'signedOut', message: 'Refresh token error, please sign in again.' }]);
  });

  it('a 401 with a stored token clears storage and goes to /401', async () => {
    store.set('token', 'garbage.token.value');
    await expect(api('GET', '/api/main/orgs')).rejects.toMatchObject({ statusCode: 401 });
    expect(memory.size).toBe(0);
    expect(events).toEqual([{ type: 'tokenExpired' }]);
  });

  it('a 403 shows Permission denied', async () => {
    store.set('partnerCode', 'OTHER');
    await expect(api('GET', '/api/main/orgs')).rejects.toMatchObject({ statusCode: 403, message: 'Permission denied' });
    expect(events).toEqual([{ type: 'toast', message: 'Permission denied', statusCode: 403, code: 'CB-00-0403' }]);
  });

  it('no response is a Network Error', async () => {
    configureHttp({ baseUrl: 'http://127.0.0.1:1' });
    try {
      await expect(api('GET', '/api/main/orgs')).rejects.toMatchObject({ message: 'Network Error', statusCode: 0 });
    } finally {
      const address = suite.t.app.server.address() as { port: number };
      configureHttp({ baseUrl: `http://127.0.0.1:${address.port}` });
    }
  });

  it('uploads a file with fields and extra headers as multipart', async () => {
    const form = new FormData();
    form.append('note', 'hello');
    form.append('file', new Blob(['a,b\n1,2\n']), 'transfer.csv');
    const r = await upload<{ filename: string; size: number; note: string; scene: string }>('/api/main/fixture/upload', form, { headers: { scene: 'rule' } });
    expect(r).toEqual({ filename: 'transfer.csv', size: 8, note: 'hello', scene: 'rule' });
  });

  it('refuses a file of 1 MB + 1 byte by name and rule; accepts exactly 1 MB', async () => {
    const big = new FormData();
    big.append('file', new Blob([new Uint8Array(1024 * 1024 + 1)]), 'big.csv');
    await expect(upload('/api/main/fixture/upload', big)).rejects.toMatchObject({ statusCode: 400, message: 'File must be at most 1 MB' });
    expect(events).toEqual([{ type: 'toast', message: 'File must be at most 1 MB', statusCode: 400, code: 'CB-00-0422' }]);
    const exact = new FormData();
    exact.append('file', new Blob([new Uint8Array(1024 * 1024)]), 'exact.csv');
    expect((await upload<{ size: number }>('/api/main/fixture/upload', exact)).size).toBe(1024 * 1024);
  });

  it('downloads a file with the name the server gave it, after a refresh when the token expired', async () => {
    await expireToken();
    const file = await download('GET', '/api/main/fixture/download');
    expect(file.filename).toBe('sims export.csv');
    expect(await file.blob.text()).toBe('iccid\n8949000000000000001\n');
  });

  it('the data provider pages and filters a list on the server', async () => {
    const meta = { list: 'GET /api/job/rest/job/my', one: 'GET /api/job/rest/job/my/:id' };
    const page = await dataProvider.getList({
      resource: 'tasks',
      pagination: { currentPage: 1, pageSize: 2 },
      filters: [{ field: 'status', operator: 'eq', value: 'processing' }],
      meta,
    });
    expect(page.total).toBe(1);
    expect(page.data[0].status).toBe('processing');
    const one = await dataProvider.getOne({ resource: 'tasks', id: page.data[0].id as string, meta });
    expect(one.data.id).toBe(page.data[0].id);
    await expect(dataProvider.getList({ resource: 'tasks', pagination: { currentPage: 1, pageSize: 101 }, meta })).rejects.toMatchObject({
      statusCode: 400,
      message: 'Page size must be between 1 and 100',
    });
  });

  it('the live provider delivers the server’s events to listeners of their type', async () => {
    const received: unknown[] = [];
    const ready = new Promise<void>((resolve) => {
      const stop = subscribeLive('ready', () => {
        stop();
        resolve();
      });
    });
    const stop = subscribeLive('task', (data) => received.push(data));
    try {
      await ready;
      await new Promise((r) => setTimeout(r, 120));
      await publishLive(suite.t.db, { type: 'task', accountId: 'acc-admin', data: { id: 'T1', progress: 40 } });
      await publishLive(suite.t.db, { type: 'task', accountId: 'acc-operator', data: { id: 'T2', progress: 10 } });
      await expect.poll(() => received, { timeout: 3000 }).toEqual([{ id: 'T1', progress: 40 }]);
    } finally {
      stop();
      disconnectLive();
    }
  });
});
