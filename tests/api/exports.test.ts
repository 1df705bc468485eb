/**
 * Exports through the task center: the request's refusals (none selected, no data, over 100,000), the job writing
 * CSV and XLSX with exactly the rows of the query, the one-time download link, and a job interrupted by a restart.
 */
import { unzipSync, strFromU8 } from 'fflate';
import { beforeAll, describe, expect, it } from 'vitest';
import { scaleSeed, SCALE_ORG } from '../../bench/scale-seed.js';
import { call, DB_KINDS, DEMO, type Session, signedInSuite, signIn } from '../helper.js';

const SIM_EXPORT = '/api/main/sim/list/export/task';

/** The rows of a CSV export (after the byte-order mark), split simply: the fields exported here hold no commas. */
const csvRows = (text: string) =>
  text
    .replace(/^\uFEFF/, '')
    .trim()
    .split('\r\n')
    .map((l) => l.split(','));

describe.each(DB_KINDS)('exports on %s', (kind) => {
  const suite = signedInSuite(kind, { admin: DEMO.admin, user: DEMO.user });

  const exportSims = (s: Session, body: object, language = 'en-US') =>
    call(suite.t.app, s, { method: 'POST', url: SIM_EXPORT, payload: body, headers: { language } });
  const task = async (id: string) =>
    (
      await suite.t.db.query<{ status: string; progress: number; result_file_id: string | null; quantity: number }>(
        'SELECT status, progress, result_file_id, quantity FROM tasks WHERE id = $1',
        [id],
      )
    ).rows[0];
  const download = async (s: Session, taskId: string) => {
    const token = await call(suite.t.app, s, { method: 'GET', url: `/api/job/rest/job/my/oneTimeToken?id=${taskId}` });
    expect(token.statusCode).toBe(200);
    const url = token.json().data.url as string;
    return Object.assign(await suite.t.app.inject({ method: 'GET', url }), { url });
  };

  it.each([
    ['no rows ticked', { format: 'csv', selected: [] }, 'Please select the data to export'],
    ['a query that finds nothing', { format: 'csv', search: { field: 'iccid', value: '0000000000000' } }, 'No data to export'],
    ['an unknown format', { format: 'pdf' }, 'must be one of: csv, xlsx'],
    ['a paging field', { format: 'csv', page: 2 }, 'is not an accepted field'],
  ])('refuses %s and makes no task', async (_n, body, message) => {
    const before = (await suite.t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM tasks')).rows[0].n;
    const res = await exportSims(suite.user, body);
    expect(res.statusCode).toBe(400);
    expect(res.json().status.message).toContain(message);
    expect((await suite.t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM tasks')).rows[0].n).toBe(before);
  });

  it('exports the filtered SIMs as CSV with labelled columns; the link works once', async () => {
    const res = await exportSims(suite.user, { format: 'csv', status: 'active' });
    expect(res.statusCode).toBe(200);
    const { taskId, quantity } = res.json().data;
    const expected = (
      await suite.t.db.query<{ iccid: string }>("SELECT iccid FROM sims WHERE org_id = 'org-demo' AND status = 'active' ORDER BY iccid")
    ).rows.map((r) => r.iccid);
    expect(quantity).toBe(expected.length);
    expect(await task(taskId)).toMatchObject({ status: 'processing', result_file_id: null });
    // The link is refused while there is no file.
    expect((await call(suite.t.app, suite.user, { method: 'GET', url: `/api/job/rest/job/my/oneTimeToken?id=${taskId}` })).statusCode).toBe(410);

    expect(await suite.t.app.jobs.runOnce()).toBe(true);
    expect(await task(taskId)).toMatchObject({ status: 'done', progress: 100 });
    const file = await download(suite.user, taskId);
    expect(file.statusCode).toBe(200);
    expect(file.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(file.headers['content-disposition']).toMatch(/attachment; filename="sims-.*\.csv"/);
    const rows = csvRows(file.body);
    expect(rows[0][0]).toBe('ICCID');
    expect(
      rows
        .slice(1)
        .map((r) => r[0])
        .sort(),
    ).toEqual(expected);
    // Used once: a second request with the same link is refused.
    const again = await suite.t.app.inject({ method: 'GET', url: file.url });
    expect(again.statusCode).toBe(410);
    expect(again.json().status.message).toContain('expired or was already used');
    // Another member's task has no link for an operator; an administrator may fetch the organisation's files.
    const operator = await signIn(suite.t.app, DEMO.operator);
    expect((await call(suite.t.app, operator, { method: 'GET', url: `/api/job/rest/job/my/oneTimeToken?id=${taskId}` })).statusCode).toBe(404);
    expect((await call(suite.t.app, suite.admin, { method: 'GET', url: `/api/job/rest/job/my/oneTimeToken?id=${taskId}` })).statusCode).toBe(200);
  });

  it('exports the ticked rows as XLSX, ICCIDs kept as text, labels in Spanish', async () => {
    const picked = (await suite.t.db.query<{ iccid: string }>("SELECT iccid FROM sims WHERE org_id = 'org-demo' ORDER BY iccid LIMIT 3")).rows.map(
      (r) => r.iccid,
    );
    const res = await exportSims(suite.admin, { format: 'xlsx', selected: picked }, 'es-ES');
    expect(res.json().data.quantity).toBe(3);
    await suite.t.app.jobs.runOnce();
    const file = await download(suite.admin, res.json().data.taskId);
    expect(file.headers['content-type']).toBe('application/vnd.openxmlformats-officedocument.spreadsheetml.sheet');
    const parts = unzipSync(new Uint8Array(file.rawPayload));
    expect(Object.keys(parts)).toEqual(expect.arrayContaining(['[Content_Types].xml', 'xl/workbook.xml', 'xl/worksheets/sheet1.xml']));
    const sheet = strFromU8(parts['xl/worksheets/sheet1.xml']);
    expect(sheet.match(/<row /g)).toHaveLength(4);
    for (const iccid of picked) expect(sheet).toContain(`t="inlineStr"><is><t>${iccid}</t>`);
    expect(sheet).toContain('Estado del ciclo de vida');
  });

  it('bundle orders and CDRs export by the same route kind; a CDR export needs its window and its own organisation', async () => {
    const bundles = await call(suite.t.app, suite.admin, {
      method: 'POST',
      url: '/api/main/sim/service/list/export',
      payload: { format: 'csv', status: 'IN_USE' },
    });
    expect(bundles.statusCode).toBe(200);
    const to = new Date();
    const from = new Date(to.getTime() - 7 * 86_400_000);
    const cdrs = await call(suite.t.app, suite.admin, {
      method: 'POST',
      url: '/api/cdr/export/distributor/DEMO/cdrs',
      payload: { format: 'csv', startAtFrom: from.toISOString(), startAtTo: to.toISOString() },
    });
    expect(cdrs.statusCode).toBe(200);
    expect(
      (await call(suite.t.app, suite.admin, { method: 'POST', url: '/api/cdr/export/distributor/DEMO/cdrs', payload: { format: 'csv' } })).json().status
        .message,
    ).toContain('is required');
    expect(
      (
        await call(suite.t.app, suite.admin, {
          method: 'POST',
          url: '/api/cdr/export/distributor/OTHER/cdrs',
          payload: { format: 'csv', startAtFrom: from.toISOString(), startAtTo: to.toISOString() },
        })
      ).statusCode,
    ).toBe(404);
    await suite.t.app.jobs.runOnce();
    await suite.t.app.jobs.runOnce();
    const cdrFile = await download(suite.admin, cdrs.json().data.taskId);
    expect(csvRows(cdrFile.body).length - 1).toBe(cdrs.json().data.quantity);
  });

  it('a job whose worker stopped is taken over after its lease and ends with the whole file; a job stopped three times ends as issues', async () => {
    const res = await exportSims(suite.user, { format: 'csv' });
    const { taskId, quantity } = res.json().data;
    // Another instance claimed it, wrote half a file and died: its lease ran out.
    await suite.t.db.query(
      "UPDATE tasks SET claimed_by = 'worker-dead', heartbeat_at = now() - interval '5 minutes', attempts = 1, progress = 40 WHERE id = $1",
      [taskId],
    );
    await suite.t.app.jobs.runOnce();
    expect(await task(taskId)).toMatchObject({ status: 'done', progress: 100 });
    const rows = csvRows((await download(suite.user, taskId)).body);
    expect(rows.length - 1).toBe(quantity);

    const stuck = (await exportSims(suite.user, { format: 'csv' })).json().data.taskId;
    await suite.t.db.query("UPDATE tasks SET claimed_by = 'worker-dead', heartbeat_at = now() - interval '5 minutes', attempts = 3 WHERE id = $1", [stuck]);
    await suite.t.app.jobs.runOnce();
    expect(await task(stuck)).toMatchObject({ status: 'issues', result_file_id: null });
    // A job another worker holds with a live lease is left alone.
    const held = (await exportSims(suite.user, { format: 'csv' })).json().data.taskId;
    await suite.t.db.query("UPDATE tasks SET claimed_by = 'worker-alive', heartbeat_at = now() WHERE id = $1", [held]);
    expect(await suite.t.app.jobs.runOnce()).toBe(false);
    expect(await task(held)).toMatchObject({ status: 'processing' });
  });
});

// 100,000 rows: once, on PGlite (the slower of the two); the bench measures both.
describe('exports at the limit', () => {
  const suite = signedInSuite({ kind: DB_KINDS[0] });
  let admin: Session;
  beforeAll(async () => {
    await scaleSeed(suite.t.db, { sims: 100_001, cdrs: 0 });
    admin = await signIn(suite.t.app, DEMO.admin);
    admin.headers.partnercode = SCALE_ORG.code;
  }, 120_000);

  it('refuses 100,001 SIMs with the message that asks to narrow the selection, and exports exactly 100,000 in CSV and XLSX', async () => {
    const over = await call(suite.t.app, admin, { method: 'POST', url: SIM_EXPORT, payload: { format: 'csv' } });
    expect(over.statusCode).toBe(400);
    expect(over.json().status.message).toBe('More than 100,000 items: narrow the selection (filters or ticked rows) and export again.');
    await suite.t.db.query("DELETE FROM sims WHERE id = (SELECT max(id) FROM sims WHERE org_id = 'org-scale')");
    const expected = (
      await suite.t.db.query<{ first: string; last: string }>("SELECT min(iccid) AS first, max(iccid) AS last FROM sims WHERE org_id = 'org-scale'")
    ).rows[0];
    for (const format of ['csv', 'xlsx']) {
      const res = await call(suite.t.app, admin, { method: 'POST', url: SIM_EXPORT, payload: { format } });
      expect(res.json().data.quantity).toBe(100_000);
      await suite.t.app.jobs.runOnce();
      const token = await call(suite.t.app, admin, { method: 'GET', url: `/api/job/rest/job/my/oneTimeToken?id=${res.json().data.taskId}` });
      const file = await suite.t.app.inject({ method: 'GET', url: token.json().data.url });
      if (format === 'csv') {
        const rows = csvRows(file.body);
        expect(rows.length).toBe(100_001);
        const iccids = new Set(rows.slice(1).map((r) => r[0]));
        expect(iccids.size).toBe(100_000);
        expect(iccids.has(expected.first) && iccids.has(expected.last)).toBe(true);
      } else {
        const sheet = strFromU8(unzipSync(new Uint8Array(file.rawPayload))['xl/worksheets/sheet1.xml']);
        expect(sheet.match(/<row /g)).toHaveLength(100_001);
      }
    }
  }, 300_000);
});
