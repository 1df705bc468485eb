import { beforeAll, describe, expect, it } from 'vitest';
import { checkSpec, listPage, type ListSpec } from '../../server/db/listing.js';
import { DB_KINDS, signedInSuite } from '../helper.js';

const SIMS: ListSpec = checkSpec({
  from: 'sims s',
  orgColumn: 's.org_id',
  idColumn: 's.id',
  columns: {
    id: 's.id',
    iccid: 's.iccid',
    imei: 's.imei',
    msisdn: 's.msisdn',
    deviceName: 's.device_name',
    status: 's.status',
    lastSessionAt: 's.last_session_at',
  },
  sortable: ['iccid', 'deviceName', 'status', 'lastSessionAt'],
  filters: {
    iccid: { kind: 'suffix', column: 's.iccid' },
    imei: { kind: 'suffix', column: 's.imei' },
    deviceName: { kind: 'suffixCi', column: 's.device_name' },
    status: { kind: 'eq', column: 's.status' },
    iccids: { kind: 'in', column: 's.iccid' },
    lastSessionAt: { kind: 'range', column: 's.last_session_at' },
  },
  defaultSort: { field: 'iccid', order: 'asc' },
});

describe.each(DB_KINDS)('the shared list helper on %s', (kind) => {
  const suite = signedInSuite(kind);
  let all: Array<{ id: string; iccid: string; imei: string | null; device_name: string | null; status: string; last_session_at: Date | null }>;
  beforeAll(async () => {
    all = (await suite.t.db.query<(typeof all)[number]>("SELECT id, iccid, imei, device_name, status, last_session_at FROM sims WHERE org_id = 'org-demo'"))
      .rows;
  });

  it('has a fleet to page through', () => {
    expect(all.length).toBeGreaterThan(30);
  });

  it.each([
    ['iccid', 'asc'],
    ['iccid', 'desc'],
    ['deviceName', 'asc'],
    ['deviceName', 'desc'],
    ['lastSessionAt', 'asc'],
    ['lastSessionAt', 'desc'],
  ] as const)('walking by cursor sorted by %s %s gives the same rows as walking by page, each once', async (sort, order) => {
    const byPage: string[] = [];
    for (let page = 1; ; page++) {
      const r = await listPage<{ id: string }>(suite.t.db, SIMS, 'org-demo', { page, pageSize: 7, sort, order });
      byPage.push(...r.items.map((i) => i.id));
      if (r.items.length < 7) break;
    }
    const byCursor: string[] = [];
    let cursor: string | undefined;
    do {
      const r = await listPage<{ id: string }>(suite.t.db, SIMS, 'org-demo', { pageSize: 7, sort, order, cursor });
      byCursor.push(...r.items.map((i) => i.id));
      cursor = r.nextCursor ?? undefined;
    } while (cursor);
    expect(byCursor).toEqual(byPage);
    expect(new Set(byCursor).size).toBe(all.length);
  });

  it('finds by the whole value or its trailing digits', async () => {
    const sim = all[3];
    const whole = await listPage(suite.t.db, SIMS, 'org-demo', { pageSize: 50, filters: { iccid: sim.iccid } });
    expect(whole.items.map((i) => i.iccid)).toEqual([sim.iccid]);
    const tail = sim.iccid.slice(-6);
    const bySuffix = await listPage<{ iccid: string }>(suite.t.db, SIMS, 'org-demo', { pageSize: 50, filters: { iccid: tail } });
    expect(bySuffix.items.map((i) => i.iccid).sort()).toEqual(
      all
        .filter((s) => s.iccid.endsWith(tail))
        .map((s) => s.iccid)
        .sort(),
    );
  });

  it('treats LIKE wildcards in a value as characters, and finds device names whatever their case', async () => {
    expect((await listPage(suite.t.db, SIMS, 'org-demo', { pageSize: 50, filters: { iccid: '%' } })).total).toBe(0);
    const named = all.find((s) => s.device_name && s.device_name.length > 3)!;
    const tail = named.device_name!.slice(-3).toUpperCase();
    const r = await listPage<{ deviceName: string }>(suite.t.db, SIMS, 'org-demo', { pageSize: 100, filters: { deviceName: tail } });
    expect(r.items.length).toBe(all.filter((s) => s.device_name?.toLowerCase().endsWith(tail.toLowerCase())).length);
  });

  it('filters by a list of values and by status, and never shows another organisation’s rows', async () => {
    const wanted = all.slice(0, 5).map((s) => s.iccid);
    const foreign = (await suite.t.db.query<{ iccid: string }>("SELECT iccid FROM sims WHERE org_id <> 'org-demo' LIMIT 3")).rows.map((r) => r.iccid);
    expect(foreign.length).toBeGreaterThan(0);
    const r = await listPage<{ iccid: string }>(suite.t.db, SIMS, 'org-demo', { pageSize: 50, filters: { iccids: [...wanted, ...foreign] } });
    expect(r.items.map((i) => i.iccid).sort()).toEqual([...wanted].sort());
    const active = await listPage<{ status: string }>(suite.t.db, SIMS, 'org-demo', { pageSize: 100, filters: { status: 'active' } });
    expect(active.total).toBe(all.filter((s) => s.status === 'active').length);
  });

  it('counts up to the cap and says when there are more', async () => {
    const r = await listPage(suite.t.db, SIMS, 'org-demo', { pageSize: 5, totalCap: 10 });
    expect(r).toMatchObject({ total: 10, totalCapped: true });
    const exact = await listPage(suite.t.db, SIMS, 'org-demo', { pageSize: 5 });
    expect(exact).toMatchObject({ total: all.length, totalCapped: false });
  });

  it('a garbled cursor is ignored rather than trusted', async () => {
    const r = await listPage<{ iccid: string }>(suite.t.db, SIMS, 'org-demo', { pageSize: 3, cursor: 'not-a-cursor' });
    expect(r.items).toHaveLength(3);
  });

  it('refuses a spec that sorts on a field it does not select', () => {
    expect(() => checkSpec({ ...SIMS, sortable: ['nope'] })).toThrow(/nope has no column/);
  });
});
