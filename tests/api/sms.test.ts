/**
 * SMS (issue 17): the content rules, the organisation's quota taken atomically, the batch send SIM by SIM
 * (server/sms/), and the main API's SMS calls: the All SMS list with its reply threads, send, reply, the quota balance
 * and the list's download.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkSmsContent } from '../../common/sms.js';
import { checkMsisdn } from '../../common/msisdn.js';
import { ApiError } from '../../server/http/api-error.js';
import { sendSmsBatch } from '../../server/sms/send.js';
import { smsQuotaOf } from '../../server/sms/quota.js';
import { buildTestApp, countRows, DB_KINDS, type TestApp } from '../helper.js';

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
  let t: TestApp;
  const simOf = async (status: string, org = 'org-demo') =>
    (await t.db.query<{ iccid: string; id: string }>(`SELECT iccid, id FROM sims WHERE org_id = $1 AND status = $2 AND msisdn IS NOT NULL ORDER BY iccid LIMIT 1`, [org, status])).rows[0];
  const setQuota = (org: string, quota: number, used = 0) => t.db.query('UPDATE organisations SET sms_quota = $2, sms_used = $3 WHERE id = $1', [org, quota, used]);

  beforeAll(async () => {
    t = await buildTestApp({ kind });
  });
  afterAll(() => t.close());

  it('refuses SIM by SIM: not in the organisation, a state that cannot receive SMS; sends the rest', async () => {
    await setQuota('org-demo', 100);
    const active = await simOf('active');
    const pre = await simOf('pre_activated');
    const foreign = await simOf('active', 'org-other');
    const states = await Promise.all(['inactive', 'paused', 'expired', 'terminated'].map((s) => simOf(s)));
    const before = await countRows(t.db, 'sms_records');
    const r = await sendSmsBatch(t.db, t.app.network, {
      orgId: 'org-demo', accountId: 'acc-operator', iccids: [active.iccid, active.iccid, pre.iccid, foreign.iccid, ...states.map((s) => s.iccid), '89000000000000000000'],
      content: 'PING', smsType: 'text',
    });
    expect(r.results.map((x) => [x.ok, x.reason ?? x.status])).toEqual([
      [true, 'sent'], [true, 'sent'], [false, 'notExist'], [false, 'inactive'], [false, 'paused'], [false, 'expired'], [false, 'terminated'], [false, 'notExist'],
    ]);
    expect(r.results[2].message).toBe('Device (ICCID) does not exist');
    expect(r.results[4].message).toBe('The SIM is suspended and cannot receive SMS.');
    expect(r).toMatchObject({ accepted: 2, refused: 6, quota: { quota: 100, used: 2, remaining: 98 } });
    expect(await countRows(t.db, 'sms_records')).toBe(before + 2);
    const rows = (await t.db.query<{ status: string; account_id: string; direction: string }>('SELECT status, account_id, direction FROM sms_records WHERE id = ANY($1::text[])', [[r.results[0].smsId, r.results[1].smsId]])).rows;
    expect(rows).toEqual([{ status: 'sent', account_id: 'acc-operator', direction: 'MT' }, { status: 'sent', account_id: 'acc-operator', direction: 'MT' }]);
  });

  it('refuses content that does not comply before anything is written', async () => {
    const active = await simOf('active');
    const before = await countRows(t.db, 'sms_records');
    const quota = await smsQuotaOf(t.db, 'org-demo');
    const err = await sendSmsBatch(t.db, t.app.network, { orgId: 'org-demo', accountId: null, iccids: [active.iccid], content: 'x'.repeat(141), smsType: 'text' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).messageKey).toBe('errors.sms.content.tooLong');
    expect(await countRows(t.db, 'sms_records')).toBe(before);
    expect(await smsQuotaOf(t.db, 'org-demo')).toEqual(quota);
  });

  it('stores 140 octets of binary as hex', async () => {
    const active = await simOf('active');
    const r = await sendSmsBatch(t.db, t.app.network, { orgId: 'org-demo', accountId: null, iccids: [active.iccid], content: 'ab'.repeat(140), smsType: 'binary' });
    expect(r.accepted).toBe(1);
    expect((await t.db.query('SELECT content, sms_type FROM sms_records WHERE id = $1', [r.results[0].smsId])).rows[0]).toEqual({ content: 'AB'.repeat(140), sms_type: 'binary' });
  });

  it('refuses what the quota cannot cover as exhausted, in the order given', async () => {
    await setQuota('org-demo', 10, 9);
    const sims = (await t.db.query<{ iccid: string }>(`SELECT iccid FROM sims WHERE org_id = 'org-demo' AND status = 'active' ORDER BY iccid LIMIT 3`)).rows.map((s) => s.iccid);
    const r = await sendSmsBatch(t.db, t.app.network, { orgId: 'org-demo', accountId: null, iccids: sims, content: 'PING', smsType: 'text', lang: 'es-ES' });
    expect(r.results.map((x) => x.reason ?? x.status)).toEqual(['sent', 'quotaExhausted', 'quotaExhausted']);
    expect(r.results[1].message).toBe('La cuota de SMS de la organización se ha agotado.');
    expect(r.quota).toEqual({ quota: 10, used: 10, remaining: 0 });
  });

  it('lets exactly one of two concurrent senders have the last unit of the quota', async () => {
    await setQuota('org-demo', 5, 4);
    const sims = (await t.db.query<{ iccid: string }>(`SELECT iccid FROM sims WHERE org_id = 'org-demo' AND status = 'active' ORDER BY iccid LIMIT 2`)).rows.map((s) => s.iccid);
    const before = await countRows(t.db, 'sms_records');
    const both = await Promise.all(sims.map((iccid) => sendSmsBatch(t.db, t.app.network, { orgId: 'org-demo', accountId: null, iccids: [iccid], content: 'PING', smsType: 'text' })));
    expect(both.map((b) => b.accepted).sort()).toEqual([0, 1]);
    expect(both.flatMap((b) => b.results.map((x) => x.reason ?? x.status)).sort()).toEqual(['quotaExhausted', 'sent']);
    expect(await countRows(t.db, 'sms_records')).toBe(before + 1);
    expect(await smsQuotaOf(t.db, 'org-demo')).toEqual({ quota: 5, used: 5, remaining: 0 });
  });

  it('gives the unit back for an SMS the network refuses at hand-off, which is stored as failed', async () => {
    await setQuota('org-demo', 10, 0);
    const active = await simOf('active');
    const network = { ...t.app.network, sendSms: async () => ({ iccid: active.iccid, ok: false, error: 'SMSC unavailable' }) } as unknown as typeof t.app.network;
    const r = await sendSmsBatch(t.db, network, { orgId: 'org-demo', accountId: null, iccids: [active.iccid], content: 'PING', smsType: 'text' });
    expect(r.results[0]).toMatchObject({ ok: false, reason: 'network', status: 'failed' });
    expect((await t.db.query('SELECT status, error FROM sms_records WHERE id = $1', [r.results[0].smsId])).rows[0]).toEqual({ status: 'failed', error: 'SMSC unavailable' });
    expect(await smsQuotaOf(t.db, 'org-demo')).toEqual({ quota: 10, used: 0, remaining: 10 });
  });
});
