/**
 * SMS: the content rules, the organisation's quota taken atomically, the batch send SIM by SIM
 * (server/sms/), and the main API's SMS calls: the All SMS list with its reply threads, send, reply, the quota balance
 * and the list's download.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { checkSmsContent } from '../../common/sms.js';
import { checkMsisdn } from '../../common/msisdn.js';
import { ApiError } from '../../server/http/api-error.js';
import { sendSmsBatch } from '../../server/sms/send.js';
import { INTERRUPTED, PENDING_GIVE_UP_MINUTES, sweepPendingSms } from '../../server/sms/pending-sweep.js';
import { newId } from '../../server/db/ids.js';
import { smsQuotaOf } from '../../server/sms/quota.js';
import { networkReports } from '../../server/network-reports/network-reports.js';
import { SimulatedNetwork } from '../../server/network/simulator.js';
import { call, countRows, DB_KINDS, DEMO, type Session, signedInSuite } from '../helper.js';

describe('SMS content rules', () => {
  it('takes text up to 140 characters and refuses 141', () => {
    expect(checkSmsContent('a'.repeat(140), 'text')).toMatchObject({ ok: true, encoding: 'gsm7', length: 140 });
    expect(checkSmsContent('a'.repeat(141), 'text')).toMatchObject({ ok: false, rule: 'tooLong', length: 141 });
  });

  it('counts characters, not bytes: 140 Chinese characters go as UCS-2', () => {
    expect(checkSmsContent('短'.repeat(140), 'text')).toMatchObject({ ok: true, encoding: 'ucs2', length: 140 });
    expect(checkSmsContent('短'.repeat(141), 'text')).toMatchObject({ ok: false, rule: 'tooLong' });
  });

  it('keeps the GSM 7-bit alphabet and its extension table in GSM 7-bit', () => {
    expect(checkSmsContent('Temp 4°C? no: €5 [ok] {x} ~ ^ | \\ @£$¥ èé ÄÖÑÜ§¿ äöñüà\r\n', 'text')).toMatchObject({ ok: true, encoding: 'ucs2' });
    expect(checkSmsContent('€5 [ok] {x} ~ ^ | \\ @£$¥ èé ÄÖÑÜ§¿ äöñüà\r\n', 'text')).toMatchObject({ ok: true, encoding: 'gsm7' });
  });

  it('refuses what the SMS alphabet cannot carry: characters beyond the BMP and control characters', () => {
    expect(checkSmsContent('hi 😀', 'text')).toMatchObject({ ok: false, rule: 'alphabet', offenders: ['😀'] });
    expect(checkSmsContent('a\u0007b', 'text')).toMatchObject({ ok: false, rule: 'alphabet', offenders: ['\u0007'] });
  });

  it('refuses empty and blank content of either type', () => {
    expect(checkSmsContent('', 'text')).toMatchObject({ ok: false, rule: 'empty' });
    expect(checkSmsContent('  \n', 'text')).toMatchObject({ ok: false, rule: 'empty' });
    expect(checkSmsContent('', 'binary')).toMatchObject({ ok: false, rule: 'empty' });
  });

  it('takes binary as hex up to 140 octets and refuses 141, odd digits and non-hex', () => {
    expect(checkSmsContent('0a'.repeat(140), 'binary')).toMatchObject({ ok: true, content: '0A'.repeat(140), length: 140 });
    expect(checkSmsContent('0A 1B 2C', 'binary')).toMatchObject({ ok: true, content: '0A1B2C' });
    expect(checkSmsContent('0A'.repeat(141), 'binary')).toMatchObject({ ok: false, rule: 'tooLong', length: 141 });
    expect(checkSmsContent('0A1', 'binary')).toMatchObject({ ok: false, rule: 'notHex' });
    expect(checkSmsContent('0G', 'binary')).toMatchObject({ ok: false, rule: 'notHex' });
  });
});

describe('MSISDN rules', () => {
  it('takes international numbers without the plus, checking the country code and the length', () => {
    expect(checkMsisdn('491511234567')).toEqual({ ok: true, countryCode: '49' });
    expect(checkMsisdn('882360001234567')).toEqual({ ok: true, countryCode: '882' });
    expect(checkMsisdn('+491511234567')).toEqual({ ok: false, rule: 'format' });
    expect(checkMsisdn('01511234567')).toEqual({ ok: false, rule: 'format' });
    expect(checkMsisdn('2891234567')).toEqual({ ok: false, rule: 'countryCode' });
    expect(checkMsisdn('4912345678901234')).toEqual({ ok: false, rule: 'length' });
    expect(checkMsisdn('491234567890123')).toEqual({ ok: true, countryCode: '49' });
    expect(checkMsisdn('49123')).toEqual({ ok: false, rule: 'length' });
    expect(checkMsisdn('491234')).toEqual({ ok: true, countryCode: '49' });
  });
});

describe.each(DB_KINDS)('SMS batch send on %s', (kind) => {
  const suite = signedInSuite(kind);
  const simOf = async (status: string, org = 'org-demo') =>
    (
      await suite.t.db.query<{ iccid: string; id: string }>(
        `SELECT iccid, id FROM sims WHERE org_id = $1 AND status = $2 AND msisdn IS NOT NULL ORDER BY iccid LIMIT 1`,
        [org, status],
      )
    ).rows[0];
  const setQuota = (org: string, quota: number, used = 0) =>
    suite.t.db.query('UPDATE organisations SET sms_quota = $2, sms_used = $3 WHERE id = $1', [org, quota, used]);

  it('refuses SIM by SIM: not in the organisation, a state that cannot receive SMS; sends the rest', async () => {
    await setQuota('org-demo', 100);
    const active = await simOf('active');
    const pre = await simOf('pre_activated');
    const foreign = await simOf('active', 'org-other');
    const states = await Promise.all(['inactive', 'paused', 'expired', 'terminated'].map((s) => simOf(s)));
    const before = await countRows(suite.t.db, 'sms_records');
    const r = await sendSmsBatch(suite.t.db, suite.t.app.network, {
      orgId: 'org-demo',
      accountId: 'acc-operator',
      iccids: [active.iccid, active.iccid, pre.iccid, foreign.iccid, ...states.map((s) => s.iccid), '89000000000000000000'],
      content: 'PING',
      smsType: 'text',
    });
    expect(r.results.map((x) => [x.ok, x.reason ?? x.status])).toEqual([
      [true, 'sent'],
      [true, 'sent'],
      [false, 'notExist'],
      [false, 'inactive'],
      [false, 'paused'],
      [false, 'expired'],
      [false, 'terminated'],
      [false, 'notExist'],
    ]);
    expect(r.results[2].message).toBe('Device (ICCID) does not exist');
    expect(r.results[4].message).toBe('The SIM is suspended and cannot receive SMS.');
    expect(r).toMatchObject({ accepted: 2, refused: 6, quota: { quota: 100, used: 2, remaining: 98 } });
    expect(await countRows(suite.t.db, 'sms_records')).toBe(before + 2);
    const rows = (
      await suite.t.db.query<{ status: string; account_id: string; direction: string }>(
        'SELECT status, account_id, direction FROM sms_records WHERE id = ANY($1::text[])',
        [[r.results[0].smsId, r.results[1].smsId]],
      )
    ).rows;
    expect(rows).toEqual([
      { status: 'sent', account_id: 'acc-operator', direction: 'MT' },
      { status: 'sent', account_id: 'acc-operator', direction: 'MT' },
    ]);
  });

  it('refuses content that does not comply before anything is written', async () => {
    const active = await simOf('active');
    const before = await countRows(suite.t.db, 'sms_records');
    const quota = await smsQuotaOf(suite.t.db, 'org-demo');
    const err = await sendSmsBatch(suite.t.db, suite.t.app.network, {
      orgId: 'org-demo',
      accountId: null,
      iccids: [active.iccid],
      content: 'x'.repeat(141),
      smsType: 'text',
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).messageKey).toBe('errors.sms.content.tooLong');
    expect(await countRows(suite.t.db, 'sms_records')).toBe(before);
    expect(await smsQuotaOf(suite.t.db, 'org-demo')).toEqual(quota);
  });

  it('stores 140 octets of binary as hex', async () => {
    const active = await simOf('active');
    const r = await sendSmsBatch(suite.t.db, suite.t.app.network, {
      orgId: 'org-demo',
      accountId: null,
      iccids: [active.iccid],
      content: 'ab'.repeat(140),
      smsType: 'binary',
    });
    expect(r.accepted).toBe(1);
    expect((await suite.t.db.query('SELECT content, sms_type FROM sms_records WHERE id = $1', [r.results[0].smsId])).rows[0]).toEqual({
      content: 'AB'.repeat(140),
      sms_type: 'binary',
    });
  });

  it('refuses what the quota cannot cover as exhausted, in the order given', async () => {
    await setQuota('org-demo', 10, 9);
    const sims = (
      await suite.t.db.query<{ iccid: string }>(`SELECT iccid FROM sims WHERE org_id = 'org-demo' AND status = 'active' ORDER BY iccid LIMIT 3`)
    ).rows.map((s) => s.iccid);
    const r = await sendSmsBatch(suite.t.db, suite.t.app.network, {
      orgId: 'org-demo',
      accountId: null,
      iccids: sims,
      content: 'PING',
      smsType: 'text',
      lang: 'es-ES',
    });
    expect(r.results.map((x) => x.reason ?? x.status)).toEqual(['sent', 'quotaExhausted', 'quotaExhausted']);
    expect(r.results[1].message).toBe('La cuota de SMS de la organización se ha agotado.');
    expect(r.quota).toEqual({ quota: 10, used: 10, remaining: 0 });
  });

  it('lets exactly one of two concurrent senders have the last unit of the quota', async () => {
    await setQuota('org-demo', 5, 4);
    const sims = (
      await suite.t.db.query<{ iccid: string }>(`SELECT iccid FROM sims WHERE org_id = 'org-demo' AND status = 'active' ORDER BY iccid LIMIT 2`)
    ).rows.map((s) => s.iccid);
    const before = await countRows(suite.t.db, 'sms_records');
    const both = await Promise.all(
      sims.map((iccid) =>
        sendSmsBatch(suite.t.db, suite.t.app.network, { orgId: 'org-demo', accountId: null, iccids: [iccid], content: 'PING', smsType: 'text' }),
      ),
    );
    expect(both.map((b) => b.accepted).sort()).toEqual([0, 1]);
    expect(both.flatMap((b) => b.results.map((x) => x.reason ?? x.status)).sort()).toEqual(['quotaExhausted', 'sent']);
    expect(await countRows(suite.t.db, 'sms_records')).toBe(before + 1);
    expect(await smsQuotaOf(suite.t.db, 'org-demo')).toEqual({ quota: 5, used: 5, remaining: 0 });
  });

  it('gives the unit back for an SMS the network refuses at hand-off, which is stored as failed', async () => {
    await setQuota('org-demo', 10, 0);
    const active = await simOf('active');
    const network = {
      ...suite.t.app.network,
      sendSms: async () => ({ iccid: active.iccid, ok: false, error: 'SMSC unavailable' }),
    } as unknown as typeof suite.t.app.network;
    const r = await sendSmsBatch(suite.t.db, network, { orgId: 'org-demo', accountId: null, iccids: [active.iccid], content: 'PING', smsType: 'text' });
    expect(r.results[0]).toMatchObject({ ok: false, reason: 'network', status: 'failed' });
    expect((await suite.t.db.query('SELECT status, error FROM sms_records WHERE id = $1', [r.results[0].smsId])).rows[0]).toEqual({
      status: 'failed',
      error: 'SMSC unavailable',
    });
    expect(await smsQuotaOf(suite.t.db, 'org-demo')).toEqual({ quota: 10, used: 0, remaining: 10 });
  });
});

describe.each(DB_KINDS)('SMS calls of the main API on %s', (kind) => {
  const suite = signedInSuite(kind, { operator: DEMO.operator, user: DEMO.user, other: 'admin@other.example.com' });
  const SEND = '/api/main/sms/send';
  const LIST = '/api/main/sms/list';
  const send = (s: Session, payload: Record<string, unknown>, url = SEND) => call(suite.t.app, s, { method: 'POST', url, payload });
  const list = async (s: Session, payload: Record<string, unknown> = {}) => {
    const res = await call(suite.t.app, s, { method: 'POST', url: LIST, payload });
    expect(res.statusCode, res.body).toBe(200);
    return res.json().data as { items: Array<Record<string, unknown> & { replies: Array<Record<string, unknown>> }>; total: number };
  };
  const active = async (org = 'org-demo', n = 1) =>
    (
      await suite.t.db.query<{ iccid: string; msisdn: string }>(
        `SELECT iccid, msisdn FROM sims WHERE org_id = $1 AND status = 'active' AND msisdn IS NOT NULL ORDER BY iccid LIMIT $2`,
        [org, n],
      )
    ).rows;
  const setQuota = (quota: number, used = 0) => suite.t.db.query(`UPDATE organisations SET sms_quota = $1, sms_used = $2 WHERE id = 'org-demo'`, [quota, used]);
  const network = () => new SimulatedNetwork(suite.t.db, networkReports(suite.t.db), { enabled: true, seed: 'sms', simsPerTick: 1000, moReplyChance: 1 });

  beforeAll(async () => {
    await setQuota(100_000);
  });

  it('says whether the organisation one works in has SMS (a quota issued to it); another organisation is not found', async () => {
    const has = (who: Session, id: string) => call(suite.t.app, who, { method: 'GET', url: `/api/main/sms/auto/config/has_sms_config/${id}` });
    expect((await has(suite.user, 'org-demo')).json().data).toEqual({ hasSmsConfig: true, quota: 100_000, remaining: expect.any(Number) });
    const foreign = await has(suite.user, 'org-other');
    expect(foreign.statusCode).toBe(404);
    // The refusal any missing record gets: nothing of the other organisation's quota.
    expect(foreign.json().data).toEqual({ entity: 'organisation', id: 'org-other' });
    await setQuota(0);
    try {
      expect((await has(suite.user, 'org-demo')).json().data).toMatchObject({ hasSmsConfig: false, quota: 0 });
    } finally {
      await setQuota(100_000);
    }
  });

  it('gives up on SMS a stopped process left pending: failed after the wait, the quota given back, recent ones kept', async () => {
    const [sim] = await active();
    // The demo's own old pending SMS (seeded on their way) go first, so what follows counts only this test's.
    await sweepPendingSms(suite.t.db, new Date());
    await setQuota(10, 2);
    const pending = async (minutesAgo: number, scheduleId: string | null = null) => {
      const id = newId();
      await suite.t.db.query(
        `INSERT INTO sms_records (org_id, id, sim_id, iccid, msisdn, direction, content, status, schedule_id, created_at)
         SELECT org_id, $2, id, iccid, msisdn, 'MT', 'PING', 'pending', $3, now() - make_interval(mins => $4) FROM sims WHERE org_id = 'org-demo' AND iccid = $1`,
        [sim.iccid, id, scheduleId, minutesAgo],
      );
      return id;
    };
    const stale = await pending(PENDING_GIVE_UP_MINUTES + 1);
    const fresh = await pending(PENDING_GIVE_UP_MINUTES - 1);
    const status = async (id: string) =>
      (await suite.t.db.query<{ status: string; error: string | null }>('SELECT status, error FROM sms_records WHERE id = $1', [id])).rows[0];
    try {
      expect(await sweepPendingSms(suite.t.db, new Date())).toBe(1);
      expect(await status(stale)).toEqual({ status: 'failed', error: INTERRUPTED });
      expect((await status(fresh)).status).toBe('pending');
      expect(await smsQuotaOf(suite.t.db, 'org-demo')).toMatchObject({ quota: 10, used: 1 });
      // Nothing left to give up: a second run changes nothing.
      expect(await sweepPendingSms(suite.t.db, new Date())).toBe(0);
    } finally {
      await suite.t.db.query('DELETE FROM sms_records WHERE id = ANY($1::text[])', [[stale, fresh]]);
      await setQuota(100_000);
    }
  });

  it('lets a user read the list and the quota but not send or reply', async () => {
    const [sim] = await active();
    expect((await list(suite.user)).total).toBeGreaterThan(0);
    expect((await call(suite.t.app, suite.user, { method: 'GET', url: '/api/main/sms/org/remain_usage' })).json().data).toMatchObject({ quota: 100_000 });
    const before = await countRows(suite.t.db, 'sms_records');
    for (const [url, payload] of [
      [SEND, { iccids: [sim.iccid], content: 'PING' }],
      ['/api/main/sms/reply', { id: 'x'.repeat(20), content: 'PING' }],
    ] as const) {
      const res = await send(suite.user, payload, url);
      expect(res.statusCode).toBe(403);
      expect(res.json().status.message).toBe('Permission denied');
    }
    expect(await countRows(suite.t.db, 'sms_records')).toBe(before);
  });

  it("sends text of 140 characters and refuses 141 with SPEC.md's words and the rule", async () => {
    const [sim] = await active();
    const ok = await send(suite.operator, { iccids: [sim.iccid], content: 'a'.repeat(140) });
    expect(ok.statusCode, ok.body).toBe(200);
    expect(ok.json().data).toMatchObject({ accepted: 1, refused: 0, results: [{ iccid: sim.iccid, ok: true, status: 'sent' }] });
    const no = await send(suite.operator, { iccids: [sim.iccid], content: 'a'.repeat(141) });
    expect(no.statusCode).toBe(400);
    expect(no.json().status.message).toBe('Content does not comply: 141 characters, at most 140.');
    expect(no.json().data).toEqual({ field: 'content', rule: 'smsContent.tooLong' });
  });

  it('sends binary of 140 octets and refuses 141, odd or non-hex digits', async () => {
    const [sim] = await active();
    expect((await send(suite.operator, { iccids: [sim.iccid], smsType: 'binary', content: '0F'.repeat(140) })).json().data.accepted).toBe(1);
    const long = await send(suite.operator, { iccids: [sim.iccid], smsType: 'binary', content: '0F'.repeat(141) });
    expect(long.json().status.message).toBe('Content does not comply: 141 octets, at most 140.');
    const odd = await send(suite.operator, { iccids: [sim.iccid], smsType: 'binary', content: '0F1' });
    expect(odd.json().status.message).toBe('Content does not comply: binary content must be hexadecimal digits (0-9, A-F) in pairs.');
  });

  it("refuses empty content and characters the SMS alphabet cannot carry, in the caller's language", async () => {
    const [sim] = await active();
    expect((await send(suite.operator, { iccids: [sim.iccid], content: '' })).json().status.message).toBe('Content does not comply: it is empty.');
    const emoji = await call(suite.t.app, suite.operator, {
      method: 'POST',
      url: SEND,
      payload: { iccids: [sim.iccid], content: 'hi 😀' },
      headers: { language: 'zh-CN' },
    });
    expect(emoji.statusCode).toBe(400);
    expect(emoji.json().status.message).toBe('内容不合规：短信字符集无法承载 😀。');
  });

  it('takes 1000 ICCIDs and refuses 1001', async () => {
    const [sim] = await active();
    const fake = (n: number) => Array.from({ length: n }, (_, i) => `8999${String(i).padStart(16, '0')}`);
    const thousand = await send(suite.operator, { iccids: [sim.iccid, ...fake(999)], content: 'PING' });
    expect(thousand.statusCode).toBe(200);
    expect(thousand.json().data).toMatchObject({ accepted: 1, refused: 999 });
    expect(thousand.json().data.results[1]).toMatchObject({ ok: false, reason: 'notExist', message: 'Device (ICCID) does not exist' });
    const before = await countRows(suite.t.db, 'sms_records');
    const over = await send(suite.operator, { iccids: [sim.iccid, ...fake(1000)], content: 'PING' });
    expect(over.statusCode).toBe(400);
    expect(over.json().status.message).toBe('At most 1000 SIMs at a time.');
    expect(await countRows(suite.t.db, 'sms_records')).toBe(before);
    expect((await send(suite.operator, { iccids: [], content: 'PING' })).json().status.message).toBe('Choose at least one SIM or number to send to.');
  });

  it("refuses another organisation's ICCID as a device that does not exist, and sends it nothing", async () => {
    const [foreign] = await active('org-other');
    const before = await countRows(suite.t.db, 'sms_records', 'iccid = $1', [foreign.iccid]);
    const res = await send(suite.operator, { iccids: [foreign.iccid], content: 'PING' });
    expect(res.json().data.results).toEqual([{ iccid: foreign.iccid, ok: false, reason: 'notExist', message: 'Device (ICCID) does not exist' }]);
    expect(await countRows(suite.t.db, 'sms_records', 'iccid = $1', [foreign.iccid])).toBe(before);
    // And the other organisation does not see Demo's SMS.
    const theirs = await list(suite.other, { search: { field: 'iccid', value: (await active())[0].iccid } });
    expect(theirs.total).toBe(0);
  });

  it('validates numbers (country code, length, no plus) and sends to the SIM a number names', async () => {
    const [sim] = await active();
    for (const [value, message] of [
      ['+491511234567', '+491511234567 must be digits in international format, country code first, without + or a leading 0'],
      ['2891234567', '2891234567 does not start with a known country calling code'],
      ['4915112345678901', '4915112345678901 must have at most 15 digits with the country code and at least 4 after it'],
    ]) {
      const res = await send(suite.operator, { msisdns: [value], content: 'PING' });
      expect(res.statusCode).toBe(400);
      expect(res.json().status.message).toBe(message);
    }
    const res = await send(suite.operator, { msisdns: [sim.msisdn, '491700000000'], content: 'PING' });
    expect(res.json().data.results).toEqual([
      expect.objectContaining({ iccid: sim.iccid, msisdn: sim.msisdn, ok: true, status: 'sent' }),
      { iccid: '', msisdn: '491700000000', ok: false, reason: 'notExistMsisdn', message: 'Device (MSISDN) does not exist' },
    ]);
  });

  it('lets exactly one of two operators sending at once have the last unit of the quota', async () => {
    await setQuota(1);
    const [a, b] = await active('org-demo', 2);
    const before = await countRows(suite.t.db, 'sms_records');
    const [r1, r2] = await Promise.all([
      send(suite.operator, { iccids: [a.iccid], content: 'PING' }),
      send(suite.operator, { iccids: [b.iccid], content: 'PING' }),
    ]);
    const results = [...r1.json().data.results, ...r2.json().data.results];
    expect(results.map((r) => r.reason ?? r.status).sort()).toEqual(['quotaExhausted', 'sent']);
    expect(results.find((r) => !r.ok).message).toBe("The organisation's SMS quota is used up.");
    expect(await countRows(suite.t.db, 'sms_records')).toBe(before + 1);
    expect((await call(suite.t.app, suite.operator, { method: 'GET', url: '/api/main/sms/org/remain_usage' })).json().data).toEqual({
      quota: 1,
      used: 1,
      remaining: 0,
    });
    await setQuota(100_000);
  });

  it("follows the network: delivered, the device's answer under the SMS, the operator's reply under that, failed for a SIM out of service; all in the event log", async () => {
    const [sim] = await active();
    const pre = (
      await suite.t.db.query<{ iccid: string }>(
        `SELECT iccid FROM sims WHERE org_id = 'org-demo' AND status = 'pre_activated' AND msisdn IS NOT NULL ORDER BY iccid LIMIT 1`,
      )
    ).rows[0];
    const lastEvent = Number((await suite.t.db.query<{ id: string }>('SELECT coalesce(max(id), 0) AS id FROM events')).rows[0].id);
    const sent = (await send(suite.operator, { iccids: [sim.iccid, pre.iccid], content: 'PING' })).json().data;
    const [mt, toPre] = sent.results.map((r: { smsId: string }) => r.smsId);
    let page = await list(suite.user, { search: { field: 'iccid', value: sim.iccid.slice(-6) }, direction: 'MT' });
    expect(page.items[0]).toMatchObject({ id: mt, status: 'sent', iccid: sim.iccid, accountName: expect.any(String), replies: [] });

    // A step a few seconds ago: the device answers a second after delivery, before the operator replies now.
    await network().step(new Date(Date.now() - 5000));
    page = await list(suite.user, { search: { field: 'iccid', value: sim.iccid.slice(-6) } });
    const row = page.items.find((r) => r.id === mt)!;
    expect(row.status).toBe('delivered');
    expect(row.replies).toEqual([expect.objectContaining({ direction: 'MO', content: 'PONG', status: 'received', replyToId: mt })]);
    // The device's answer is under the SMS, not a row of its own.
    expect(page.items.some((r) => r.id === row.replies[0].id)).toBe(false);
    expect((await list(suite.user, { search: { field: 'iccid', value: pre.iccid } })).items.find((r) => r.id === toPre)).toMatchObject({
      status: 'failed',
      error: 'Absent subscriber',
    });

    const reply = await send(suite.operator, { id: row.replies[0].id, content: 'ACK' }, '/api/main/sms/reply');
    expect(reply.json().data).toMatchObject({ accepted: 1, results: [{ iccid: sim.iccid, ok: true }] });
    const thread = (await list(suite.user, { search: { field: 'iccid', value: sim.iccid } })).items.find((r) => r.id === mt)!;
    expect(thread.replies.map((r) => [r.direction, r.content])).toEqual([
      ['MO', 'PONG'],
      ['MT', 'ACK'],
    ]);
    // Only a device's message can be answered.
    expect((await send(suite.operator, { id: mt, content: 'ACK' }, '/api/main/sms/reply')).json().status.message).toBe(
      'Only a message received from a device can be answered.',
    );

    const events = (
      await suite.t.db.query<{ subtype: string; data: { smsId?: string } }>(`SELECT subtype, data FROM events WHERE type = 'sms' AND id > $1 ORDER BY id`, [
        lastEvent,
      ])
    ).rows;
    expect(events.map((e) => [e.subtype, e.data.smsId])).toEqual(
      expect.arrayContaining([
        ['delivered', mt],
        ['failed', toPre],
        ['received', row.replies[0].id],
      ]),
    );
  });

  it('filters by direction, status, time, trailing digits of the number and content; pages on the server', async () => {
    const [sim] = await active();
    const marker = `FILTER ${Date.now()}`;
    await send(suite.operator, { iccids: [sim.iccid], content: marker });
    const found = await list(suite.user, {
      content: marker.slice(7).toLowerCase(),
      direction: 'MT',
      status: 'sent',
      search: { field: 'msisdn', value: sim.msisdn.slice(-4) },
      createdAtFrom: new Date(Date.now() - 60_000).toISOString(),
    });
    expect(found.items.map((r) => r.content)).toEqual([marker]);
    expect((await list(suite.user, { content: marker, direction: 'MO' })).total).toBe(0);
    expect((await list(suite.user, { content: marker, createdAtTo: new Date(Date.now() - 3_600_000).toISOString() })).total).toBe(0);
    const p1 = await list(suite.user, { pageSize: 2 });
    const p2 = await list(suite.user, { pageSize: 2, page: 2 });
    expect(p1.items).toHaveLength(2);
    expect(p2.items[0].id).not.toBe(p1.items[0].id);
    expect(new Date(String(p1.items[0].createdAt)).getTime()).toBeGreaterThanOrEqual(new Date(String(p1.items[1].createdAt)).getTime());
    const bad = await call(suite.t.app, suite.user, { method: 'POST', url: LIST, payload: { search: { field: 'iccid', value: '12a' } } });
    expect(bad.statusCode).toBe(400);
  });

  it('downloads the filtered list through the task center', async () => {
    const [sim] = await active();
    const res = await call(suite.t.app, suite.user, {
      method: 'POST',
      url: '/api/main/sms/list/download',
      payload: { format: 'csv', search: { field: 'iccid', value: sim.iccid } },
    });
    expect(res.statusCode, res.body).toBe(200);
    const { taskId, quantity } = res.json().data;
    expect(quantity).toBe(await countRows(suite.t.db, 'sms_records', `org_id = 'org-demo' AND iccid = $1`, [sim.iccid]));
    expect(await suite.t.app.jobs.runOnce()).toBe(true);
    const token = await call(suite.t.app, suite.user, { method: 'GET', url: `/api/job/rest/job/my/oneTimeToken?id=${taskId}` });
    const file = await suite.t.app.inject({ method: 'GET', url: token.json().data.url });
    const lines = file.body
      .replace(/^\uFEFF/, '')
      .trim()
      .split('\r\n');
    expect(lines).toHaveLength(quantity + 1);
    expect(lines[0]).toContain('ICCID');
    const none = await call(suite.t.app, suite.user, {
      method: 'POST',
      url: '/api/main/sms/list/download',
      payload: { format: 'csv', content: 'no such text anywhere' },
    });
    expect(none.json().status.message).toBe('No data to export');
  });

  it('sends from a file made from the send template, as multipart', async () => {
    const [sim] = await active();
    const tpl = await call(suite.t.app, suite.operator, { method: 'GET', url: '/api/main/sms/sendTemplate?format=csv' });
    expect(tpl.statusCode).toBe(200);
    expect(tpl.body).toContain('ICCID');
    const boundary = '----sms';
    const part = (name: string, value: string, file?: string) =>
      `--${boundary}\r\nContent-Disposition: form-data; name="${name}"${file ? `; filename="${file}"\r\nContent-Type: text/csv` : ''}\r\n\r\n${value}\r\n`;
    const payload =
      part('content', 'PING') +
      part('smsType', 'text') +
      part('file', `ICCID\r\n${sim.iccid}\r\n89000000000000000000\r\n`, 'targets.csv') +
      `--${boundary}--\r\n`;
    const res = await call(suite.t.app, suite.operator, {
      method: 'POST',
      url: SEND,
      payload,
      headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data.results.map((r: { reason?: string; status?: string }) => r.reason ?? r.status)).toEqual(['sent', 'notExist']);
  });

  it('is part of the public API: an API key sends and lists', async () => {
    const [sim] = await active();
    const res = await call(suite.t.app, suite.operator, { method: 'POST', url: '/api/public/v1/sms/send', payload: { iccids: [sim.iccid], content: 'PING' } });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data.accepted).toBe(1);
    expect((await call(suite.t.app, suite.user, { method: 'POST', url: '/api/public/v1/sms/list', payload: {} })).statusCode).toBe(200);
    expect(
      (await call(suite.t.app, suite.user, { method: 'POST', url: '/api/public/v1/sms/send', payload: { iccids: [sim.iccid], content: 'PING' } })).statusCode,
    ).toBe(403);
  });
});
