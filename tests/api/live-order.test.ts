/** Live events reach a connection in the order they were written, also where their ids gain a digit (99 → 100). */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LiveHub, type LiveEvent } from '../../server/live/hub.js';
import { DB_KINDS, freshDb } from '../helper.js';
import type { Db } from '../../server/db/db.js';

describe.each(DB_KINDS)('live event order on %s', (kind) => {
  let db: Db;
  let drop: () => Promise<void>;
  beforeAll(async () => {
    ({ db, drop } = await freshDb(kind));
  });
  afterAll(() => drop());

  /** Write events with ids from first to last (the identity restarted at first). */
  async function writeFrom(first: number, count: number) {
    await db.query(`ALTER TABLE live_events ALTER COLUMN id RESTART WITH ${first}`);
    for (let i = 0; i < count; i++)
      await db.query("INSERT INTO live_events (org_id, type, data) VALUES ('org-x', 'task', $1)", [JSON.stringify({ n: first + i })]);
  }

  it.each([
    [95, 10],
    [995, 10],
  ])('a poll delivers ids %i.. in numeric order across the digit boundary, and a replay does too', async (first, count) => {
    await db.query('DELETE FROM live_events');
    const hub = new LiveHub(db, 60_000);
    const got: LiveEvent[] = [];
    const stop = hub.subscribe({ accountId: 'acc-x', orgId: 'org-x', send: (e) => got.push(e), end: () => undefined });
    try {
      await hub.poll(); // the first round only sets where news starts
      await writeFrom(first, count);
      await hub.poll();
      const expected = Array.from({ length: count }, (_, i) => String(first + i));
      expect(got.map((e) => e.id)).toEqual(expected);
      const replay = await hub.replay({ accountId: 'acc-x', orgId: 'org-x' }, String(first - 1));
      expect(replay.map((e) => e.id)).toEqual(expected);
    } finally {
      stop();
    }
  });
});
