/**
 * The findings of the hardening issue about input, each by name (the walk in hostile-input.test.ts covers every route):
 * text PostgreSQL cannot store, numbers out of any range, bodies that cannot be read, a missing record told apart from
 * a missing call, and the export of ticked CDRs.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { answerOf, call, countRows, DB_KINDS, DEMO, signedInSuite } from '../helper.js';

describe.each(DB_KINDS)('input at the edge on %s', (kind) => {
  const suite = signedInSuite(kind, { admin: DEMO.admin });
  let iccid: string;
  beforeAll(async () => {
    iccid = (await suite.t.db.query<{ iccid: string }>("SELECT iccid FROM sims WHERE org_id = 'org-demo' ORDER BY iccid LIMIT 1")).rows[0].iccid;
  });

  const post = (url: string, payload: unknown, language = 'en-US') =>
    call(suite.t.app, suite.admin, { method: 'POST', url, payload: payload as object, headers: { language } });
  const get = (url: string, headers: Record<string, string> = {}) => call(suite.t.app, suite.admin, { method: 'GET', url, headers });

  it('a NUL in a body field is refused by the field, and nothing is written', async () => {
    const before = await countRows(suite.t.db, 'sims', "device_name LIKE '%bad%'");
    const res = await post('/api/main/sim/deviceName', { iccid, deviceName: 'bad\u0000name' });
    expect(res.statusCode).toBe(400);
    expect(res.json().data).toEqual({ field: 'deviceName', rule: 'unsafeText' });
    expect(res.json().status.message).toBe('Device name must not contain the NUL character or broken Unicode (a lone surrogate)');
    expect(await countRows(suite.t.db, 'sims', "device_name LIKE '%bad%'")).toBe(before);
  });

  it("a lone surrogate in a body field is refused by the field, in the caller's language", async () => {
    const res = await call(suite.t.app, suite.admin, {
      method: 'POST',
      url: '/api/main/orgs',
      payload: '{"name":"North \\ud800 depot","country":"DE","smsQuota":1}',
      headers: { 'content-type': 'application/json', language: 'es-ES' },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().data.field).toBe('name');
    expect(res.json().status.message).toBe('El campo «Nombre» no debe contener el carácter NUL ni Unicode roto (un sustituto aislado)');
  });

  it("a URL whose percent-encoding is broken is refused in a sentence of its own, in the caller's language", async () => {
    const en = await get('/api/main/sim/%E0%A4%A');
    expect(en.statusCode).toBe(400);
    expect(en.json().data).toEqual({ field: 'url', rule: 'badUrl' });
    expect(en.json().status.message).toBe('The request URL is not valid (broken percent-encoding)');
    expect((await get('/api/main/sim/%E0%A4%A', { language: 'zh-CN' })).json().status.message).toBe('请求的 URL 无效（百分号编码损坏）');
  });

  it('a NUL in a path parameter or a query answers 400 naming it, not 500', async () => {
    expect(answerOf(await get('/api/job/rest/job/my/a%00b'))).toMatchObject({ statusCode: 400, field: 'id' });
    const patch = await call(suite.t.app, suite.admin, { method: 'PATCH', url: '/api/main/change_status/accounts/a%00b', payload: { status: 'disabled' } });
    expect(patch.statusCode).toBe(400);
    expect(answerOf(await get(`/api/main/sim/basic?iccid=${iccid}%00`))).toMatchObject({ statusCode: 400, field: 'iccid' });
  });

  it('a NUL in the partnerCode header is refused before the membership is read', async () => {
    const res = await call(suite.t.app, suite.admin, { method: 'GET', url: '/api/main/sim/basic?iccid=' + iccid, headers: { partnercode: 'DE\u0000MO' } });
    expect(res.statusCode).toBe(400);
    expect(res.json().data.field).toBe('partnercode');
  });

  it.each([
    ['SIM list', '/api/main/sim/list/es', {}],
    ['bundle orders', '/api/main/sim/service/list', {}],
    ['CDR list', '/api/cdr/distributor/DEMO/stdcdrs', { startAtFrom: '2026-11-01T00:00:00Z', startAtTo: '2026-11-20T00:00:00Z' }],
    ['bills', '/api/customer/cube/v2/api/customer/bills', {}],
    ['SIM bills', '/api/customer/cube/v2/api/customer/sim/bills', {}],
  ])('page 1e308 on the %s is a 400 naming page, one past the last page too', async (_name, url, base) => {
    for (const page of [1e308, 100_001]) {
      const res = await post(url, { ...base, page, pageSize: 20 });
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json().data).toEqual({ field: 'page', rule: 'maximum' });
    }
    expect((await post(url, { ...base, page: 100_000, pageSize: 20 })).statusCode).toBe(200);
  });

  it('an SMS quota above its range is refused by the schema', async () => {
    const res = await post('/api/main/orgs', { name: 'Quota Test Org', country: 'DE', smsQuota: 2 ** 63 });
    expect(res.statusCode).toBe(400);
    expect(res.json().data).toEqual({ field: 'smsQuota', rule: 'maximum' });
  });

  it('an empty body, a body that is not JSON, a poisoned body and text say what is wrong', async () => {
    const send = (payload: string, type = 'application/json') =>
      call(suite.t.app, suite.admin, { method: 'POST', url: '/api/main/sim/list/es', payload, headers: { 'content-type': type } });
    expect((await send('')).json().status.message).toBe("A body is required: send the request's fields as JSON.");
    expect((await call(suite.t.app, suite.admin, { method: 'POST', url: '/api/main/sim/deviceName' })).json().status.message).toBe(
      "A body is required: send the request's fields as JSON.",
    );
    expect((await send('{"page":')).json().status.message).toBe('The body is not valid JSON.');
    expect((await send('{"__proto__":{"isAdmin":true}}')).json().status.message).toBe('The body must not contain the key __proto__ or constructor.prototype.');
    const text = await send('page=1', 'text/plain');
    expect(text.statusCode).toBe(415);
    expect(text.json().status.message).toBe('The body must be sent as JSON (Content-Type: application/json).');
  });

  it('a record that does not exist is named; a call that does not exist is named differently', async () => {
    expect(answerOf(await get('/api/main/sim/basic?iccid=8949000000000000000'))).toMatchObject({
      statusCode: 404,
      message: 'SIM 8949000000000000000 does not exist.',
    });
    expect(answerOf(await get('/api/main/partner/DEMO/accounts/nobody', { language: 'zh-CN' }))).toMatchObject({
      statusCode: 404,
      message: '账号 nobody 不存在。',
    });
    expect(answerOf(await get('/api/main/sim/basics?iccid=1'))).toMatchObject({ statusCode: 404, message: 'There is no call GET /api/main/sim/basics.' });
  });

  it('exporting three ticked CDRs makes a file of exactly those three', async () => {
    const ids = (
      await suite.t.db.query<{ id: string; start_at: Date }>("SELECT id::text, start_at FROM cdrs WHERE org_id = 'org-demo' ORDER BY start_at DESC LIMIT 3")
    ).rows;
    expect(ids).toHaveLength(3);
    const to = new Date(ids[0].start_at.getTime() + 1000).toISOString();
    const from = new Date(ids[2].start_at.getTime() - 86_400_000).toISOString();
    const res = await post('/api/cdr/export/distributor/DEMO/cdrs', { format: 'csv', startAtFrom: from, startAtTo: to, selected: ids.map((r) => r.id) });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data.quantity).toBe(3);
    await suite.t.app.jobs.runOnce();
    const task = (await suite.t.db.query<{ status: string; quantity: number }>('SELECT status, quantity FROM tasks WHERE id = $1', [res.json().data.taskId]))
      .rows[0];
    expect(task.status).toBe('done');
    expect(task.quantity).toBe(3);
  });
});
