import { beforeAll, describe, expect, it } from 'vitest';
import { answerOf, call, DB_KINDS, DEMO, type Session, signedInSuite } from '../helper.js';

describe.each(DB_KINDS)('bundle order records (POST /sim/service/list) on %s', (kind) => {
  const suite = signedInSuite(kind, { user: DEMO.user, other: 'admin@other.example.com' });
  let mine: Array<{ id: string; iccid: string; status: string; ordered_at: Date }>;
  beforeAll(async () => {
    mine = (
      await suite.t.db.query<(typeof mine)[number]>(
        "SELECT id, iccid, status, ordered_at FROM bundle_orders WHERE org_id = 'org-demo' ORDER BY ordered_at DESC, id DESC",
      )
    ).rows;
  });

  const list = (s: Session, payload: object) => call(suite.t.app, s, { method: 'POST', url: '/api/main/sim/service/list', payload });

  it('lists the newest orders first with every field of the schema', async () => {
    const res = await list(suite.user, { pageSize: 10 });
    expect(res.statusCode).toBe(200);
    const data = res.json().data;
    expect(data.total).toBe(mine.length);
    expect(data.items.map((o: { id: string }) => o.id)).toEqual(mine.slice(0, 10).map((o) => o.id));
    expect(data.items[0]).toEqual(
      expect.objectContaining({ type: expect.any(String), paymentMode: expect.any(String), resetCycle: expect.any(String), usedKb: expect.any(Number) }),
    );
  });

  it('filters by status and by the trailing digits of an ICCID', async () => {
    const inUse = await list(suite.user, { status: 'IN_USE', pageSize: 100 });
    expect(inUse.json().data.total).toBe(mine.filter((o) => o.status === 'IN_USE').length);
    const tail = mine[0].iccid.slice(-6);
    const found = await list(suite.user, { search: { field: 'iccid', value: tail }, pageSize: 100 });
    expect(found.json().data.total).toBe(mine.filter((o) => o.iccid.endsWith(tail)).length);
  });

  it('filters by order time from–to; refuses a time that is not one', async () => {
    const from = mine[Math.floor(mine.length / 2)].ordered_at.toISOString();
    const res = await list(suite.user, { orderedAtFrom: from, pageSize: 100 });
    expect(res.json().data.total).toBe(mine.filter((o) => o.ordered_at.toISOString() >= from).length);
    const bad = await list(suite.user, { orderedAtFrom: 'yesterday' });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().status.message).toBe('orderedAtFrom must be a date and time');
  });

  it.each([
    [{ status: 'ACTIVE' }, 'Status must be one of: PENDING, IN_USE, EXPIRED, CANCELLED'],
    [{ resetCycle: 'WEEK' }, 'Reset cycle must be one of: DAY, DAY_24H, MONTH, MONTH_31D, YEAR_366D'],
  ])('refuses %j', async (payload, message) => {
    expect(answerOf(await list(suite.user, payload))).toMatchObject({ statusCode: 400, message });
  });

  it('shows another customer none of them', async () => {
    const res = await list(suite.other, { iccids: mine.slice(0, 3).map((o) => o.iccid) });
    expect(res.json().data.total).toBe(0);
  });
});
