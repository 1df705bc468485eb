import { beforeAll, describe, expect, it } from 'vitest';
import { answerOf, call, DB_KINDS, DEMO, type Session, signedInSuite } from '../helper.js';

describe.each(DB_KINDS)('the SIM list (POST /sim/list/es) on %s', (kind) => {
  const suite = signedInSuite(kind, { user: DEMO.user, other: 'admin@other.example.com' });
  let mine: Array<{ iccid: string; device_name: string | null; status: string }>;
  beforeAll(async () => {
    mine = (await suite.t.db.query<(typeof mine)[number]>("SELECT iccid, device_name, status FROM sims WHERE org_id = 'org-demo' ORDER BY iccid")).rows;
  });

  const list = (s: Session, payload: object, language = 'en-US') =>
    call(suite.t.app, s, { method: 'POST', url: '/api/main/sim/list/es', payload, headers: { language } });

  it('lists the organisation’s SIMs sorted by ICCID, with typed fields', async () => {
    const res = await list(suite.user, { pageSize: 5 });
    expect(res.statusCode).toBe(200);
    const data = res.json().data;
    expect(data.total).toBe(mine.length);
    expect(data.items.map((s: { iccid: string }) => s.iccid)).toEqual(mine.slice(0, 5).map((s) => s.iccid));
    const first = data.items[0];
    expect(typeof first.cycleUsageKb).toBe('number');
    expect(Array.isArray(first.tags)).toBe(true);
    expect(first).not.toHaveProperty('org_id');
    const active = data.items.find((s: { activatedAt: string | null }) => s.activatedAt);
    if (active) expect(active.activatedAt).toMatch(/^\d{4}-\d\d-\d\dT/);
  });

  it('searches by trailing digits: 2 digits are enough, 1 is refused', async () => {
    const tail = mine[0].iccid.slice(-2);
    const res = await list(suite.user, { search: { field: 'iccid', value: tail }, pageSize: 100 });
    expect(res.json().data.total).toBe(mine.filter((s) => s.iccid.endsWith(tail)).length);
    const one = await list(suite.user, { search: { field: 'iccid', value: '7' } });
    expect(one.statusCode).toBe(400);
    expect(one.json().status.message).toBe('Search value must be 2 to 64 characters long');
  });

  it('refuses letters in a digits-only search, in the caller’s language', async () => {
    const res = await list(suite.user, { search: { field: 'msisdn', value: '12ab' } }, 'es-ES');
    expect(res.statusCode).toBe(400);
    expect(res.json().status.message).toBe('El campo «Valor de búsqueda» solo puede contener dígitos');
  });

  it('searches device names by their end, whatever the case', async () => {
    const named = mine.find((s) => s.device_name && s.device_name.length >= 4)!;
    const tail = named.device_name!.slice(-4).toUpperCase();
    const res = await list(suite.user, { search: { field: 'deviceName', value: tail }, pageSize: 100 });
    expect(res.json().data.items.map((s: { iccid: string }) => s.iccid)).toContain(named.iccid);
  });

  it('bulk-searches up to 1000 ICCIDs; 1001 or none are refused', async () => {
    const known = mine.slice(0, 3).map((s) => s.iccid);
    const filler = Array.from({ length: 997 }, (_, i) => `8900000000000${String(i).padStart(6, '0')}`);
    const ok = await list(suite.user, { iccids: [...known, ...filler], pageSize: 100 });
    expect(ok.statusCode).toBe(200);
    expect(
      ok
        .json()
        .data.items.map((s: { iccid: string }) => s.iccid)
        .sort(),
    ).toEqual(known.sort());
    const over = await list(suite.user, { iccids: [...known, ...filler, '8900000000000999999'] });
    expect(over.statusCode).toBe(400);
    expect(over.json().status.message).toBe('ICCID list can have at most 1,000 entries');
    expect((await list(suite.user, { iccids: [] })).json().status.message).toBe('ICCID list must have at least 1 entry');
    expect((await list(suite.user, { iccids: ['12345'] })).statusCode).toBe(400);
  });

  it('filters by status and sorts as asked', async () => {
    const res = await list(suite.user, { status: 'active', sort: 'iccid', order: 'desc', pageSize: 100 });
    const active = mine
      .filter((s) => s.status === 'active')
      .map((s) => s.iccid)
      .reverse();
    expect(res.json().data.items.map((s: { iccid: string }) => s.iccid)).toEqual(active.slice(0, 100));
  });

  it.each([
    [{ status: 'sleeping' }, 'Lifecycle status must be one of: inactive, pre_activated, active, paused, expired, terminated'],
    [{ pageSize: 0 }, 'Page size must be between 1 and 100'],
    [{ pageSize: 101 }, 'Page size must be between 1 and 100'],
    [{ sort: 'imsi' }, 'sort must be one of: iccid, deviceName, status, activatedAt, lastSessionAt, cycleUsageKb, expiresAt'],
    [{ page: '2' }, 'page must be a whole number'],
    [{ owner: 'me' }, 'owner is not an accepted field'],
  ])('refuses %j', async (payload, message) => {
    expect(answerOf(await list(suite.user, payload))).toMatchObject({ statusCode: 400, message });
  });

  it('shows another customer none of these SIMs, even by exact ICCID', async () => {
    const res = await list(suite.other, { iccids: mine.slice(0, 5).map((s) => s.iccid) });
    expect(res.json().data).toMatchObject({ total: 0, items: [] });
    const search = await list(suite.other, { search: { field: 'iccid', value: mine[0].iccid } });
    expect(search.json().data.total).toBe(0);
  });
});
