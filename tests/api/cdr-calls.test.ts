/** The CDR calls: one CDR with its session and cell, countries and areas, one SIM's summary, the two-segment exports. */
import { beforeAll, describe, expect, it } from 'vitest';
import { call, DB_KINDS, DEMO, type Session, signedInSuite } from '../helper.js';

const DAY = 86_400_000;
const iso = (ms: number) => new Date(ms).toISOString();
const day = (ms: number) => iso(ms).slice(0, 10);

describe.each(DB_KINDS)('the CDR calls of SPEC.md section 7 on %s', (kind) => {
  const suite = signedInSuite(kind, { user: DEMO.user, other: 'admin@other.example.com' });
  let latest: number;
  let cdr: { id: string; iccid: string; sim_id: string; start_at: Date; end_at: Date; volume_kb: number };
  beforeAll(async () => {
    latest = (await suite.t.db.query<{ at: Date }>("SELECT max(start_at) AS at FROM cdrs WHERE org_id = 'org-demo'")).rows[0].at.getTime();
    cdr = (
      await suite.t.db.query<typeof cdr>(
        "SELECT id::text, iccid, sim_id, start_at, end_at, volume_kb::float8 AS volume_kb FROM cdrs WHERE org_id = 'org-demo' ORDER BY start_at DESC LIMIT 1",
      )
    ).rows[0];
  });

  const get = (s: Session, url: string, language?: string) => call(suite.t.app, s, { method: 'GET', url, ...(language ? { headers: { language } } : {}) });

  describe('GET /stdcdrs/{id}', () => {
    it('answers one record of the organisation with the session it describes and its cell', async () => {
      const res = await get(suite.user, `/api/cdr/stdcdrs/${cdr.id}`);
      expect(res.statusCode).toBe(200);
      const data = res.json().data;
      expect(data.cdr).toEqual(expect.objectContaining({ id: cdr.id, iccid: cdr.iccid, volumeKb: cdr.volume_kb }));
      // The seed's network reported no session events: the record's own session, its two directions summed.
      expect(data.session.source).toBe('record');
      expect(new Date(data.session.startedAt).getTime()).toBe(new Date(cdr.start_at).getTime());
      const both = (
        await suite.t.db.query<{ kb: number; n: number }>(
          "SELECT sum(volume_kb)::float8 AS kb, count(*)::int AS n FROM cdrs WHERE org_id = 'org-demo' AND sim_id = $1 AND start_at >= $2 AND start_at <= $3 AND end_at <= $3",
          [cdr.sim_id, cdr.start_at, cdr.end_at],
        )
      ).rows[0];
      expect(data.session.volumeKb).toBe(both.kb);
      expect(data.session.cdrCount).toBe(both.n);
      expect(data.cell).toEqual(expect.objectContaining({ network: data.cdr.network, rat: data.cdr.rat, country: data.cdr.country }));
    });

    it('finds the network session that holds a record, with its APN and IP, and the position within 48 hours', async () => {
      const at = new Date(cdr.start_at).getTime();
      await suite.t.db.query(
        `INSERT INTO sim_events (org_id, sim_id, iccid, type, detail, source, at) VALUES
           ('org-demo', $1, $2, 'session', '{"session":"opened","apn":"iot.test","ip":"10.1.2.3","network":"X","rat":"LTE"}', 'network', $3),
           ('org-demo', $1, $2, 'location', '{"lat":52.52,"lon":13.405}', 'network', $4),
           ('org-demo', $1, $2, 'location', '{"lat":1,"lon":1}', 'network', $5)`,
        [cdr.sim_id, cdr.iccid, iso(at - 60_000), iso(at - 47 * 3600_000), iso(at + 1000)],
      );
      const data = (await get(suite.user, `/api/cdr/stdcdrs/${cdr.id}`)).json().data;
      expect(data.session).toEqual(expect.objectContaining({ source: 'network', apn: 'iot.test', ip: '10.1.2.3', endedAt: null }));
      // The position before the record, not the one after it.
      expect(data.cell).toEqual(expect.objectContaining({ lat: 52.52, lon: 13.405 }));
    });

    it('answers 404 for another organisation’s record and for one that does not exist, 400 for an id that is not one', async () => {
      const theirs = (await suite.t.db.query<{ id: string }>("SELECT id::text FROM cdrs WHERE org_id = 'org-other' LIMIT 1")).rows[0].id;
      expect((await get(suite.user, `/api/cdr/stdcdrs/${theirs}`)).statusCode).toBe(404);
      expect((await get(suite.other, `/api/cdr/stdcdrs/${cdr.id}`)).statusCode).toBe(404);
      expect((await get(suite.user, '/api/cdr/stdcdrs/999999999999999999')).statusCode).toBe(404);
      for (const bad of ['0', '-1', 'abc', '1.5', '9999999999999999999', "1'%20OR%201=1"]) {
        const res = await get(suite.user, `/api/cdr/stdcdrs/${bad}`);
        expect(res.statusCode, bad).toBe(400);
        expect(res.json().status.message).toMatch(/^id /);
      }
    });
  });

  describe('GET /info_country_areas', () => {
    it('lists every country with its area in the caller’s language, those the SIMs were seen in first', async () => {
      const res = await get(suite.user, '/api/cdr/info_country_areas');
      const items = res.json().data as Array<{ code: string; name: string; area: string; areaName: string; seen: boolean; value: string }>;
      expect(items).toHaveLength(249);
      expect(items.find((c) => c.code === 'DE')).toEqual(expect.objectContaining({ name: 'Germany', area: 'EU', areaName: 'Europe', seen: true, value: 'DE' }));
      const firstUnseen = items.findIndex((c) => !c.seen);
      expect(items.slice(firstUnseen).every((c) => !c.seen)).toBe(true);
      const zh = (await get(suite.user, '/api/cdr/info_country_areas?area=EU', 'zh-CN')).json().data as typeof items;
      expect(zh.every((c) => c.area === 'EU')).toBe(true);
      expect(zh.find((c) => c.code === 'DE')).toEqual(expect.objectContaining({ name: '德国', areaName: '欧洲' }));
      expect((await get(suite.user, '/api/cdr/info_country_areas?area=XX')).statusCode).toBe(400);
    });

    it('filters the CDR list by country', async () => {
      const res = await call(suite.t.app, suite.user, {
        method: 'POST',
        url: '/api/cdr/distributor/DEMO/stdcdrs',
        payload: { startAtFrom: iso(latest - 30 * DAY), startAtTo: iso(latest), country: 'FR', pageSize: 5 },
      });
      expect(res.statusCode).toBe(200);
      const n = (
        await suite.t.db.query<{ n: number }>(
          "SELECT count(*)::int AS n FROM cdrs WHERE org_id = 'org-demo' AND country = 'FR' AND start_at >= $1 AND start_at <= $2",
          [iso(latest - 30 * DAY), iso(latest)],
        )
      ).rows[0].n;
      expect(res.json().data.total).toBe(n);
    });
  });

  describe('GET /sum/{org}/stdcdrs/{iccid}', () => {
    const sum = (s: Session, from: string, to: string, iccid = cdr.iccid, org = 'DEMO') => get(s, `/api/cdr/sum/${org}/stdcdrs/${iccid}?from=${from}&to=${to}`);

    it('sums one SIM’s days and networks over 31 days, equal to its records', async () => {
      const from = day(latest - 30 * DAY);
      const to = day(latest);
      const res = await sum(suite.user, from, to);
      expect(res.statusCode).toBe(200);
      const data = res.json().data;
      expect(data.days).toHaveLength(31);
      const raw = (
        await suite.t.db.query<{ kb: number; n: number }>(
          "SELECT coalesce(sum(volume_kb), 0)::float8 AS kb, count(*)::int AS n FROM cdrs WHERE org_id = 'org-demo' AND iccid = $3 AND start_at >= $1::date AND start_at < ($2::date + 1)",
          [from, to, cdr.iccid],
        )
      ).rows[0];
      expect(data.total.volumeKb).toBe(raw.kb);
      expect(data.total.cdrCount).toBe(raw.n);
      expect(data.networks.reduce((a: number, n: { volumeKb: number }) => a + n.volumeKb, 0)).toBe(raw.kb);
    });

    it('takes 31 natural days and refuses 32, a backwards span and a day that is not one', async () => {
      expect((await sum(suite.user, day(latest - 30 * DAY), day(latest))).statusCode).toBe(200);
      const over = await sum(suite.user, day(latest - 31 * DAY), day(latest));
      expect(over.statusCode).toBe(400);
      expect(over.json().status.message).toBe('Date to must be at most 31 days after the start');
      expect((await sum(suite.user, day(latest), day(latest - DAY))).json().status.message).toBe('Date to must not be before the start');
      expect((await sum(suite.user, '2026-02-30', day(latest))).statusCode).toBe(400);
      expect((await get(suite.user, `/api/cdr/sum/DEMO/stdcdrs/${cdr.iccid}?from=${day(latest)}`)).json().status.message).toMatch(/to/i);
    });

    it('answers 404 for another organisation or its SIM, 400 for an ICCID that is not one', async () => {
      expect((await sum(suite.user, day(latest), day(latest), cdr.iccid, 'OTHER')).statusCode).toBe(404);
      expect((await sum(suite.other, day(latest), day(latest), cdr.iccid, 'OTHER')).statusCode).toBe(404);
      expect((await sum(suite.user, day(latest), day(latest), '8949000000000000000')).statusCode).toBe(404);
      expect((await sum(suite.user, day(latest), day(latest), '12345')).statusCode).toBe(400);
    });
  });

  describe('POST /export/distributor/{org}/{format}/cdrs and /export/all/…', () => {
    const exp = (s: Session, path: string, payload: object) => call(suite.t.app, s, { method: 'POST', url: `/api/cdr/export/${path}`, payload });
    const window = () => ({ startAtFrom: iso(latest - 31 * DAY), startAtTo: iso(latest) });

    it('exports every record of the filters through the task center, and the ticked ones', async () => {
      const all = await exp(suite.user, 'all/distributor/DEMO/csv/cdrs', { ...window(), rat: 'LTE' });
      expect(all.statusCode).toBe(200);
      const n = (
        await suite.t.db.query<{ n: number }>(
          "SELECT count(*)::int AS n FROM cdrs WHERE org_id = 'org-demo' AND rat = 'LTE' AND start_at >= $1 AND start_at <= $2",
          [window().startAtFrom, window().startAtTo],
        )
      ).rows[0].n;
      expect(all.json().data.quantity).toBe(n);
      const ids = (await suite.t.db.query<{ id: string }>("SELECT id::text FROM cdrs WHERE org_id = 'org-demo' ORDER BY start_at DESC LIMIT 3")).rows.map(
        (r) => r.id,
      );
      const some = await exp(suite.user, 'distributor/DEMO/xlsx/cdrs', { ...window(), selected: ids });
      expect(some.statusCode).toBe(200);
      expect(some.json().data.quantity).toBe(3);
      const task = (
        await suite.t.db.query<{ kind: string; payload: { format: string } }>('SELECT kind, payload FROM tasks WHERE id = $1', [some.json().data.taskId])
      ).rows[0];
      expect(task).toEqual(expect.objectContaining({ kind: 'cdr_export', payload: expect.objectContaining({ format: 'xlsx' }) }));
      await suite.t.app.jobs.runOnce();
      await suite.t.app.jobs.runOnce();
      const done = await get(suite.user, `/api/job/rest/job/my/${some.json().data.taskId}`);
      expect(done.json().data.status).toBe('done');
    });

    it('holds both to the 31-day span: 31 days pass, a second more does not', async () => {
      expect((await exp(suite.user, 'all/distributor/DEMO/csv/cdrs', window())).statusCode).toBe(200);
      const over = await exp(suite.user, 'all/distributor/DEMO/csv/cdrs', { startAtFrom: iso(latest - 31 * DAY - 1000), startAtTo: iso(latest) });
      expect(over.statusCode).toBe(400);
      expect(over.json().status.message).toBe('Start to must be at most 31 days after the start');
      const overSome = await exp(suite.user, 'distributor/DEMO/csv/cdrs', {
        startAtFrom: iso(latest - 31 * DAY - 1000),
        startAtTo: iso(latest),
        selected: [cdr.id],
      });
      expect(overSome.statusCode).toBe(400);
    });

    it('refuses none ticked, a format it does not write, a selection in the all form, and another organisation', async () => {
      expect((await exp(suite.user, 'distributor/DEMO/csv/cdrs', { ...window(), selected: [] })).json().status.message).toBe(
        'Please select the data to export',
      );
      expect((await exp(suite.user, 'distributor/DEMO/csv/cdrs', window())).json().status.message).toBe('Selected records is required');
      expect((await exp(suite.user, 'all/distributor/DEMO/pdf/cdrs', window())).statusCode).toBe(400);
      expect((await exp(suite.user, 'all/distributor/DEMO/csv/cdrs', { ...window(), selected: [cdr.id] })).statusCode).toBe(400);
      expect((await exp(suite.user, 'all/distributor/OTHER/csv/cdrs', window())).statusCode).toBe(404);
      expect((await exp(suite.other, 'all/distributor/DEMO/csv/cdrs', window())).statusCode).toBe(404);
      // Another organisation's record ticked is not found among mine: no data.
      const theirs = (await suite.t.db.query<{ id: string }>("SELECT id::text FROM cdrs WHERE org_id = 'org-other' ORDER BY start_at DESC LIMIT 1")).rows[0].id;
      expect((await exp(suite.user, 'distributor/DEMO/csv/cdrs', { ...window(), selected: [theirs] })).json().status.message).toBe('No data to export');
    });
  });
});
