/**
 * The tabs of a SIM's page: each answer against the rows of the test database, the cut-offs of SPEC.md section 9 on
 * both sides (a session within 3 months, a location within 48 hours, days ending at 23:59 UTC), the status trace's
 * CSV, the diagnose report and its PDF, and nothing of another organisation.
 */
import { PDFDocument } from 'pdf-lib';
import { extractText, getDocumentProxy } from 'unpdf';
import { describe, expect, it } from 'vitest';
import { makeIccid } from '../../common/iccid.js';
import { DEMO_SIMS, OTHER_SIM_ICCID, SPECIAL_SIMS } from '../../server/db/seed-fleet.js';
import { MAX_PLACE_DISTANCE_KM, reverseGeocode } from '../../server/geo/reverse-geocoder.js';
import { call, countRows, DB_KINDS, DEMO, signedInSuite, signIn } from '../helper.js';

const GETS = [
  '/sim/connection?iccid=',
  '/sim/connection/status?iccid=',
  '/sim/bundle?iccid=',
  '/sim/usage?cycle=day&iccid=',
  '/sim/event?iccid=',
  '/sim/statusTrace?iccid=',
  '/sim/statusTraceDownload?iccid=',
  '/sim/cdrs?iccid=',
  '/sim/sms?iccid=',
  '/cube/sims/diagnose/',
];

describe('the offline reverse geocoder', () => {
  it('names the town nearest to a coordinate', async () => {
    expect(await reverseGeocode(51.3167, 9.5)).toMatchObject({ name: 'Kassel', country: 'DE' });
    // The centre of a city is the city, not one of its districts.
    expect(await reverseGeocode(52.52, 13.405)).toMatchObject({ name: 'Berlin', country: 'DE' });
    expect(await reverseGeocode(40.4168, -3.7038)).toMatchObject({ name: 'Madrid', country: 'ES' });
  });

  it('names no town in the middle of the ocean', async () => {
    expect(await reverseGeocode(0, -30)).toBeNull();
    expect(MAX_PLACE_DISTANCE_KM).toBe(200);
  });
});

describe.each(DB_KINDS)('SIM page tabs on %s', (kind) => {
  const suite = signedInSuite(kind, { user: DEMO.user });
  const iccid = DEMO_SIMS.active;
  const get = (path: string, headers: Record<string, string> = {}) => call(suite.t.app, suite.user, { method: 'GET', url: `/api/main${path}`, headers });
  const one = async <T>(sql: string, params: unknown[] = []) => (await suite.t.db.query<T & Record<string, unknown>>(sql, params)).rows[0];

  it.each(GETS)("%s answers 404 for another organisation's SIM and for a missing one, 400 naming the ICCID for a bad one", async (route) => {
    expect((await get(`${route}${OTHER_SIM_ICCID}`)).statusCode).toBe(404);
    expect((await get(`${route}${makeIccid('894902', 9_999_999, 20)}`)).statusCode).toBe(404);
    const bad = await get(`${route}8949`);
    expect(bad.statusCode).toBe(400);
    expect(bad.json().status.message).toMatch(/^ICCID\b/);
  });

  it('refuses a query field it does not know, and an unknown usage cycle, by name', async () => {
    const extra = await get(`/sim/connection?iccid=${iccid}&lat=1`);
    expect(extra.statusCode).toBe(400);
    expect(extra.json().status.message).toContain('lat');
    const cycle = await get(`/sim/usage?iccid=${iccid}&cycle=week`);
    expect(cycle.statusCode).toBe(400);
    expect(cycle.json().status.message).toMatch(/^Cycle\b/);
  });

  describe('connection', () => {
    it('shows the network facts of the SIM row', async () => {
      const res = await get(`/sim/connection?iccid=${iccid}`);
      expect(res.statusCode).toBe(200);
      const row = await one<{ connection_status: string; apn: string; ip: string | null; network: string }>(
        'SELECT connection_status, apn, ip, network FROM sims WHERE iccid = $1',
        [iccid],
      );
      expect(res.json().data).toMatchObject({ iccid, connectionStatus: row.connection_status, apn: row.apn, ip: row.ip, network: row.network });
      const status = await get(`/sim/connection/status?iccid=${iccid}`);
      expect(status.json().data.connectionStatus).toBe(row.connection_status);
    });

    it('shows a session just within 3 months and a location just within 48 hours, named by the geocoder', async () => {
      await suite.t.db.query(
        `UPDATE sims SET last_session_at = now() - interval '3 months' + interval '1 hour', last_session_kb = 321,
                         lat = 51.3167, lon = 9.5, location_at = now() - interval '47 hours 59 minutes' WHERE iccid = $1`,
        [iccid],
      );
      const data = (await get(`/sim/connection?iccid=${iccid}`)).json().data;
      expect(data.lastSession).toMatchObject({ kb: 321 });
      expect(data.location).toMatchObject({ lat: 51.3167, lon: 9.5, place: { name: 'Kassel', country: 'DE' } });
    });

    it('hides a session just over 3 months old and a location just over 48 hours old', async () => {
      await suite.t.db.query(
        `UPDATE sims SET last_session_at = now() - interval '3 months' - interval '1 hour', location_at = now() - interval '48 hours 1 minute' WHERE iccid = $1`,
        [iccid],
      );
      const data = (await get(`/sim/connection?iccid=${iccid}`)).json().data;
      expect(data.lastSession).toBeNull();
      expect(data.location).toBeNull();
    });
  });

  it('lists every bundle order of the SIM, newest first, with its policies and coverage', async () => {
    const res = await get(`/sim/bundle?iccid=${iccid}`);
    const items = res.json().data.items as Array<Record<string, unknown>>;
    expect(items.length).toBe(await countRows(suite.t.db, 'bundle_orders', 'iccid = $1', [iccid]));
    expect(items.length).toBeGreaterThan(0);
    const newest = await one<{ id: string; status: string; coverage: string[] }>(
      'SELECT id, status, coverage_countries AS coverage FROM bundle_orders WHERE iccid = $1 ORDER BY ordered_at DESC, id LIMIT 1',
      [iccid],
    );
    expect(items[0]).toMatchObject({ id: newest.id, status: newest.status, coverageCountries: newest.coverage });
    for (const key of ['type', 'paymentMode', 'quotaKb', 'usedKb', 'resetCycle', 'overagePolicy', 'outOfCoverage', 'orderedAt'])
      expect(items[0]).toHaveProperty(key);
  });

  describe('usage', () => {
    const quiet = SPECIAL_SIMS.preActivatedNoBundle;
    const today = async () => (await one<{ d: string }>(`SELECT (now() AT TIME ZONE 'UTC')::date::text AS d`)).d;

    it('sums the daily rollup over the last 30 UTC days, today last', async () => {
      const res = (await get(`/sim/usage?iccid=${iccid}&cycle=day`)).json().data;
      expect(res.buckets).toHaveLength(30);
      expect(res.buckets.at(-1).period).toBe(await today());
      const sum = await one<{ kb: number }>(
        `SELECT coalesce(sum(volume_kb), 0)::float8 AS kb FROM usage_daily WHERE iccid = $1 AND day > (now() AT TIME ZONE 'UTC')::date - 30`,
        [iccid],
      );
      expect(res.total.volumeKb).toBe(sum.kb);
      expect(res.total.volumeKb).toBeGreaterThan(0);
      expect(res.total.uplinkKb + res.total.downlinkKb).toBe(res.total.volumeKb);
    });

    it("puts a usage row on the UTC day it belongs to, and the next day's row on the next day", async () => {
      const sim = await one<{ id: string; org_id: string }>('SELECT id, org_id FROM sims WHERE iccid = $1', [quiet]);
      await suite.t.db.query(
        `INSERT INTO usage_daily (org_id, sim_id, day, iccid, uplink_kb, downlink_kb, volume_kb, cdr_count)
         VALUES ($1, $2, (now() AT TIME ZONE 'UTC')::date - 3, $3, 100, 300, 400, 2), ($1, $2, (now() AT TIME ZONE 'UTC')::date - 2, $3, 7, 0, 7, 1)`,
        [sim.org_id, sim.id, quiet],
      );
      const days = (await get(`/sim/usage?iccid=${quiet}&cycle=day`)).json().data.buckets as Array<{
        period: string;
        uplinkKb: number;
        downlinkKb: number;
        volumeKb: number;
      }>;
      const day = (back: number) => days[days.length - 1 - back];
      expect(day(3)).toMatchObject({ uplinkKb: 100, downlinkKb: 300, volumeKb: 400 });
      expect(day(2)).toMatchObject({ volumeKb: 7 });
      expect(day(4).volumeKb).toBe(0);
      expect(day(1).volumeKb).toBe(0);
      const d3 = (await one<{ d: string }>(`SELECT ((now() AT TIME ZONE 'UTC')::date - 3)::text AS d`)).d;
      expect(day(3).period).toBe(d3);
    });

    it('groups by calendar month (12) and by year (5), the current one last', async () => {
      const month = (await get(`/sim/usage?iccid=${quiet}&cycle=month`)).json().data;
      expect(month.buckets).toHaveLength(12);
      expect(month.buckets.at(-1).period).toBe((await today()).slice(0, 7));
      expect(month.total.volumeKb).toBe(407);
      const year = (await get(`/sim/usage?iccid=${quiet}&cycle=year`)).json().data;
      expect(year.buckets).toHaveLength(5);
      expect(year.buckets.at(-1).period).toBe((await today()).slice(0, 4));
      expect(year.total.volumeKb).toBe(407);
    });
  });

  describe('events and status trace', () => {
    const terminated = DEMO_SIMS.terminated;

    it('pages every event of the SIM, newest first', async () => {
      const total = await countRows(suite.t.db, 'sim_events', 'iccid = $1', [terminated]);
      const first = (await get(`/sim/event?iccid=${terminated}&pageSize=1`)).json().data;
      expect(first.total).toBe(total);
      expect(first.items).toHaveLength(1);
      const newest = await one<{ id: string }>('SELECT id::text AS id FROM sim_events WHERE iccid = $1 ORDER BY at DESC, sim_events.id DESC LIMIT 1', [
        terminated,
      ]);
      expect(first.items[0].id).toBe(newest.id);
      const all = (await get(`/sim/event?iccid=${terminated}&pageSize=100`)).json().data.items as Array<{ at: string }>;
      expect(all).toHaveLength(total);
      expect([...all].sort((a, b) => b.at.localeCompare(a.at))).toEqual(all);
      expect((await get(`/sim/event?iccid=${terminated}&pageSize=101`)).statusCode).toBe(400);
    });

    it('the trace holds status changes only, with who made them', async () => {
      const edit = await call(suite.t.app, await signIn(suite.t.app, DEMO.admin), {
        method: 'POST',
        url: '/api/main/sim/deviceName',
        payload: { iccid: terminated, deviceName: 'Trace test' },
      });
      expect(edit.statusCode).toBe(200);
      const trace = (await get(`/sim/statusTrace?iccid=${terminated}&pageSize=100`)).json().data;
      expect(trace.total).toBe(await countRows(suite.t.db, 'sim_events', `iccid = $1 AND type = 'status_change'`, [terminated]));
      expect(trace.items.map((e: { toStatus: string }) => e.toStatus)).toEqual(['terminated', 'expired', 'active', 'pre_activated']);
      expect(trace.items.every((e: { type: string }) => e.type === 'status_change')).toBe(true);
    });

    it("downloads the trace as CSV, one row per status change, labelled in the caller's language", async () => {
      const res = await get(`/sim/statusTraceDownload?iccid=${terminated}`);
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toContain('text/csv');
      expect(res.headers['content-disposition']).toBe(`attachment; filename="status-trace-${terminated}.csv"`);
      const lines = res.body
        .replace(/^\uFEFF/, '')
        .trimEnd()
        .split('\r\n');
      expect(lines[0]).toBe('Time (UTC),From,To,Source,Account');
      expect(lines.length - 1).toBe(await countRows(suite.t.db, 'sim_events', `iccid = $1 AND type = 'status_change'`, [terminated]));
      const newest = await one<{ at: Date }>(`SELECT at FROM sim_events WHERE iccid = $1 AND type = 'status_change' ORDER BY at DESC LIMIT 1`, [terminated]);
      expect(lines[1]).toBe(`${new Date(newest.at).toISOString()},Expired,Terminated,System,`);
      const es = await get(`/sim/statusTraceDownload?iccid=${terminated}`, { language: 'es-ES' });
      expect(es.body.replace(/^\uFEFF/, '').split('\r\n')[0]).toBe('Hora (UTC),De,A,Origen,Cuenta');
    });
  });

  describe('CDRs and SMS', () => {
    it("pages the SIM's CDRs of the last 31 days, newest first, and leaves older ones out", async () => {
      const count = () => countRows(suite.t.db, 'cdrs', `iccid = $1 AND start_at >= now() - interval '31 days'`, [iccid]);
      const before = await count();
      expect(before).toBeGreaterThan(0);
      const sim = await one<{ id: string; org_id: string }>('SELECT id, org_id FROM sims WHERE iccid = $1', [iccid]);
      for (const age of ['30 days 23 hours', '31 days 1 hour']) {
        await suite.t.db.query(
          `INSERT INTO cdrs (org_id, sim_id, iccid, network, direction, rat, volume_kb, start_at, end_at, duration_s)
           VALUES ($1, $2, $3, 'Vodafone DE 262-02', 'uplink', 'LTE', 5, now() - interval '${age}', now() - interval '${age}' + interval '1 minute', 60)`,
          [sim.org_id, sim.id, iccid],
        );
      }
      const res = (await get(`/sim/cdrs?iccid=${iccid}&pageSize=100`)).json().data;
      expect(res.total).toBe(before + 1);
      expect(res.total).toBe(await count());
      expect(res.items[0]).toMatchObject({ network: expect.any(String), rat: expect.any(String), direction: expect.stringMatching(/^(uplink|downlink)$/) });
      const starts = (res.items as Array<{ startAt: string }>).map((c) => c.startAt);
      expect([...starts].sort().reverse()).toEqual(starts);
      const last = (await get(`/sim/cdrs?iccid=${iccid}&page=${Math.ceil(res.total / 10)}&pageSize=10`)).json().data;
      expect(last.items.length).toBe(res.total % 10 || 10);
    });

    it("pages the SIM's SMS, newest first", async () => {
      const row = await one<{ iccid: string; n: number }>(
        `SELECT iccid, count(*)::int AS n FROM sms_records WHERE org_id = 'org-demo' GROUP BY iccid ORDER BY n DESC LIMIT 1`,
      );
      const res = (await get(`/sim/sms?iccid=${row.iccid}&pageSize=100`)).json().data;
      expect(res.total).toBe(row.n);
      expect(res.items).toHaveLength(row.n);
      const newest = await one<{ id: string }>('SELECT id FROM sms_records WHERE iccid = $1 ORDER BY created_at DESC, id DESC LIMIT 1', [row.iccid]);
      expect(res.items[0].id).toBe(newest.id);
      for (const s of res.items) expect(['MO', 'MT']).toContain(s.direction);
    });
  });

  describe('diagnose', () => {
    type Report = { verdict: string; checks: Array<{ key: string; result: string; title: string; message: string }> };
    const report = async (who: string, language = 'en-US') => (await get(`/cube/sims/diagnose/${who}`, { language })).json().data as Report;
    const check = (r: Report, key: string) => r.checks.find((c) => c.key === key)!;

    it('checks state, bundle, quota, session, location, operation, IMEI and flow control, each explained', async () => {
      const r = await report(iccid);
      expect(r.checks.map((c) => c.key)).toEqual(['state', 'bundle', 'quota', 'session', 'location', 'operation', 'imei', 'flowControl']);
      expect(check(r, 'state')).toMatchObject({ result: 'pass', title: 'SIM state', message: 'The SIM is active: it may pass data.' });
      expect(check(r, 'bundle').result).toBe('pass');
      for (const c of r.checks) expect(c.message).not.toMatch(/diagnose\.|\{\{/);
    });

    it('follows the same 3-month and 48-hour cut-offs as the connection tab', async () => {
      await suite.t.db.query(
        `UPDATE sims SET last_session_at = now() - interval '3 months' + interval '1 hour', location_at = now() - interval '47 hours' WHERE iccid = $1`,
        [iccid],
      );
      let r = await report(iccid);
      expect(check(r, 'session').result).toBe('pass');
      expect(check(r, 'location').result).toBe('pass');
      await suite.t.db.query(
        `UPDATE sims SET last_session_at = now() - interval '3 months' - interval '1 hour', location_at = now() - interval '49 hours' WHERE iccid = $1`,
        [iccid],
      );
      r = await report(iccid);
      expect(check(r, 'session')).toMatchObject({ result: 'fail', message: 'No data session in the last 3 months.' });
      expect(check(r, 'location').result).toBe('warn');
      expect(r.verdict).toBe('fail');
    });

    it('names what stops a SIM: no bundle, an operation in progress, its state', async () => {
      expect(check(await report(SPECIAL_SIMS.preActivatedNoBundle), 'bundle').result).toBe('fail');
      expect(check(await report(SPECIAL_SIMS.operationInProgress), 'operation')).toMatchObject({
        result: 'warn',
        message: expect.stringContaining('activation'),
      });
      expect(check(await report(DEMO_SIMS.paused), 'state')).toMatchObject({
        result: 'fail',
        message: "The SIM's state is Paused, in which it passes no data.",
      });
      expect(check(await report(DEMO_SIMS.paused, 'es-ES'), 'state').message).toBe('El estado de la SIM es «En pausa»: en él no transmite datos.');
    });

    it('makes a real PDF that names the ICCID', async () => {
      const res = await call(suite.t.app, suite.user, { method: 'GET', url: `/api/main/cube/sims/diagnose/${iccid}/pdf` });
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toBe('application/pdf');
      expect(res.headers['content-disposition']).toBe(`attachment; filename="diagnose-${iccid}.pdf"`);
      expect(res.rawPayload.subarray(0, 5).toString('latin1')).toBe('%PDF-');
      const pdf = await PDFDocument.load(res.rawPayload);
      expect(pdf.getTitle()).toBe(`Diagnose report ${iccid}`);
      expect(pdf.getSubject()).toBe(iccid);
      expect(pdf.getPageCount()).toBe(1);
      const es = await PDFDocument.load(
        (await call(suite.t.app, suite.user, { method: 'GET', url: `/api/main/cube/sims/diagnose/${iccid}/pdf`, headers: { language: 'es-ES' } })).rawPayload,
      );
      expect(es.getTitle()).toBe(`Informe de diagnóstico ${iccid}`);
    });

    it('prints the PDF in Chinese for zh-CN and zh-TW, each in its own script', async () => {
      const text = async (language: string) => {
        const res = await call(suite.t.app, suite.user, { method: 'GET', url: `/api/main/cube/sims/diagnose/${iccid}/pdf`, headers: { language } });
        expect(res.statusCode).toBe(200);
        expect(res.rawPayload.length).toBeLessThan(250 * 1024);
        return (await extractText(await getDocumentProxy(new Uint8Array(res.rawPayload)), { mergePages: true })).text;
      };
      const cn = await text('zh-CN');
      expect(cn).toContain(`诊断报告`);
      expect(cn).toContain('检查项');
      expect(cn).toContain(iccid);
      expect(cn).not.toContain('Diagnose report');
      const tw = await text('zh-TW');
      expect(tw).toContain('診斷報告');
      expect(tw).toContain('檢查項');
      expect(tw).not.toContain('诊断报告');
    });
  });
});
