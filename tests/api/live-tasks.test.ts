import { beforeAll, describe, expect, it } from 'vitest';
import { BUSY_TASK_ID, DEMO_TASK_ID } from '../../server/db/seed-fleet.js';
import { call, countRows, DB_KINDS, DEMO, type Session, sessionHeaders, signedInSuite, signIn } from '../helper.js';
import { readEvents } from '../sse.js';

describe.each(DB_KINDS)('live events, 0502 and the task list on %s', (kind) => {
  const suite = signedInSuite({ kind, config: { livePollMs: 50 } });
  let base: string;
  let admin: Session;
  let operator: Session;
  let other: Session;
  beforeAll(async () => {
    await suite.t.app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(suite.t.app.server.address() as { port: number }).port}`;
    admin = await signIn(suite.t.app, DEMO.admin);
    operator = await signIn(suite.t.app, DEMO.operator);
    other = await signIn(suite.t.app, 'admin@other.example.com');
  });

  const connect = (s: Session, userId = s.accountId, extra: Record<string, string> = {}) =>
    fetch(`${base}/api/identity/sse/connect?userId=${userId}`, { headers: { ...s.headers, ...extra } });

  describe('the SSE stream', () => {
    it('opens with a ready event, then carries a rights change made by an admin to that account only', async () => {
      const mine = await connect(operator);
      expect(mine.headers.get('content-type')).toMatch(/^text\/event-stream/);
      const theirs = await connect(other);
      const received = readEvents(mine, (e) => e.some((x) => x.event === 'permissions'));
      const unrelated = readEvents(theirs, () => false, 1500);
      await new Promise((r) => setTimeout(r, 200));
      const res = await call(suite.t.app, admin, { method: 'PUT', url: '/api/main/accounts/acc-operator', payload: { role: 'user' } });
      expect(res.statusCode).toBe(200);
      const events = await received;
      expect(events[0]).toMatchObject({ event: 'ready', data: { accountId: 'acc-operator', orgCode: 'DEMO' } });
      expect(events.find((e) => e.event === 'permissions')).toMatchObject({ data: { orgId: 'org-demo', change: 'update' } });
      expect((await unrelated).map((e) => e.event)).toEqual(['ready']);
      await call(suite.t.app, admin, { method: 'PUT', url: '/api/main/accounts/acc-operator', payload: { role: 'operator' } });
    });

    it('replays what a reconnecting browser missed after its Last-Event-ID', async () => {
      const last = (await suite.t.db.query<{ id: string }>('SELECT coalesce(max(id), 0)::text AS id FROM live_events')).rows[0].id;
      await call(suite.t.app, admin, { method: 'PUT', url: '/api/main/accounts/acc-operator', payload: { role: 'user' } });
      await call(suite.t.app, admin, { method: 'PUT', url: '/api/main/accounts/acc-operator', payload: { role: 'operator' } });
      const events = await readEvents(
        await connect(operator, operator.accountId, { 'last-event-id': last }),
        (e) => e.filter((x) => x.event === 'permissions').length >= 2,
      );
      expect(events.filter((e) => e.event === 'permissions')).toHaveLength(2);
    });

    it('refuses another account’s stream, and a caller without a token', async () => {
      expect((await connect(operator, 'acc-admin')).status).toBe(403);
      expect((await fetch(`${base}/api/identity/sse/connect?userId=acc-operator`)).status).toBe(401);
      expect((await connect(operator, '')).status).toBe(400);
    });
  });

  it('the rules refresh answers the organisation list too', async () => {
    const res = await call(suite.t.app, operator, { method: 'PUT', url: '/api/identity/permission/info/cube/permission/refresh' });
    expect(res.json().data).toMatchObject({ role: 'operator', partner_code: 'DEMO' });
    expect(
      res
        .json()
        .data.roles.map((r: { code: string }) => r.code)
        .sort(),
    ).toEqual(['DEMO', 'DEMO-NORTH']);
  });

  it('answers 0502 to an account removed from the organisation it is working in, 403 for a foreign one', async () => {
    const op = await signIn(suite.t.app, DEMO.operator);
    const inNorth = { ...op, headers: sessionHeaders(op.token, 'DEMO-NORTH') };
    expect((await call(suite.t.app, inNorth, { method: 'GET', url: '/api/main/orgs' })).statusCode).toBe(200);
    const northAdmin = { ...admin, headers: sessionHeaders(admin.token, 'DEMO-NORTH') };
    expect(
      (await call(suite.t.app, northAdmin, { method: 'DELETE', url: '/api/identity/permission/info/cube/permissions/DEMO-NORTH/acc-operator' })).statusCode,
    ).toBe(200);
    const res = await call(suite.t.app, inNorth, { method: 'GET', url: '/api/main/orgs' });
    expect(res.statusCode).toBe(403);
    expect(res.json().status).toMatchObject({ code: '0502', message: 'Your session has expired. Please sign in again.' });
    const foreign = await call(suite.t.app, { ...op, headers: sessionHeaders(op.token, 'OTHER') }, { method: 'GET', url: '/api/main/orgs' });
    expect(foreign.json().status.code).not.toBe('0502');
    // A session started after the removal sees an ordinary 403 for that organisation.
    const later = await signIn(suite.t.app, DEMO.operator);
    expect(
      (await call(suite.t.app, { ...later, headers: sessionHeaders(later.token, 'DEMO-NORTH') }, { method: 'GET', url: '/api/main/orgs' })).json().status.code,
    ).not.toBe('0502');
  });

  describe('my tasks', () => {
    const list = (s: Session, query = '') => call(suite.t.app, s, { method: 'GET', url: `/api/job/rest/job/my${query}` });

    it('lists my tasks of the last 7 days in the current organisation, newest first', async () => {
      await suite.t.db.query(
        `INSERT INTO tasks (org_id, id, account_id, reference_id, kind, status, progress, started_at, ended_at, created_at)
         VALUES ('org-demo', 'OldTask000000000000', 'acc-admin', 'T-OLD', 'sim_export', 'done', 100, now() - interval '8 days', now() - interval '8 days', now() - interval '8 days')`,
      );
      const res = await list(admin);
      expect(res.statusCode).toBe(200);
      const data = res.json().data;
      const ids = data.items.map((i: { id: string }) => i.id);
      expect(ids).toEqual(expect.arrayContaining([DEMO_TASK_ID, BUSY_TASK_ID]));
      expect(ids).not.toContain('OldTask000000000000');
      expect(data.total).toBe(
        await countRows(suite.t.db, 'tasks', "org_id = 'org-demo' AND account_id = 'acc-admin' AND created_at > now() - interval '7 days'"),
      );
      expect(data.processing).toBe(1);
      const created = data.items.map((i: { createdAt: string }) => i.createdAt);
      expect([...created].sort().reverse()).toEqual(created);
      expect(data.items.find((i: { id: string }) => i.id === DEMO_TASK_ID)).toMatchObject({
        status: 'done',
        task: 'sim_export',
        hasReport: true,
        progress: 100,
      });
    });

    it('filters by status and pages', async () => {
      expect((await list(admin, '?status=processing')).json().data.items.map((i: { id: string }) => i.id)).toEqual([BUSY_TASK_ID]);
      expect((await list(admin, '?pageSize=1&page=2')).json().data.items).toHaveLength(1);
    });

    it.each([
      ['?pageSize=0', 'Page size must be between 1 and 100'],
      ['?pageSize=101', 'Page size must be between 1 and 100'],
      ['?status=stuck', 'Status must be one of: processing, done, issues'],
    ])('refuses %s', async (query, message) => {
      const res = await list(admin, query);
      expect(res.statusCode).toBe(400);
      expect(res.json().status.message).toBe(message);
    });

    it('shows another account’s or another organisation’s task to no one else', async () => {
      expect((await call(suite.t.app, admin, { method: 'GET', url: `/api/job/rest/job/my/${DEMO_TASK_ID}` })).json().data.id).toBe(DEMO_TASK_ID);
      expect((await call(suite.t.app, operator, { method: 'GET', url: `/api/job/rest/job/my/${DEMO_TASK_ID}` })).statusCode).toBe(404);
      expect((await call(suite.t.app, other, { method: 'GET', url: `/api/job/rest/job/my/${DEMO_TASK_ID}` })).statusCode).toBe(404);
      expect((await list(other)).json().data.items.every((i: { id: string }) => i.id !== DEMO_TASK_ID)).toBe(true);
    });
  });
});
