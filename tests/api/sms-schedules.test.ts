/**
 * Scheduled SMS (SPEC.md sections 3, 4, 5, 7 and 9): every limit on both sides, the offenders named, a user
 * refused, the in-progress text, the operation log; the scheduler: one run across two instances, a restart mid-run
 * that messages nobody twice, a daylight-saving week in Europe/Berlin, a missed occurrence skipped. On PGlite and,
 * with TEST_DATABASE_URL, PostgreSQL.
 */
import fs from 'node:fs';
import path from 'node:path';
import * as XLSX from '@e965/xlsx';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { makeIccid } from '../../common/iccid.js';
import type { Db, Queryable } from '../../server/db/db.js';
import { EXECUTING_SCHEDULE_ID } from '../../server/db/seed-fleet.js';
import type { NetworkAdapter } from '../../server/network/adapter.js';
import { GRACE_MS, SmsScheduler } from '../../server/sms-schedules/scheduler.js';
import { answerOf, call, DB_KINDS, DEMO, type Session, signedInSuite } from '../helper.js';

vi.setConfig({ testTimeout: 120_000 });

const quiet = {
  info() {},
  warn() {},
  error() {},
  debug() {},
  child() {
    return quiet;
  },
} as never;
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
/**
 * A year wholly in the future, for the scheduler tests that drive its clock over given days: a schedule's next run is
 * its first occurrence from now, so days already past would be skipped, not run (the tests began failing once a fixed
 * year's days were reached).
 */
const Y = new Date().getUTCFullYear() + 1;
const at = (monthDay: string, time: string) => `${Y}-${monthDay}T${time}:00.000Z`;
/** Europe/Berlin moves to summer time on the last Sunday of March (at 01:00 UTC). */
const SUMMER_DAY = new Date(Date.UTC(Y, 2, 31) - new Date(Date.UTC(Y, 2, 31)).getUTCDay() * DAY);

describe.each(DB_KINDS)('scheduled SMS on %s', (kind) => {
  const suite = signedInSuite(kind, { admin: DEMO.admin, operator: DEMO.operator, user: DEMO.user });
  /** 1000 active SIMs of org-demo made for this file, and one SIM of another organisation. */
  let mine: string[];
  let foreign: string;

  const post = (s: Session, url: string, payload: object, language = 'en-US') =>
    call(suite.t.app, s, { method: 'POST', url: `/api/customer${url}`, payload, headers: { language } });
  const create = (s: Session, over: Record<string, unknown> = {}) => post(s, '/sms/task', base(over));
  const base = (over: Record<string, unknown> = {}) => ({
    name: 'Weekly ping',
    content: 'PING',
    smsType: 'text',
    mode: 'repeated',
    weekdays: [1, 3],
    sendTime: '09:00',
    timezone: 'Europe/Berlin',
    startAt: new Date().toISOString(),
    neverEnds: true,
    iccids: mine.slice(0, 2),
    emailNotify: false,
    ...over,
  });
  const detail = async (id: string) => (await call(suite.t.app, suite.admin, { method: 'GET', url: `/api/customer/sms/task/detail/${id}` })).json().data;

  /** A network that counts what it was asked to send, per ICCID. */
  const counting = () => {
    const sent = new Map<string, number>();
    const net: Pick<NetworkAdapter, 'sendSms'> = {
      sendSms: async (sim) => {
        sent.set(sim.iccid, (sent.get(sim.iccid) ?? 0) + 1);
        return { iccid: sim.iccid, ok: true };
      },
    };
    return { net, sent };
  };
  const scheduler = (net: Pick<NetworkAdapter, 'sendSms'>, at: () => Date, db: Db = suite.t.db, batch = 100) =>
    new SmsScheduler(db, net, suite.t.app.mailer, quiet, { leaseSeconds: 60, clock: at, batch });
  /** Only this schedule is due in the test that follows: the others of the file are switched off, their open runs closed. */
  const only = async (id: string) => {
    await suite.t.db.query(`UPDATE sms_schedules SET status = 'disabled', next_run_at = NULL WHERE id <> $1`, [id]);
    await suite.t.db.query(`UPDATE sms_schedule_runs SET status = 'done', ended_at = now() WHERE status = 'running' AND schedule_id <> $1`, [id]);
  };
  const runsOf = async (id: string) =>
    (
      await suite.t.db.query<{ id: string; status: string; occurrence_at: Date; sent: number; failed: number; targets: number }>(
        'SELECT id::text AS id, status, occurrence_at, sent, failed, targets FROM sms_schedule_runs WHERE schedule_id = $1 ORDER BY occurrence_at',
        [id],
      )
    ).rows;
  /** The run_finished events of a schedule, oldest occurrence first; same_tx: written by the transaction that ended the run (its now()). */
  const runEvents = async (id: string) =>
    (
      await suite.t.db.query<{ org_id: string; subject: string; data: Record<string, unknown>; same_tx: boolean }>(
        `SELECT e.org_id, e.subject, e.data, e.created_at = r.ended_at AS same_tx FROM events e JOIN sms_schedule_runs r ON r.id::text = e.data->>'runId'
        WHERE e.type = 'sms_schedule' AND e.subtype = 'run_finished' AND e.subject = $1 ORDER BY r.occurrence_at`,
        [id],
      )
    ).rows;

  beforeAll(async () => {
    mine = Array.from({ length: 1000 }, (_, i) => makeIccid('894909', 700_000 + i, 20));
    // Copies of an active SIM of org-demo with their own ids, ICCIDs and numbers.
    await suite.t.db.query(
      `INSERT INTO sims SELECT (jsonb_populate_record(NULL::sims, to_jsonb(s) || jsonb_build_object('id', 'schedsim' || lpad(x.n::text, 12, '0'), 'iccid', x.iccid,
              'imsi', NULL, 'imei', NULL, 'msisdn', (4915200000000 + x.n)::text, 'pool_id', NULL))).*
         FROM (SELECT * FROM sims WHERE org_id = 'org-demo' AND status = 'active' LIMIT 1) s, unnest($1::text[]) WITH ORDINALITY AS x(iccid, n)`,
      [mine],
    );
    // Enough SMS quota for every run of this file (one test uses it up on purpose).
    await suite.t.db.query(`UPDATE organisations SET sms_quota = 1000000, sms_used = 0 WHERE id = 'org-demo'`);
    foreign = (await suite.t.db.query<{ iccid: string }>(`SELECT iccid FROM sims WHERE org_id <> 'org-demo' LIMIT 1`)).rows[0].iccid;
  });

  describe('limits and texts', () => {
    it.each([
      ['a 50-character name and refuses 51 characters naming the field', 'name', 50, 'Name must be at most 50 characters long'],
      ['140 characters of content and refuses 141', 'content', 140, 'Content does not comply: 141 characters, at most 140.'],
    ])('takes %s', async (_n, field, most, message) => {
      expect((await create(suite.admin, { [field]: 'x'.repeat(most) })).statusCode).toBe(200);
      expect(answerOf(await create(suite.admin, { [field]: 'x'.repeat(most + 1) }))).toMatchObject({ statusCode: 400, message });
    });

    it('refuses an empty or blank name', async () => {
      expect((await create(suite.admin, { name: '' })).json().status.message).toBe('Name is required');
      expect((await create(suite.admin, { name: '   ' })).json().status.message).toBe('Name is required');
    });

    it('takes binary content as hex, stored in upper case, and refuses what is not', async () => {
      const ok = await create(suite.admin, { smsType: 'binary', content: '0a 1b 2c' });
      expect(ok.json().data.content).toBe('0A1B2C');
      expect((await create(suite.admin, { smsType: 'binary', content: '0A'.repeat(140) })).statusCode).toBe(200);
      expect((await create(suite.admin, { smsType: 'binary', content: '0A'.repeat(141) })).json().status.message).toBe(
        'Content does not comply: 141 octets, at most 140.',
      );
      const res = await create(suite.admin, { smsType: 'binary', content: '0A1G' });
      expect(res.json().status.message).toBe('Content does not comply: binary content must be hexadecimal digits (0-9, A-F) in pairs.');
    });

    it('takes 1000 ICCIDs and refuses 1001', async () => {
      expect((await create(suite.admin, { iccids: mine })).statusCode).toBe(200);
      const res = await create(suite.admin, { iccids: [...mine, foreign] });
      expect(res.statusCode).toBe(400);
      expect(res.json().status.message).toBe('ICCID list can have at most 1,000 entries');
    });

    it('takes 10 e-mail addresses and refuses 11, a bad one and duplicates, naming them', async () => {
      const emails = Array.from({ length: 11 }, (_, i) => `ops${i}@demo.example.com`);
      expect((await create(suite.admin, { emailNotify: true, notifyEmails: emails.slice(0, 10) })).statusCode).toBe(200);
      expect((await create(suite.admin, { emailNotify: true, notifyEmails: emails })).json().status.message).toBe(
        'Notification e-mails can have at most 10 entries',
      );
      expect((await create(suite.admin, { emailNotify: true, notifyEmails: ['not-an-address'] })).json().status.message).toBe(
        'Notification e-mails must be a valid e-mail address',
      );
      const dup = await create(suite.admin, { emailNotify: true, notifyEmails: ['a@demo.example.com', 'b@demo.example.com', 'A@demo.example.com'] });
      expect(dup.json().status.message).toBe('Notification e-mails contains a duplicate address (A@demo.example.com)');
      expect(dup.json().data.offenders).toEqual(['A@demo.example.com']);
      expect((await create(suite.admin, { emailNotify: true, notifyEmails: [] })).json().status.message).toBe(
        'Notification e-mails must have at least 1 entry',
      );
    });

    it('refuses duplicate ICCIDs and ICCIDs of another organisation, listing each offender', async () => {
      const dup = await create(suite.admin, { iccids: [mine[0], mine[1], mine[0], mine[2], mine[1]] });
      expect(dup.statusCode).toBe(400);
      expect(dup.json().status.message).toBe(`ICCID list contains duplicate ICCIDs (${mine[0]}, ${mine[1]})`);
      expect(dup.json().data.offenders).toEqual([mine[0], mine[1]]);
      const gone = await create(suite.admin, { iccids: [mine[0], foreign, '89490000000000000000'] });
      expect(gone.statusCode).toBe(400);
      expect(gone.json().status.message).toBe(`Device (ICCID) does not exist: ${foreign}, 89490000000000000000`);
      expect(gone.json().data.offenders).toEqual([foreign, '89490000000000000000']);
    });

    it('answers in the caller language', async () => {
      const res = await post(suite.admin, '/sms/task', base({ iccids: [foreign] }), 'zh-CN');
      expect(res.json().status.message).toBe(`设备（ICCID）不存在：${foreign}`);
    });

    it('refuses a repeated schedule without weekdays, without an end, or ending before it starts, and a once-only one in the past', async () => {
      expect((await create(suite.admin, { weekdays: [] })).json().status.message).toBe('Weekdays must have at least 1 entry');
      expect((await create(suite.admin, { neverEnds: false })).json().status.message).toBe('End time or “Never ends” must be chosen, not both');
      const start = new Date(Date.now() + DAY);
      expect(
        (await create(suite.admin, { neverEnds: false, startAt: start.toISOString(), endAt: new Date(start.getTime() - HOUR).toISOString() })).json().status
          .message,
      ).toBe('End time must not be before the start');
      expect((await create(suite.admin, { mode: 'once', startAt: new Date(Date.now() - HOUR).toISOString() })).json().status.message).toBe(
        'Start cannot be earlier than now',
      );
      expect((await create(suite.admin, { timezone: 'Mars/Olympus' })).json().status.message).toBe('Time zone must be an IANA time zone such as Europe/Berlin');
    });
  });

  describe('target files, read on the server', () => {
    /** A multipart body holding one file. */
    const parse = (s: Session, name: string, bytes: Uint8Array | string, lang = 'en-US') => {
      const boundary = '----targets';
      const head = Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${name}"\r\nContent-Type: application/octet-stream\r\n\r\n`,
      );
      const payload = Buffer.concat([head, Buffer.from(bytes), Buffer.from(`\r\n--${boundary}--\r\n`)]);
      return call(suite.t.app, s, {
        method: 'POST',
        url: '/api/customer/sms/task/targets/parse',
        payload,
        headers: { 'content-type': `multipart/form-data; boundary=${boundary}`, language: lang },
      });
    };
    const book = (rows: unknown[][], type: 'xlsx' | 'xls') => {
      const wb = XLSX.utils.book_new();
      XLSX.utils.book_append_sheet(wb, XLSX.utils.aoa_to_sheet(rows), 'Sheet1');
      return new Uint8Array(XLSX.write(wb, { type: 'buffer', bookType: type === 'xls' ? 'biff8' : 'xlsx' }) as Buffer);
    };

    it('reads the ICCIDs of an XLSX, an XLS, a CSV and a text file without header', async () => {
      const three = mine.slice(0, 3);
      for (const [name, bytes] of [
        ['targets.xlsx', book([['ICCID'], ...three.map((i) => [i])], 'xlsx')],
        ['targets.xls', book([['ICCID'], ...three.map((i) => [i])], 'xls')],
        ['targets.csv', `ICCID\r\n${three.join('\r\n')}\r\n`],
        ['targets.txt', `${three.join('\n')}\n`],
      ] as const) {
        const res = await parse(suite.operator, name, bytes);
        expect(res.statusCode, `${name}: ${res.body}`).toBe(200);
        expect(res.json().data).toEqual({ iccids: three });
      }
    });

    it('takes 1000 rows and refuses 1001, in four languages', async () => {
      const full = await parse(suite.operator, 'all.xlsx', book([['ICCID'], ...mine.map((i) => [i])], 'xlsx'));
      expect(full.statusCode, full.body).toBe(200);
      expect(full.json().data.iccids).toHaveLength(1000);
      const over = book([['ICCID'], ...mine.map((i) => [i]), [foreign]], 'xlsx');
      const texts = {
        'en-US': 'File must have at most 1,000 rows',
        'zh-CN': expect.stringContaining('1,000'),
        'zh-TW': expect.stringContaining('1,000'),
        'es-ES': expect.stringContaining('1,000'),
      };
      for (const [lang, text] of Object.entries(texts)) {
        const res = await parse(suite.operator, 'all.xlsx', over, lang);
        expect(res.statusCode).toBe(400);
        expect(res.json().status.message).toEqual(text);
      }
    });

    it('refuses a file of another type, a renamed one, and names the field in four languages', async () => {
      const messages: Record<string, string> = {};
      for (const lang of ['en-US', 'zh-CN', 'zh-TW', 'es-ES']) {
        const res = await parse(suite.operator, 'targets.pdf', '%PDF-1.4', lang);
        expect(res.statusCode).toBe(400);
        messages[lang] = res.json().status.message;
      }
      expect(messages['en-US']).toBe('File must be a .xlsx, .xls, .csv, .txt file');
      expect(new Set(Object.values(messages)).size).toBe(4);
      expect(Object.values(messages).every((m) => m.includes('.xlsx, .xls, .csv, .txt'))).toBe(true);
      expect((await parse(suite.operator, 'targets.xlsx', 'ICCID\n' + mine[0])).json().status.message).toBe('File is not a real .xlsx file');
    });

    it('names the rows holding no ICCID (a number cell lost its digits), duplicates and SIMs of another organisation', async () => {
      const numbers = await parse(suite.operator, 'targets.xlsx', book([['ICCID'], [mine[0]], [Number(mine[1])], ['hello']], 'xlsx'));
      expect(numbers.statusCode).toBe(400);
      expect(numbers.json().status.message).toBe(
        'File has no ICCID of 18 to 22 digits on rows 3, 4 (an ICCID stored as a number has lost its last digits; store it as text)',
      );
      expect(numbers.json().data).toMatchObject({ field: 'file', rule: 'fileIccids', offenders: ['3', '4'] });
      const zh = await parse(suite.operator, 'targets.xlsx', book([['ICCID'], ['x']], 'xlsx'), 'zh-CN');
      expect(zh.json().status.message).toBe('文件第 2 行不是 18 至 22 位数字的 ICCID（以数字存储的 ICCID 已丢失末尾数字，请存为文本）');
      const dup = await parse(suite.operator, 'targets.csv', `ICCID\n${mine[0]}\n${mine[1]}\n${mine[0]}\n`);
      expect(dup.json().status.message).toBe(`File contains a duplicate ICCID (${mine[0]})`);
      const theirs = await parse(suite.operator, 'targets.csv', `ICCID\n${mine[0]}\n${foreign}\n`);
      expect(theirs.statusCode).toBe(400);
      expect(theirs.json().status.message).toBe(`Device (ICCID) does not exist: ${foreign}`);
    });

    it('is refused to a user, who cannot make a schedule', async () => {
      const res = await parse(suite.user, 'targets.csv', `ICCID\n${mine[0]}\n`);
      expect(res.statusCode).toBe(403);
    });
  });

  describe('rights', () => {
    it('lets a user read the list but not create, change or delete', async () => {
      expect((await post(suite.user, '/sms/task/list', {})).statusCode).toBe(200);
      const made = (await create(suite.operator)).json().data;
      for (const res of [
        await create(suite.user),
        await post(suite.user, '/sms/task/update', { id: made.id, ...base() }),
        await call(suite.t.app, suite.user, { method: 'PUT', url: '/api/customer/sms/task/status', payload: { id: made.id, status: 'disabled' } }),
        await call(suite.t.app, suite.user, { method: 'DELETE', url: `/api/customer/sms/task?id=${made.id}` }),
      ]) {
        expect(res.statusCode).toBe(403);
        expect(res.json().status.message).toBe('Permission denied');
      }
    });

    it('lets an operator create, edit, disable and delete', async () => {
      const made = (await create(suite.operator)).json().data;
      expect((await post(suite.operator, '/sms/task/update', { id: made.id, ...base({ name: 'Renamed' }) })).json().data.name).toBe('Renamed');
      expect(
        (await call(suite.t.app, suite.operator, { method: 'PUT', url: '/api/customer/sms/task/status', payload: { id: made.id, status: 'disabled' } })).json()
          .data,
      ).toMatchObject({ status: 'disabled', nextRunAt: null });
      expect((await call(suite.t.app, suite.operator, { method: 'DELETE', url: `/api/customer/sms/task?id=${made.id}` })).statusCode).toBe(200);
      expect((await call(suite.t.app, suite.operator, { method: 'GET', url: `/api/customer/sms/task/detail/${made.id}` })).statusCode).toBe(404);
    });

    it("refuses an operator someone else's schedule: an admin's is not theirs to edit, switch or delete", async () => {
      const theirs = (await create(suite.admin, { name: 'Admin poll' })).json().data;
      const mine = (await create(suite.operator, { name: 'Operator poll' })).json().data;
      expect(mine.createdBy).not.toBe(theirs.createdBy);
      for (const lang of ['en-US', 'zh-CN'] as const) {
        for (const res of [
          await post(suite.operator, '/sms/task/update', { id: theirs.id, ...base({ name: 'Taken over' }) }, lang),
          await call(suite.t.app, suite.operator, {
            method: 'PUT',
            url: '/api/customer/sms/task/status',
            payload: { id: theirs.id, status: 'disabled' },
            headers: { language: lang },
          }),
          await call(suite.t.app, suite.operator, { method: 'DELETE', url: `/api/customer/sms/task?id=${theirs.id}`, headers: { language: lang } }),
        ]) {
          expect(res.statusCode, res.body).toBe(403);
          expect(res.json().status.message).toBe(
            lang === 'en-US' ? 'Only its creator or an administrator can change or delete this scheduled SMS.' : '只有创建者或管理员可以修改或删除此定时短信。',
          );
        }
      }
      expect(await detail(theirs.id)).toMatchObject({ name: 'Admin poll', status: 'enabled' });
      // An admin manages every schedule, the operator's included.
      expect(
        (await call(suite.t.app, suite.admin, { method: 'PUT', url: '/api/customer/sms/task/status', payload: { id: mine.id, status: 'disabled' } }))
          .statusCode,
      ).toBe(200);
      expect((await call(suite.t.app, suite.admin, { method: 'DELETE', url: `/api/customer/sms/task?id=${mine.id}` })).statusCode).toBe(200);
      expect((await call(suite.t.app, suite.admin, { method: 'DELETE', url: `/api/customer/sms/task?id=${theirs.id}` })).statusCode).toBe(200);
    });

    it('refuses to edit, switch or delete a once-only schedule in progress with the SPEC text', async () => {
      for (const res of [
        await post(suite.admin, '/sms/task/update', { id: EXECUTING_SCHEDULE_ID, ...base() }),
        await call(suite.t.app, suite.admin, {
          method: 'PUT',
          url: '/api/customer/sms/task/status',
          payload: { id: EXECUTING_SCHEDULE_ID, status: 'disabled' },
        }),
        await call(suite.t.app, suite.admin, { method: 'DELETE', url: `/api/customer/sms/task?id=${EXECUTING_SCHEDULE_ID}` }),
      ]) {
        expect(res.statusCode).toBe(409);
        expect(res.json().status.message).toBe('Scheduled SMS in progress cannot be deleted or edited.');
      }
      expect((await detail(EXECUTING_SCHEDULE_ID)).locked).toBe(true);
    });
  });

  it('keeps an operation log of who changed what', async () => {
    const startAt = new Date(Date.now() + HOUR).toISOString();
    const made = (await create(suite.operator, { name: 'Logged', startAt })).json().data;
    await post(suite.admin, '/sms/task/update', { id: made.id, ...base({ name: 'Logged again', content: 'PONG', startAt }) });
    await call(suite.t.app, suite.operator, { method: 'PUT', url: '/api/customer/sms/task/status', payload: { id: made.id, status: 'disabled' } });
    const log = (await post(suite.user, '/operation/log/list', { id: made.id })).json().data;
    expect(log.total).toBe(3);
    expect(log.items.map((i: { action: string }) => i.action)).toEqual(['disable', 'update', 'create']);
    expect(log.items[0]).toMatchObject({ actorEmail: DEMO.operator, changes: [{ field: 'status', before: 'enabled', after: 'disabled' }] });
    expect(log.items[1].actorEmail).toBe(DEMO.admin);
    expect(log.items[1].changes).toEqual(
      expect.arrayContaining([
        { field: 'name', before: 'Logged', after: 'Logged again' },
        { field: 'content', before: 'PING', after: 'PONG' },
      ]),
    );
    expect(log.items[1].changes).toHaveLength(2);
  });

  describe('the scheduler', () => {
    it('executes an occurrence once when two instances tick together, and mails the chosen addresses', async () => {
      const targets = mine.slice(10, 40);
      const made = (
        await create(suite.admin, {
          name: 'Once, two instances',
          mode: 'once',
          startAt: new Date(Date.now() + 60_000).toISOString(),
          iccids: targets,
          emailNotify: true,
          notifyEmails: ['ops1@demo.example.com', 'ops2@demo.example.com'],
        })
      ).json().data;
      await only(made.id);
      const { net, sent } = counting();
      const later = () => new Date(Date.now() + 2 * 60_000);
      const a = scheduler(net, later, suite.t.db, 7);
      const b = scheduler(net, later, suite.t.db, 7);
      await Promise.all([a.tick(), b.tick(), a.tick(), b.tick()]);
      await Promise.all([a.tick(), b.tick()]);
      const runs = await runsOf(made.id);
      expect(runs).toHaveLength(1);
      expect(runs[0]).toMatchObject({ status: 'done', targets: 30, sent: 30, failed: 0 });
      expect([...sent.keys()].sort()).toEqual([...targets].sort());
      expect([...sent.values()].every((n) => n === 1)).toBe(true);
      const d = await detail(made.id);
      expect(d).toMatchObject({ executing: false, locked: false, nextRunAt: null });
      expect(d.lastRunAt).not.toBeNull();
      const records = (await post(suite.user, '/sms/detail/list', { taskId: made.id, runId: runs[0].id, pageSize: 100 })).json().data;
      expect(records.total).toBe(30);
      expect(records.items.every((r: { status: string; content: string }) => r.status === 'sent' && r.content === 'PING')).toBe(true);
      const mails = (
        await suite.t.db.query<{ to_address: string; subject: string }>(
          `SELECT to_address, subject FROM outbox WHERE subject LIKE '%Once, two instances%' ORDER BY to_address`,
        )
      ).rows;
      expect(mails).toEqual([
        { to_address: 'ops1@demo.example.com', subject: 'Scheduled SMS "Once, two instances": all sent' },
        { to_address: 'ops2@demo.example.com', subject: 'Scheduled SMS "Once, two instances": all sent' },
      ]);
      // One run-level event in the event log (webhooks carry it), written once although two instances ticked, in the
      // transaction that ended the run (the same transaction id as the mails of the outbox written there).
      const finished = await runEvents(made.id);
      expect(finished).toEqual([
        {
          org_id: 'org-demo',
          subject: made.id,
          data: {
            scheduleId: made.id,
            scheduleName: 'Once, two instances',
            runId: String(runs[0].id),
            occurrenceAt: new Date(runs[0].occurrence_at).toISOString(),
            status: 'done',
            targets: 30,
            sent: 30,
            failed: 0,
            skipped: 0,
          },
          same_tx: true,
        },
      ]);
    });

    it('survives a restart mid-run without messaging anyone twice', async () => {
      const targets = mine.slice(100, 350);
      const made = (
        await create(suite.admin, { name: 'Restarted', mode: 'once', startAt: new Date(Date.now() + 60_000).toISOString(), iccids: targets })
      ).json().data;
      await only(made.id);
      const { net, sent } = counting();
      const later = () => new Date(Date.now() + 2 * 60_000);
      // Instance A stops right after the network took its 120th message, before it wrote that down.
      let n = 0;
      const crashing = (q: Queryable): Queryable => ({
        exec: (sql) => q.exec(sql),
        query: (sql, params) => {
          if (/SET status = 'sent'/.test(sql) && ++n === 120) throw new Error('instance stopped');
          return q.query(sql, params);
        },
      });
      const dbA = {
        ...crashing(suite.t.db),
        kind: suite.t.db.kind,
        tx: <T>(fn: (q: Queryable) => Promise<T>) => suite.t.db.tx((q) => fn(crashing(q))),
        cursor: suite.t.db.cursor.bind(suite.t.db),
        close: async () => {},
      } as Db;
      await expect(scheduler(net, later, dbA, 50).tick()).rejects.toThrow('instance stopped');
      expect(sent.size).toBe(120);
      const [run] = await runsOf(made.id);
      expect(run.status).toBe('running');
      expect((await detail(made.id)).locked).toBe(true);
      // Instance B cannot take the run while A's lease holds; once it runs out, it does.
      const b = scheduler(net, later, suite.t.db, 50);
      await b.tick();
      expect((await runsOf(made.id))[0].status).toBe('running');
      await suite.t.db.query(`UPDATE sms_schedule_runs SET heartbeat_at = now() - interval '10 minutes' WHERE id = $1`, [run.id]);
      await b.tick();
      const [after] = await runsOf(made.id);
      expect(after).toMatchObject({ status: 'partial', targets: 250, sent: 249, failed: 1 });
      expect(sent.size).toBe(250);
      expect([...sent.values()].every((c) => c === 1)).toBe(true);
      const failed = (await post(suite.admin, '/sms/detail/list', { taskId: made.id, status: 'failed' })).json().data.items;
      expect(failed).toHaveLength(1);
      expect(failed[0].error).toMatch(/Interrupted by a restart/);
      expect((await detail(made.id)).locked).toBe(false);
    });

    it('sends at 09:00 Berlin time through the March daylight-saving change', async () => {
      // The week around the change: three days at 08:00 UTC (09:00 CET), then from the Sunday of the change 07:00 UTC (CEST).
      const days = [-3, -2, -1, 0, 1, 2, 3].map((d) => new Date(SUMMER_DAY.getTime() + d * DAY));
      const made = (
        await create(suite.admin, { name: 'Daily Berlin', weekdays: [1, 2, 3, 4, 5, 6, 7], startAt: days[0].toISOString(), iccids: mine.slice(500, 502) })
      ).json().data;
      await only(made.id);
      // The clock of this test is the future: the occurrences before now are what the API computed from the start.
      const expected = days.map((d, i) => new Date(d.getTime() + (i < 3 ? 8 : 7) * HOUR).toISOString());
      expect((await detail(made.id)).upcoming).toEqual(expected.slice(0, 5));
      const { net } = counting();
      for (const at of expected) await scheduler(net, () => new Date(new Date(at).getTime() + 60_000)).tick();
      const runs = await runsOf(made.id);
      expect(runs.map((r) => new Date(r.occurrence_at).toISOString())).toEqual(expected);
      expect(runs.every((r) => r.status === 'done' && r.sent === 2)).toBe(true);
      expect((await detail(made.id)).nextRunAt).toBe(new Date(days[6].getTime() + DAY + 7 * HOUR).toISOString());
    });

    it('records occurrences missed for longer than the grace as skipped, and sends the one within it', async () => {
      const made = (
        await create(suite.admin, {
          name: 'Missed',
          weekdays: [1, 2, 3, 4, 5, 6, 7],
          sendTime: '06:00',
          timezone: 'UTC',
          startAt: at('05-01', '00:00'),
          iccids: mine.slice(600, 603),
        })
      ).json().data;
      await only(made.id);
      const { net, sent } = counting();
      // Down from before 1 May 06:00 until 3 May 06:05: two occurrences long past, one 5 minutes late.
      await scheduler(net, () => new Date(at('05-03', '06:05'))).tick();
      const runs = await runsOf(made.id);
      expect(GRACE_MS).toBe(15 * 60_000);
      expect(runs.map((r) => [new Date(r.occurrence_at).toISOString(), r.status])).toEqual([
        [at('05-01', '06:00'), 'skipped'],
        [at('05-02', '06:00'), 'skipped'],
        [at('05-03', '06:00'), 'done'],
      ]);
      expect(sent.size).toBe(3);
      const d = await detail(made.id);
      expect(d.runs.map((r: { status: string }) => r.status)).toEqual(['done', 'skipped', 'skipped']);
      expect(d.nextRunAt).toBe(at('05-04', '06:00'));
      const records = (await post(suite.admin, '/sms/detail/list', { taskId: made.id })).json().data;
      expect(records.total).toBe(3);
      // Each skipped occurrence ends at once, with its event; the run sent ends with its own.
      expect((await runEvents(made.id)).map((e) => [e.data.occurrenceAt, e.data.status, e.data.targets, e.data.sent, e.data.skipped])).toEqual([
        [at('05-01', '06:00'), 'skipped', 3, 0, 3],
        [at('05-02', '06:00'), 'skipped', 3, 0, 3],
        [at('05-03', '06:00'), 'done', 3, 3, 0],
      ]);
    });

    it('takes the organisation SMS quota, and fails by name the targets it no longer covers', async () => {
      const made = (
        await create(suite.admin, { name: 'Quota', mode: 'once', startAt: new Date(Date.now() + 60_000).toISOString(), iccids: mine.slice(900, 905) })
      ).json().data;
      await only(made.id);
      await suite.t.db.query(`UPDATE organisations SET sms_used = sms_quota - 3 WHERE id = 'org-demo'`);
      const { net, sent } = counting();
      await scheduler(net, () => new Date(Date.now() + 2 * 60_000)).tick();
      const [run] = await runsOf(made.id);
      expect(run).toMatchObject({ status: 'partial', sent: 3, failed: 2 });
      expect(sent.size).toBe(3);
      const failed = (await post(suite.admin, '/sms/detail/list', { taskId: made.id, status: 'failed' })).json().data.items;
      expect(failed.map((r: { error: string }) => r.error)).toEqual(["The organisation's SMS quota is used up.", "The organisation's SMS quota is used up."]);
      const org = (await suite.t.db.query<{ left: number }>(`SELECT sms_quota - sms_used AS left FROM organisations WHERE id = 'org-demo'`)).rows[0];
      expect(Number(org.left)).toBe(0);
      await suite.t.db.query(`UPDATE organisations SET sms_quota = 1000000, sms_used = 0 WHERE id = 'org-demo'`);
    });

    it('sends nothing for a disabled schedule and restarts from now when it is enabled again', async () => {
      const made = (
        await create(suite.admin, {
          name: 'Paused',
          weekdays: [1, 2, 3, 4, 5, 6, 7],
          timezone: 'UTC',
          startAt: at('06-01', '00:00'),
          iccids: mine.slice(700, 701),
        })
      ).json().data;
      await only(made.id);
      await call(suite.t.app, suite.admin, { method: 'PUT', url: '/api/customer/sms/task/status', payload: { id: made.id, status: 'disabled' } });
      const { net, sent } = counting();
      await scheduler(net, () => new Date(at('06-03', '09:01'))).tick();
      expect(await runsOf(made.id)).toEqual([]);
      expect(sent.size).toBe(0);
      const on = (
        await call(suite.t.app, suite.admin, { method: 'PUT', url: '/api/customer/sms/task/status', payload: { id: made.id, status: 'enabled' } })
      ).json().data;
      expect(on.status).toBe('enabled');
      expect(on.nextRunAt).toBe(at('06-01', '09:00'));
    });
  });

  describe('a schedule with nothing more to send', () => {
    it('is finished once its only run has sent: nothing to switch or edit, and it can still be deleted', async () => {
      const sendAt = new Date(Date.now() + 60_000);
      const made = (await create(suite.admin, { name: 'Sent once', mode: 'once', startAt: sendAt.toISOString(), iccids: mine.slice(900, 901) })).json().data;
      expect(made).toMatchObject({ status: 'enabled', finished: false });
      await only(made.id);
      const { net } = counting();
      const run = scheduler(net, () => new Date(sendAt.getTime() + 60_000));
      await run.tick();
      await run.tick();
      const done = await detail(made.id);
      expect(done).toMatchObject({ status: 'enabled', executing: false, nextRunAt: null, finished: true });
      expect(done.lastRunAt).not.toBeNull();
      // The list says the same as the details.
      const listed = (await post(suite.admin, '/sms/task/list', { page: 1, pageSize: 100, name: 'Sent once' })).json().data.items;
      expect(listed.find((s: { id: string }) => s.id === made.id).finished).toBe(true);
      for (const language of ['en-US', 'zh-CN']) {
        for (const res of [
          await post(
            suite.admin,
            '/sms/task/update',
            { id: made.id, ...base({ name: 'Sent twice', mode: 'once', startAt: new Date(Date.now() + 3_600_000).toISOString() }) },
            language,
          ),
          await call(suite.t.app, suite.admin, {
            method: 'PUT',
            url: '/api/customer/sms/task/status',
            payload: { id: made.id, status: 'disabled' },
            headers: { language },
          }),
        ]) {
          expect(res.statusCode).toBe(409);
          expect(res.json().status.message).toMatch(language === 'en-US' ? /^Finished: this schedule has nothing more to send/ : /^已完成/);
        }
      }
      expect((await detail(made.id)).finished).toBe(true);
      expect((await call(suite.t.app, suite.admin, { method: 'DELETE', url: `/api/customer/sms/task?id=${made.id}` })).statusCode).toBe(200);
    });
  });

  describe('files through the task center', () => {
    it('writes the MT report, the MO report and the target SIM list', async () => {
      const targets = mine.slice(800, 804);
      const made = (await create(suite.admin, { name: 'Reported', mode: 'once', startAt: new Date(Date.now() + 60_000).toISOString(), iccids: targets })).json()
        .data;
      await only(made.id);
      const { net } = counting();
      await scheduler(net, () => new Date(Date.now() + 2 * 60_000)).tick();
      // A device answers one of the messages.
      const mt = (
        await suite.t.db.query<{ id: string; sim_id: string; iccid: string }>(
          `SELECT id, sim_id, iccid FROM sms_records WHERE schedule_id = $1 ORDER BY iccid LIMIT 1`,
          [made.id],
        )
      ).rows[0];
      await suite.t.db.query(
        `INSERT INTO sms_records (org_id, id, sim_id, iccid, direction, content, status, reply_to_id) VALUES ('org-demo', 'moreplyschedtest0001', $1, $2, 'MO', 'PONG', 'received', $3)`,
        [mt.sim_id, mt.iccid, mt.id],
      );
      const fileOf = async (taskId: string) => {
        while (await suite.t.app.jobs.runOnce());
        const task = (
          await suite.t.db.query<{ status: string; storage_key: string }>(
            'SELECT t.status, f.storage_key FROM tasks t JOIN files f ON f.id = t.result_file_id WHERE t.id = $1',
            [taskId],
          )
        ).rows[0];
        expect(task.status).toBe('done');
        return fs
          .readFileSync(path.join(suite.t.config.dataDir, 'files', task.storage_key), 'utf8')
          .replace(/^\uFEFF/, '')
          .trim()
          .split(/\r\n/);
      };
      const mtTask = (await call(suite.t.app, suite.user, { method: 'POST', url: '/api/main/sms/generateSMSMtTaskReport', payload: { id: made.id } })).json()
        .data;
      expect(mtTask.quantity).toBe(4);
      const mtLines = await fileOf(mtTask.taskId);
      expect(mtLines[0]).toBe('Run time (UTC),ICCID,MSISDN,Content,Status,Error,Sent at (UTC),Delivered at (UTC)');
      expect(mtLines).toHaveLength(5);
      const moTask = (await call(suite.t.app, suite.user, { method: 'POST', url: '/api/main/sms/generateSMSMoTaskReport', payload: { id: made.id } })).json()
        .data;
      const moLines = await fileOf(moTask.taskId);
      expect(moLines).toHaveLength(2);
      expect(moLines[1]).toContain(`${mt.iccid}`);
      expect(moLines[1]).toContain('PONG');
      const simTask = (await call(suite.t.app, suite.user, { method: 'GET', url: `/api/customer/sms/sim/download/csv?id=${made.id}` })).json().data;
      const simLines = await fileOf(simTask.taskId);
      expect(simLines.slice(1).map((l) => l.split(',')[0])).toEqual(targets);
      const template = await call(suite.t.app, suite.user, { method: 'GET', url: '/api/customer/sms/sendTemplate' });
      expect(template.statusCode).toBe(200);
      expect(template.body).toContain('ICCID');
    });

    it('refuses a report of a schedule with nothing to report', async () => {
      const made = (await create(suite.admin, { name: 'Quiet' })).json().data;
      const res = await call(suite.t.app, suite.admin, { method: 'POST', url: '/api/main/sms/generateSMSMoTaskReport', payload: { id: made.id } });
      expect(res.statusCode).toBe(400);
      expect(res.json().status.message).toBe('No data to export');
    });
  });
});
