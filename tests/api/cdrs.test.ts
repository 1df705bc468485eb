import { beforeAll, describe, expect, it } from 'vitest';
import { call, DB_KINDS, DEMO, type Session, signedInSuite } from '../helper.js';

const DAY = 86_400_000;
const iso = (ms: number) => new Date(ms).toISOString();
const day = (ms: number) => iso(ms).slice(0, 10);

describe.each(DB_KINDS)('call and data records on %s', (kind) => {
  const suite = signedInSuite(kind, { user: DEMO.user, other: 'admin@other.example.com' });
  let latest: number;
  beforeAll(async () => {
    latest = (await suite.t.db.query<{ at: Date }>("SELECT max(start_at) AS at FROM cdrs WHERE org_id = 'org-demo'")).rows[0].at.getTime();
  });

  const list = (s: Session, payload: object, org = 'DEMO') => call(suite.t.app, s, { method: 'POST', url: `/api/cdr/distributor/${org}/stdcdrs`, payload });
  const summary = (s: Session, payload: object, org = 'DEMO') =>
    call(suite.t.app, s, { method: 'POST', url: `/api/cdr/sum/distributor/${org}/stdcdrs`, payload });
  const count = async (from: number, to: number, extra = '') =>
    (
      await suite.t.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM cdrs WHERE org_id = 'org-demo' AND start_at >= $1 AND start_at <= $2 ${extra}`, [
        iso(from),
        iso(to),
      ])
    ).rows[0].n;

  it('lists the records of a window, newest first', async () => {
    const from = latest - 7 * DAY;
    const res = await list(suite.user, { startAtFrom: iso(from), startAtTo: iso(latest), pageSize: 20 });
    expect(res.statusCode).toBe(200);
    const data = res.json().data;
    expect(data.total).toBe(await count(from, latest));
    const starts = data.items.map((c: { startAt: string }) => c.startAt);
    expect([...starts].sort().reverse()).toEqual(starts);
    expect(data.items[0]).toEqual(
      expect.objectContaining({ iccid: expect.any(String), rat: expect.any(String), direction: expect.any(String), volumeKb: expect.any(Number) }),
    );
  });

  it("offers the networks the organisation's SIMs were seen on, and filters by network and plan", async () => {
    const res = await call(suite.t.app, suite.user, { method: 'GET', url: '/api/cdr/info_mnos/distinct' });
    const direct = (
      await suite.t.db.query<{ network: string }>("SELECT DISTINCT network FROM sims WHERE org_id = 'org-demo' AND network IS NOT NULL ORDER BY network")
    ).rows.map((r) => r.network);
    expect(res.json().data).toEqual(direct);
    expect(direct.length).toBeGreaterThan(0);
    const theirs = (await call(suite.t.app, suite.other, { method: 'GET', url: '/api/cdr/info_mnos/distinct' })).json().data as string[];
    const otherDirect = (
      await suite.t.db.query<{ network: string }>("SELECT DISTINCT network FROM sims WHERE org_id = 'org-other' AND network IS NOT NULL ORDER BY network")
    ).rows.map((r) => r.network);
    expect(theirs).toEqual(otherDirect);
    const from = latest - 30 * DAY;
    const one = (
      await suite.t.db.query<{ network: string; plan_code: string }>(
        "SELECT network, plan_code FROM cdrs WHERE org_id = 'org-demo' AND start_at >= $1 LIMIT 1",
        [iso(from)],
      )
    ).rows[0];
    const filtered = await list(suite.user, { startAtFrom: iso(from), startAtTo: iso(latest), network: one.network, planCode: one.plan_code, pageSize: 5 });
    expect(filtered.json().data.total).toBe(await count(from, latest, `AND network = '${one.network.replace(/'/g, "''")}' AND plan_code = '${one.plan_code}'`));
  });

  it('filters by RAT and direction', async () => {
    const from = latest - 30 * DAY;
    const res = await list(suite.user, { startAtFrom: iso(from), startAtTo: iso(latest), rat: 'LTE', direction: 'uplink', pageSize: 5 });
    expect(res.json().data.total).toBe(await count(from, latest, "AND rat = 'LTE' AND direction = 'uplink'"));
  });

  it('needs a window of at most 31 days: exactly 31 passes, 31 days and a second does not', async () => {
    expect((await list(suite.user, { startAtFrom: iso(latest - 31 * DAY), startAtTo: iso(latest) })).statusCode).toBe(200);
    const over = await list(suite.user, { startAtFrom: iso(latest - 31 * DAY - 1000), startAtTo: iso(latest) });
    expect(over.statusCode).toBe(400);
    expect(over.json().status.message).toBe('Start to must be at most 31 days after the start');
    const missing = await list(suite.user, { startAtTo: iso(latest) });
    expect(missing.json().status.message).toBe('Start from is required');
    const backwards = await list(suite.user, { startAtFrom: iso(latest), startAtTo: iso(latest - DAY) });
    expect(backwards.json().status.message).toBe('Start to must not be before the start');
  });

  it('sums volumes per natural day from the rollups, equal to the records themselves', async () => {
    const to = day(latest);
    const from = day(latest - 30 * DAY);
    const res = await summary(suite.user, { from, to });
    expect(res.statusCode).toBe(200);
    const data = res.json().data;
    expect(data.days).toHaveLength(31);
    const raw = (
      await suite.t.db.query<{ kb: number; n: number }>(
        `SELECT coalesce(sum(volume_kb), 0)::float8 AS kb, count(*)::int AS n FROM cdrs
          WHERE org_id = 'org-demo' AND start_at >= $1::date AND start_at < ($2::date + 1)`,
        [from, to],
      )
    ).rows[0];
    expect(data.total.volumeKb).toBe(raw.kb);
    expect(data.total.cdrCount).toBe(raw.n);
  });

  it('sums one SIM’s days by its ICCID, equal to its records', async () => {
    const { iccid } = (await suite.t.db.query<{ iccid: string }>("SELECT iccid FROM cdrs WHERE org_id = 'org-demo' ORDER BY start_at DESC LIMIT 1")).rows[0];
    const from = day(latest - 30 * DAY);
    const to = day(latest);
    const res = await summary(suite.user, { from, to, iccid });
    const raw = (
      await suite.t.db.query<{ kb: number }>(
        `SELECT coalesce(sum(volume_kb), 0)::float8 AS kb FROM cdrs WHERE org_id = 'org-demo' AND iccid = $3 AND start_at >= $1::date AND start_at < ($2::date + 1)`,
        [from, to, iccid],
      )
    ).rows[0];
    expect(res.json().data.total.volumeKb).toBe(raw.kb);
    expect(raw.kb).toBeGreaterThan(0);
  });

  it('sums the SIMs whose ICCID ends in the digits typed, as the list finds them, and refuses a single digit or letters', async () => {
    const { iccid } = (await suite.t.db.query<{ iccid: string }>("SELECT iccid FROM cdrs WHERE org_id = 'org-demo' ORDER BY start_at DESC LIMIT 1")).rows[0];
    const from = day(latest - 30 * DAY);
    const to = day(latest);
    const end = iccid.slice(-3);
    const res = await summary(suite.user, { from, to, iccid: end });
    expect(res.statusCode).toBe(200);
    const raw = (
      await suite.t.db.query<{ kb: number; n: number }>(
        `SELECT coalesce(sum(volume_kb), 0)::float8 AS kb, count(*)::int AS n FROM cdrs
          WHERE org_id = 'org-demo' AND iccid LIKE '%' || $3 AND start_at >= $1::date AND start_at < ($2::date + 1)`,
        [from, to, end],
      )
    ).rows[0];
    expect(res.json().data.total.volumeKb).toBe(raw.kb);
    expect(res.json().data.total.cdrCount).toBe(raw.n);
    // The same digits in the list's search find the same SIMs' records.
    const listed = await list(suite.user, {
      startAtFrom: `${from}T00:00:00.000Z`,
      startAtTo: iso(latest),
      search: { field: 'iccid', value: end },
      pageSize: 100,
    });
    expect(listed.json().data.items.every((c: { iccid: string }) => c.iccid.endsWith(end))).toBe(true);
    expect((await summary(suite.user, { from, to, iccid: '7' })).statusCode).toBe(400);
    expect((await summary(suite.user, { from, to, iccid: '12a' })).statusCode).toBe(400);
  });

  it('refuses a summary over 32 natural days or backwards, and a day that is not one', async () => {
    const over = await summary(suite.user, { from: day(latest - 31 * DAY), to: day(latest) });
    expect(over.statusCode).toBe(400);
    expect(over.json().status.message).toBe('Date to must be at most 31 days after the start');
    expect((await summary(suite.user, { from: day(latest), to: day(latest - DAY) })).json().status.message).toBe('Date to must not be before the start');
    expect((await summary(suite.user, { from: '2026-13-01', to: day(latest) })).statusCode).toBe(400);
  });

  it('answers another organisation’s code with 404, and shows another customer none of these records', async () => {
    expect((await list(suite.user, { startAtFrom: iso(latest - DAY), startAtTo: iso(latest) }, 'OTHER')).statusCode).toBe(404);
    expect((await summary(suite.user, { from: day(latest), to: day(latest) }, 'OTHER')).statusCode).toBe(404);
    const theirs = await list(suite.other, { startAtFrom: iso(latest - 7 * DAY), startAtTo: iso(latest) }, 'OTHER');
    expect(theirs.json().data.items.every((c: { iccid: string }) => c.iccid)).toBe(true);
    expect((await list(suite.other, { startAtFrom: iso(latest - 7 * DAY), startAtTo: iso(latest) }, 'DEMO')).statusCode).toBe(404);
  });
});
