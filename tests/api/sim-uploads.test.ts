/**
 * SIM transfer and batch info upload with real generated files (.csv, .xlsx, .xls): every rule of the file as a whole
 * on both sides of its limit (type, a 40-character name, 1 MB, 100,000 rows), the rows' outcomes (invalid ICCIDs, a
 * SIM of another organisation, a SIM in a pool, one busy with a request), the receiving organisation and the
 * acknowledgement, non-admins refused, and a good file of 100,000 rows carried out whole.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as XLSX from '@e965/xlsx';
import { describe, expect, it } from 'vitest';
import { scaleSeed, SCALE_ORG } from '../../bench/scale-seed.js';
import { makeIccid } from '../../common/iccid.js';
import { OTHER_SIM_ICCID, SPECIAL_SIMS } from '../../server/db/seed-fleet.js';
import { xlsxWriter } from '../../server/job/table-writers.js';
import { call, countRows, DB_KINDS, DEMO, type Session, signedInSuite } from '../helper.js';

const MB = 1024 * 1024;

/** A workbook of rows as SheetJS writes it, in xlsx or the old binary xls. */
function book(rows: (string | number)[][], type: 'xlsx' | 'xls'): Buffer {
  const wb = XLSX.utils.book_new();
  XLSX.utils.book_append_sheet(wb, XLSX.utils.aoa_to_sheet(rows), 'Sheet1');
  return XLSX.write(wb, { type: 'buffer', bookType: type === 'xls' ? 'biff8' : 'xlsx' }) as Buffer;
}
const csv = (rows: string[][]) => Buffer.from(rows.map((r) => r.join(',')).join('\r\n') + '\r\n');

/** A compact xlsx of n generated ICCIDs (inline strings, as our own exports write them), so 100,000 rows fit in 1 MB. */
async function bigXlsx(n: number, prefix = '8949'): Promise<Buffer> {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'upload-')), 'big.xlsx');
  const w = xlsxWriter(file);
  await w.header(['ICCID']);
  for (let i = 1; i <= n; i++) await w.row([makeIccid(prefix, i, 19)]);
  await w.end();
  return fs.readFileSync(file);
}

/** A multipart body as a browser sends it. */
async function form(fields: Record<string, string>, file?: { name: string; bytes: Buffer }) {
  const fd = new FormData();
  for (const [k, v] of Object.entries(fields)) fd.append(k, v);
  if (file) fd.append('file', new Blob([new Uint8Array(file.bytes)]), file.name);
  const req = new Request('http://local/', { method: 'POST', body: fd });
  return { payload: Buffer.from(await req.arrayBuffer()), headers: { 'content-type': req.headers.get('content-type')! } };
}

describe.each(DB_KINDS)('SIM transfer and info upload on %s', (kind) => {
  const suite = signedInSuite(kind, { admin: DEMO.admin, operator: DEMO.operator, user: DEMO.user });

  const demoIccids = async (where: string, n: number) =>
    (await suite.t.db.query<{ iccid: string }>(`SELECT iccid FROM sims WHERE org_id = 'org-demo' AND ${where} ORDER BY iccid LIMIT ${n}`)).rows.map(
      (r) => r.iccid,
    );
  const post = async (s: Session, url: string, fields: Record<string, string>, file?: { name: string; bytes: Buffer }, language = 'en-US') => {
    const f = await form(fields, file);
    return call(suite.t.app, s, { method: 'POST', url, payload: f.payload, headers: { ...f.headers, language } });
  };
  const transfer = (
    s: Session,
    file: { name: string; bytes: Buffer } | undefined,
    fields: Record<string, string> = { targetOrgId: 'org-demo-north', acknowledged: 'true' },
    language?: string,
  ) => post(s, '/api/main/sim/transfer', fields, file, language);
  const parseTransfer = (s: Session, file: { name: string; bytes: Buffer }, target = 'org-demo-north') =>
    post(s, `/api/main/sim/transfer/parse/${target}`, {}, file);
  const info = (s: Session, type: string, file: { name: string; bytes: Buffer }, code = 'DEMO', language?: string) =>
    post(s, `/api/main/sim/organizationCode/${code}/batchUpdateInfo`, { type }, file, language);
  const tasks = () => countRows(suite.t.db, 'tasks');
  const report = async (s: Session, taskId: string) => {
    const token = await call(suite.t.app, s, { method: 'GET', url: `/api/job/rest/job/my/oneTimeToken?id=${taskId}` });
    expect(token.statusCode).toBe(200);
    const res = await suite.t.app.inject({ method: 'GET', url: token.json().data.url });
    return res.body
      .replace(/^\uFEFF/, '')
      .trim()
      .split('\r\n')
      .map((l) => l.split(','));
  };
  const taskRow = async (id: string) =>
    (
      await suite.t.db.query<{ status: string; result: Record<string, unknown>; kind: string; quantity: number }>(
        'SELECT status, result, kind, quantity FROM tasks WHERE id = $1',
        [id],
      )
    ).rows[0];

  describe('the file as a whole', () => {
    it.each([
      ['a text file', 'iccids.txt', Buffer.from('ICCID\r\n89490200001234567890\r\n'), 'File must be a .xls, .xlsx, .csv file'],
      ['a PDF', 'iccids.pdf', Buffer.from('%PDF-1.7\n'), 'File must be a .xls, .xlsx, .csv file'],
      ['a name without extension', 'iccids', Buffer.from('ICCID\r\n'), 'File must be a .xls, .xlsx, .csv file'],
      ['a picture renamed .xlsx', 'photo.xlsx', Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]), 'File is not a real .xlsx file'],
      ['an xlsx renamed .xls', 'book.xls', book([['ICCID'], ['x']], 'xlsx'), 'File is not a real .xls file'],
      ['a binary file renamed .csv', 'data.csv', Buffer.from([0x49, 0x43, 0, 0, 0xff, 0xfe]), 'File is not a real .csv file'],
      ['a broken workbook', 'broken.xlsx', Buffer.from('PK\u0003\u0004garbage-not-a-zip'), 'File cannot be read as a spreadsheet'],
      ['a 40-character name', `${'a'.repeat(35)}.xlsx`, book([['ICCID'], ['x']], 'xlsx'), 'File must have a name shorter than 40 characters'],
      ['a file without rows', 'empty.csv', Buffer.from('ICCID\r\n\r\n'), 'File has no rows under its header'],
      ['an empty file', 'empty.csv', Buffer.from(''), 'File has no rows under its header'],
      ['a file with another first column', 'other.csv', csv([['IMEI'], ['356938035643809']]), "File must have the template's columns, ICCID first"],
    ])('refuses %s, naming the file and the rule, and makes no task', async (_n, name, bytes, message) => {
      const before = await tasks();
      const res = await transfer(suite.admin, { name, bytes });
      expect(res.statusCode).toBe(400);
      expect(res.json().status.message).toBe(message);
      expect(res.json().data).toMatchObject({ field: 'file' });
      expect(await tasks()).toBe(before);
      // The check before submitting says the same.
      const parsed = await parseTransfer(suite.admin, { name, bytes });
      expect(parsed.json().status.message).toBe(message);
    });

    it('accepts a 39-character name', async () => {
      const name = `${'a'.repeat(34)}.xlsx`;
      expect(name).toHaveLength(39);
      const res = await parseTransfer(suite.admin, { name, bytes: book([['ICCID'], [SPECIAL_SIMS.activatable]], 'xlsx') });
      expect(res.statusCode).toBe(200);
      expect(res.json().data).toMatchObject({ rows: 1, ok: 1, failed: 0 });
    });

    it('takes exactly 1 MB and refuses 1 MB + 1 byte', async () => {
      const [iccid] = await demoIccids("status = 'active' AND pool_id IS NULL", 1);
      // Blank lines are no rows: they make the size without adding any.
      const head = `ICCID\r\n${iccid}\r\n`;
      const exact = Buffer.from(head + '\n'.repeat(MB - head.length));
      expect(exact.length).toBe(MB);
      const ok = await parseTransfer(suite.admin, { name: 'exact.csv', bytes: exact });
      expect(ok.statusCode).toBe(200);
      expect(ok.json().data).toMatchObject({ rows: 1, ok: 1 });
      const over = Buffer.concat([exact, Buffer.from(' ')]);
      const before = await tasks();
      const res = await transfer(suite.admin, { name: 'over.csv', bytes: over });
      expect(res.statusCode).toBe(400);
      expect(res.json().status.message).toBe('File must be at most 1 MB');
      expect(await tasks()).toBe(before);
    });

    it('refuses 100,001 rows in a file under 1 MB', async () => {
      const bytes = await bigXlsx(100_001);
      expect(bytes.length).toBeLessThan(MB);
      const before = await tasks();
      const res = await transfer(suite.admin, { name: 'many.xlsx', bytes });
      expect(res.statusCode).toBe(400);
      expect(res.json().status.message).toBe('File must have at most 100,000 rows');
      expect(await tasks()).toBe(before);
    });

    it("names the file in the person's language", async () => {
      const res = await transfer(suite.admin, { name: 'iccids.txt', bytes: Buffer.from('x') }, undefined, 'es-ES');
      expect(res.json().status.message).toBe('«Archivo» debe ser un archivo .xls, .xlsx, .csv');
    });

    it('refuses a request without a file, a missing or foreign receiving organisation, and a missing acknowledgement', async () => {
      const file = { name: 'ok.csv', bytes: csv([['ICCID'], [SPECIAL_SIMS.activatable]]) };
      const before = await tasks();
      const cases: [Record<string, string>, typeof file | undefined, string][] = [
        [{ targetOrgId: 'org-demo-north', acknowledged: 'true' }, undefined, 'File is required'],
        [{ acknowledged: 'true' }, file, 'Receiving organisation is required'],
        [{ targetOrgId: 'org-other', acknowledged: 'true' }, file, 'Receiving organisation must be another organisation where you are an admin'],
        [{ targetOrgId: 'org-demo', acknowledged: 'true' }, file, 'Receiving organisation must be another organisation where you are an admin'],
        [{ targetOrgId: 'DEMO', acknowledged: 'true' }, file, 'Receiving organisation must be another organisation where you are an admin'],
        [{ targetOrgId: 'org-demo-north' }, file, 'Acknowledgement must be given'],
        [{ targetOrgId: 'org-demo-north', acknowledged: 'false' }, file, 'Acknowledgement must be given'],
      ];
      for (const [fields, f, message] of cases) {
        const res = await transfer(suite.admin, f, fields);
        expect(res.statusCode, message).toBe(400);
        expect(res.json().status.message).toBe(message);
      }
      expect(await tasks()).toBe(before);
    });

    it('refuses non-admins everything: templates, checks, transfers and info uploads', async () => {
      const file = { name: 'ok.csv', bytes: csv([['ICCID'], [SPECIAL_SIMS.activatable]]) };
      for (const s of [suite.operator, suite.user]) {
        expect((await call(suite.t.app, s, { method: 'GET', url: '/api/main/sim/transfer/template/xlsx' })).statusCode).toBe(403);
        expect((await parseTransfer(s, file)).statusCode).toBe(403);
        expect((await transfer(s, file)).statusCode).toBe(403);
        expect((await call(suite.t.app, s, { method: 'GET', url: '/api/main/sim/uploadInfo/template/tags' })).statusCode).toBe(403);
        expect((await info(s, 'tags', file)).statusCode).toBe(403);
      }
    });
  });

  describe('templates', () => {
    it.each(['csv', 'xlsx', 'xls'] as const)('the transfer template in %s is a real file of that type whose ICCID stays text', async (format) => {
      const res = await call(suite.t.app, suite.admin, { method: 'GET', url: `/api/main/sim/transfer/template/${format}` });
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-disposition']).toBe(`attachment; filename="sim-transfer-template.${format}"`);
      const wb = XLSX.read(res.rawPayload, { type: 'buffer', raw: true });
      const rows = XLSX.utils.sheet_to_json<string[]>(wb.Sheets[wb.SheetNames[0]], { header: 1, raw: true });
      expect(rows[0]).toEqual(['ICCID']);
      expect(rows[1][0]).toBe('89490200001234567890');
      if (format === 'xls') expect([...res.rawPayload.subarray(0, 4)]).toEqual([0xd0, 0xcf, 0x11, 0xe0]);
    });

    it("info templates per type, labelled in the person's language; an unknown type is refused", async () => {
      const res = await call(suite.t.app, suite.admin, {
        method: 'GET',
        url: '/api/main/sim/uploadInfo/template/deviceName?format=csv',
        headers: { language: 'zh-CN' },
      });
      expect(res.statusCode).toBe(200);
      expect(res.body.replace(/^\uFEFF/, '').split('\r\n')[0]).toBe('ICCID,设备名称');
      const bad = await call(suite.t.app, suite.admin, { method: 'GET', url: '/api/main/sim/uploadInfo/template/imei' });
      expect(bad.statusCode).toBe(400);
      expect(bad.json().status.message).toContain('must be one of: deviceName, notes, tags');
    });
  });

  describe('rows', () => {
    it('lists each row that cannot be transferred, and why, before anything is submitted', async () => {
      const [a, b] = await demoIccids("status = 'active' AND pool_id IS NULL AND operation IS NULL", 2);
      const rows: (string | number)[][] = [
        ['ICCID'],
        [a],
        ['8949020000123456789'], // a wrong check digit
        ['12345'],
        [b],
        [a], // repeated
        [OTHER_SIM_ICCID], // another organisation's SIM
        [SPECIAL_SIMS.inSharedPool],
        [SPECIAL_SIMS.operationInProgress],
        [makeIccid('8949', 999_999_999, 20)], // valid, but nobody's
        [8.949020000123457e19], // stored by Excel as a number (its last digits already lost)
      ];
      const before = await suite.t.db.query('SELECT id, org_id FROM sims ORDER BY id');
      for (const [name, bytes] of [
        ['check.xlsx', book(rows, 'xlsx')],
        ['check.xls', book(rows, 'xls')],
      ] as const) {
        const res = await parseTransfer(suite.admin, { name, bytes });
        expect(res.statusCode).toBe(200);
        const data = res.json().data;
        expect(data).toMatchObject({ rows: 10, ok: 2, failed: 8 });
        expect(data.byReason).toEqual({ invalidIccid: 2, duplicate: 1, notInOrg: 2, inSharedPool: 1, requestInProgress: 1, iccidAsNumber: 1 });
        expect(data.errors.map((e: { row: number; reason: string }) => [e.row, e.reason])).toEqual([
          [3, 'invalidIccid'],
          [4, 'invalidIccid'],
          [6, 'duplicate'],
          [7, 'notInOrg'],
          [8, 'inSharedPool'],
          [9, 'requestInProgress'],
          [10, 'notInOrg'],
          [11, 'iccidAsNumber'],
        ]);
        expect(data.errors[4].message).toBe('The SIM is in a shared pool and cannot be transferred');
      }
      // A check changes nothing.
      expect((await suite.t.db.query('SELECT id, org_id FROM sims ORDER BY id')).rows).toEqual(before.rows);
    });

    it('transfers what it can, reports every row, and ends with issues', async () => {
      const movers = await demoIccids("status = 'active' AND pool_id IS NULL AND operation IS NULL", 3);
      const simIds = (await suite.t.db.query<{ id: string }>('SELECT id FROM sims WHERE iccid = ANY($1) ORDER BY iccid', [movers])).rows.map((r) => r.id);
      await suite.t.db.query("UPDATE sims SET tags = '{keep}', notes = 'secret' WHERE iccid = ANY($1)", [movers]);
      const openBundles = await countRows(suite.t.db, 'bundle_orders', "sim_id = ANY($1) AND status IN ('PENDING', 'IN_USE')", [simIds]);
      const oldBundles = await countRows(suite.t.db, 'bundle_orders', "sim_id = ANY($1) AND status NOT IN ('PENDING', 'IN_USE')", [simIds]);
      const file = { name: 'move.csv', bytes: csv([['ICCID'], ...movers.map((m) => [m]), [SPECIAL_SIMS.inSharedPool], ['not-an-iccid']]) };
      const res = await transfer(suite.admin, file, undefined, 'es-ES');
      expect(res.statusCode).toBe(200);
      const { taskId, quantity } = res.json().data;
      expect(quantity).toBe(5);
      expect(await taskRow(taskId)).toMatchObject({ status: 'processing', kind: 'sim_transfer' });
      expect(await suite.t.app.jobs.runOnce()).toBe(true);
      const done = await taskRow(taskId);
      expect(done.status).toBe('issues');
      expect(done.result).toMatchObject({ rows: 5, ok: 3, failed: 2, byReason: { inSharedPool: 1, invalidIccid: 1 } });
      // Moved with their open bundles, without the sender's tags and notes; history stays with the sender.
      const moved = await suite.t.db.query<{ org_id: string; tags: string[]; notes: string | null }>(
        'SELECT org_id, tags, notes FROM sims WHERE iccid = ANY($1)',
        [movers],
      );
      expect(moved.rows.every((r) => r.org_id === 'org-demo-north' && r.tags.length === 0 && r.notes === null)).toBe(true);
      expect(await countRows(suite.t.db, 'bundle_orders', "org_id = 'org-demo-north' AND sim_id = ANY($1)", [simIds])).toBe(openBundles);
      expect(await countRows(suite.t.db, 'bundle_orders', "org_id = 'org-demo' AND sim_id = ANY($1)", [simIds])).toBe(oldBundles);
      expect(await countRows(suite.t.db, 'sim_events', "type = 'transfer' AND detail->>'taskId' = $1", [taskId])).toBe(6);
      expect(await countRows(suite.t.db, 'audit_log', "action = 'transfer' AND entity_id = $1", [taskId])).toBe(2);
      // The pool's SIM stayed.
      expect((await suite.t.db.query<{ org_id: string }>('SELECT org_id FROM sims WHERE iccid = $1', [SPECIAL_SIMS.inSharedPool])).rows[0].org_id).toBe(
        'org-demo',
      );
      // The report has every row, in Spanish.
      const rows = await report(suite.admin, taskId);
      expect(rows[0]).toEqual(['Fila', 'ICCID', 'Resultado', 'Motivo']);
      expect(rows.slice(1).map((r) => [r[0], r[2]])).toEqual([
        ['2', 'Hecho'],
        ['3', 'Hecho'],
        ['4', 'Hecho'],
        ['5', 'No hecho'],
        ['6', 'No hecho'],
      ]);
      expect(rows[4][3]).toBe('La SIM está en una bolsa compartida y no se puede transferir');

      // Started over after a stop (the lease taken over), the job finds its own work and reports the same.
      await suite.t.db.query(
        "UPDATE tasks SET status = 'processing', ended_at = NULL, progress = 50, claimed_by = NULL, result = NULL, result_file_id = NULL WHERE id = $1",
        [taskId],
      );
      await suite.t.app.jobs.runOnce();
      expect((await taskRow(taskId)).result).toMatchObject({ rows: 5, ok: 3, failed: 2 });
      expect(await countRows(suite.t.db, 'sim_events', "type = 'transfer' AND detail->>'taskId' = $1", [taskId])).toBe(6);
    });

    it('a clean file ends done (the receiving organisation named by its code)', async () => {
      const [iccid] = await demoIccids("status = 'paused' AND pool_id IS NULL AND operation IS NULL", 1);
      const res = await transfer(
        suite.admin,
        { name: 'one.xls', bytes: book([['ICCID'], [iccid]], 'xls') },
        { targetOrgId: 'DEMO-SOUTH', acknowledged: 'true' },
      );
      expect(res.statusCode).toBe(200);
      await suite.t.app.jobs.runOnce();
      expect(await taskRow(res.json().data.taskId)).toMatchObject({ status: 'done', result: { rows: 1, ok: 1, failed: 0 } });
    });
  });

  describe('batch info upload', () => {
    it('sets device names, notes and tags row by row, with the limits of SPEC.md both sides', async () => {
      const iccids = await demoIccids('pool_id IS NULL AND operation IS NULL', 4);
      const cases = [
        { type: 'deviceName', good: 'd'.repeat(40), bad: 'd'.repeat(41), column: 'device_name', stored: 'd'.repeat(40), reason: 'deviceNameTooLong' },
        { type: 'notes', good: 'n'.repeat(140), bad: 'n'.repeat(141), column: 'notes', stored: 'n'.repeat(140), reason: 'notesTooLong' },
        {
          type: 'tags',
          good: Array.from({ length: 10 }, (_, i) => `tag${i}`.padEnd(10, 'x')).join(';'),
          bad: 'a;b;c;d;e;f;g;h;i;j;k',
          column: 'tags',
          stored: Array.from({ length: 10 }, (_, i) => `tag${i}`.padEnd(10, 'x')),
          reason: 'tooManyTags',
        },
      ];
      for (const c of cases) {
        const rows = [
          ['ICCID', 'value'],
          [iccids[0], c.good],
          [iccids[1], c.bad],
          [OTHER_SIM_ICCID, c.good],
          ['8949', c.good],
        ];
        const res = await info(suite.admin, c.type, { name: `${c.type}.xlsx`, bytes: book(rows, 'xlsx') });
        expect(res.statusCode, c.type).toBe(200);
        await suite.t.app.jobs.runOnce();
        const done = await taskRow(res.json().data.taskId);
        expect(done.status).toBe('issues');
        expect(done.result).toMatchObject({ rows: 4, ok: 1, failed: 3, byReason: { [c.reason]: 1, notInOrg: 1, invalidIccid: 1 } });
        const stored = (await suite.t.db.query<{ v: unknown }>(`SELECT ${c.column} AS v FROM sims WHERE iccid = $1`, [iccids[0]])).rows[0].v;
        expect(stored).toEqual(c.stored);
        // The refused row's SIM is untouched.
        const untouched = (await suite.t.db.query<{ v: unknown }>(`SELECT ${c.column} AS v FROM sims WHERE iccid = $1`, [iccids[1]])).rows[0].v;
        expect(untouched).not.toEqual(c.bad);
      }
      // A tag of 11 characters is refused too; an empty cell clears.
      const more = await info(suite.admin, 'tags', {
        name: 't.csv',
        bytes: csv([
          ['ICCID', 'Tags'],
          [iccids[0], 'elevenchars'],
          [iccids[2], ''],
        ]),
      });
      await suite.t.app.jobs.runOnce();
      expect((await taskRow(more.json().data.taskId)).result).toMatchObject({ ok: 1, failed: 1, byReason: { tagTooLong: 1 } });
      expect((await suite.t.db.query<{ tags: string[] }>('SELECT tags FROM sims WHERE iccid = $1', [iccids[2]])).rows[0].tags).toEqual([]);
      const rows = await report(suite.admin, more.json().data.taskId);
      expect(rows[0]).toEqual(['Row', 'ICCID', 'Value', 'Outcome', 'Reason']);
      expect(rows[1]).toEqual(['2', iccids[0], 'elevenchars', 'Not done', 'A tag longer than 10 characters']);
    });

    it("checks before submitting, refuses an unknown type and another organisation's code", async () => {
      const [iccid] = await demoIccids('true', 1);
      const file = {
        name: 'names.csv',
        bytes: csv([
          ['ICCID', 'Device name'],
          [iccid, 'Pump 7'],
        ]),
      };
      const parsed = await post(suite.admin, '/api/main/sim/organizationCode/DEMO/batchUpdateInfo/parse', { type: 'deviceName' }, file);
      expect(parsed.json().data).toMatchObject({ rows: 1, ok: 1, failed: 0 });
      const bad = await info(suite.admin, 'imei', file);
      expect(bad.statusCode).toBe(400);
      expect(bad.json().status.message).toBe('Type must be one of: deviceName, notes, tags');
      expect((await info(suite.admin, 'deviceName', file, 'OTHER')).statusCode).toBe(404);
    });
  });

  it('a good file of 100,000 rows transfers every SIM in it', async () => {
    await scaleSeed(suite.t.db, { sims: 100_000, cdrs: 0 });
    const scaleAdmin = { ...suite.admin, headers: { ...suite.admin.headers, partnercode: SCALE_ORG.code } };
    // The scale seed's ICCIDs are 8949 + a 14-digit serial + the check digit: the same as makeIccid('8949', n, 19).
    const bytes = await bigXlsx(100_000);
    expect(bytes.length).toBeLessThan(MB);
    const res = await transfer(scaleAdmin, { name: 'fleet-100k.xlsx', bytes }, { targetOrgId: 'org-demo-south', acknowledged: 'true' });
    expect(res.statusCode).toBe(200);
    expect(res.json().data.quantity).toBe(100_000);
    await suite.t.app.jobs.runOnce();
    expect(await taskRow(res.json().data.taskId)).toMatchObject({ status: 'done', result: { rows: 100_000, ok: 100_000, failed: 0 } });
    expect(await countRows(suite.t.db, 'sims', 'org_id = $1', [SCALE_ORG.id])).toBe(0);
    expect(await countRows(suite.t.db, 'sims', "org_id = 'org-demo-south' AND id LIKE 'SC%'")).toBe(100_000);
  }, 300_000);
});
