/**
 * The event log (015_event_log.sql, 065_event_sequence.sql, server/events/event-log.ts and relay.ts): SIM, SMS and task
 * changes appended in their own transaction by whoever makes them; the relay numbers what is committed, and consumers
 * read by number, one instance at a time under a lease, at least once, never skipping an event committed late and
 * never waiting on an unrelated transaction; old months pruned only once every consumer has read them. On PGlite and
 * PostgreSQL.
 */
import { describe, expect, it } from 'vitest';
import pg from 'pg';
import { DEMO_SIMS } from '../../server/db/seed-fleet.js';
import { newId } from '../../server/db/ids.js';
import { openPostgres, type Db } from '../../server/db/db.js';
import {
  appendEvents,
  claimConsumer,
  commitConsumer,
  maintainEventLog,
  readEvents,
  releaseConsumer,
  startConsumer,
  type Cursor,
  type DomainEvent,
} from '../../server/events/event-log.js';
import { relayOnce, startRelay, type EventPublisher } from '../../server/events/relay.js';
import { call, createPostgresDatabase, DB_KINDS, DEMO, freshDb, signedInSuite } from '../helper.js';

const quiet = { info() {}, warn() {}, error() {}, debug() {} } as never;

/** Number everything committed now (as the relay's loop would, round after round). */
const relayAll = async (db: Db) => {
  while ((await relayOnce(db)) > 0);
};

describe.each(DB_KINDS)('event log on %s', (kind) => {
  const suite = signedInSuite(kind, { operator: DEMO.operator });

  /** A fresh consumer name per test: each starts at the log's present. */
  const consumer = () =>
    `test_${newId(8)
      .toLowerCase()
      .replace(/[^a-z]/g, 'x')}`;
  /** Everything committed after the cursor: the relay numbers it, then it is read batch by batch. */
  const readAll = async (from: Cursor, db: Db = suite.t.db) => {
    await relayAll(db);
    const out: DomainEvent[] = [];
    let cursor = from;
    for (;;) {
      const r = await readEvents(db, cursor, 50);
      out.push(...r.events);
      if (!r.events.length) return { events: out, cursor };
      cursor = r.cursor;
    }
  };
  /** A consumer made now, once what is committed is numbered: its present. */
  const claimNew = async (owner = 'a') => {
    await relayAll(suite.t.db);
    return (await claimConsumer(suite.t.db, consumer(), owner, 30))!;
  };
  const task = (subject: string) => ({ orgId: 'org-demo', type: 'task' as const, subtype: 'finished', subject });

  it('a new consumer starts at the present: the seed is not replayed to it', async () => {
    expect(Number((await suite.t.db.query<{ n: string }>('SELECT count(*) AS n FROM events')).rows[0].n)).toBeGreaterThan(0);
    const lease = await claimNew();
    expect((await readAll(lease.cursor)).events).toEqual([]);
  });

  it('a SIM suspended and resumed in the console is two events of the log, in order, with who and from what to what', async () => {
    const lease = await claimNew();
    const iccid = DEMO_SIMS.active;
    for (const action of ['suspend', 'resume']) {
      const res = await call(suite.t.app, suite.operator, { method: 'POST', url: `/api/main/sim/${action}`, payload: { iccids: [iccid] } });
      expect(res.statusCode).toBe(200);
    }
    const { events } = await readAll(lease.cursor);
    const mine = events.filter((e) => e.subject === iccid && e.subtype === 'status_change');
    expect(mine.map((e) => [e.type, e.data.from, e.data.to, e.data.source])).toEqual([
      ['sim', 'active', 'paused', 'console'],
      ['sim', 'paused', 'active', 'console'],
    ]);
    expect(mine[0].orgId).toBe('org-demo');
    expect(mine[0].data.accountId).toBe(suite.operator.accountId);
    expect(Number(mine[1].id)).toBeGreaterThan(Number(mine[0].id));
  });

  it('an event of a transaction that rolls back never appears', async () => {
    const lease = await claimNew();
    await expect(
      suite.t.db.tx(async (q) => {
        await appendEvents(q, [{ orgId: 'org-demo', type: 'sim', subtype: 'status_change', subject: 'rolled-back' }]);
        throw new Error('no');
      }),
    ).rejects.toThrow('no');
    await appendEvents(suite.t.db, [{ orgId: 'org-demo', type: 'sim', subtype: 'status_change', subject: 'kept' }]);
    expect((await readAll(lease.cursor)).events.map((e) => e.subject)).toEqual(['kept']);
  });

  it('a task that ends, an SMS received and an SMS delivered are events; a location report is not', async () => {
    const lease = await claimNew();
    const taskId = newId();
    await suite.t.db.query(`INSERT INTO tasks (org_id, id, reference_id, kind, quantity) VALUES ('org-demo', $1, 'REF-EVENT-1', 'sim_export', 3)`, [taskId]);
    await suite.t.db.query(`UPDATE tasks SET progress = 50 WHERE id = $1`, [taskId]);
    await suite.t.db.query(`UPDATE tasks SET status = 'done', progress = 100, ended_at = now() WHERE id = $1`, [taskId]);
    const sim = (await suite.t.db.query<{ id: string; iccid: string }>('SELECT id, iccid FROM sims WHERE iccid = $1', [DEMO_SIMS.active])).rows[0];
    const mo = newId();
    const mt = newId();
    await suite.t.db.query(
      `INSERT INTO sms_records (org_id, id, sim_id, iccid, direction, content, status) VALUES ('org-demo', $1, $3, $4, 'MO', 'hello', 'received'), ('org-demo', $2, $3, $4, 'MT', 'ping', 'sent')`,
      [mo, mt, sim.id, sim.iccid],
    );
    await suite.t.db.query(`UPDATE sms_records SET status = 'delivered', delivered_at = now() WHERE id = $1`, [mt]);
    await suite.t.db.query(
      `INSERT INTO sim_events (org_id, sim_id, iccid, type, detail, source) VALUES ('org-demo', $1, $2, 'location', '{"lat":1,"lon":2}', 'network')`,
      [sim.id, sim.iccid],
    );
    const got = (await readAll(lease.cursor)).events.map((e) => [e.type, e.subtype, e.subject, e.data.status ?? e.data.content ?? e.data.smsId]);
    expect(got).toEqual([
      ['task', 'finished', taskId, 'done'],
      ['sms', 'received', sim.iccid, 'hello'],
      ['sms', 'delivered', sim.iccid, mt],
    ]);
  });

  it('an event is readable only once the relay has numbered it, and numbers follow the order of writing', async () => {
    const lease = await claimNew();
    await appendEvents(suite.t.db, [task('n-1'), task('n-2')]);
    await appendEvents(suite.t.db, [task('n-3')]);
    expect((await readEvents(suite.t.db, lease.cursor, 10)).events).toEqual([]);
    expect(Number((await suite.t.db.query<{ n: string }>('SELECT count(*) AS n FROM events WHERE seq IS NULL')).rows[0].n)).toBe(3);
    // Two rounds of at most two: the backlog goes in batches, each numbered on from the last.
    expect(await relayOnce(suite.t.db, undefined, 2)).toBe(2);
    expect(await relayOnce(suite.t.db, undefined, 2)).toBe(1);
    expect(await relayOnce(suite.t.db, undefined, 2)).toBe(0);
    const { events } = await readAll(lease.cursor);
    expect(events.map((e) => e.subject)).toEqual(['n-1', 'n-2', 'n-3']);
    const seqs = (events as Array<DomainEvent & { seq: string }>).map((e) => Number(e.seq));
    expect(seqs).toEqual([seqs[0], seqs[0] + 1, seqs[0] + 2]);
    expect(seqs[0]).toBe(Number(lease.cursor.seq) + 1);
    const last = (await suite.t.db.query<{ last: string }>('SELECT last::text AS last FROM event_sequence')).rows[0].last;
    expect(Number(last)).toBe(seqs[2]);
  });

  it('a batch the publisher refuses stays unnumbered, and is numbered and published again, whole and in order', async () => {
    const lease = await claimNew();
    await appendEvents(suite.t.db, [task('p-1'), task('p-2')]);
    const published: string[][] = [];
    let refuse = true;
    const publisher: EventPublisher = {
      async publish(events) {
        if (refuse) throw new Error('broker down');
        published.push(events.map((e) => `${e.subject}@${e.seq}`));
      },
    };
    const before = (await suite.t.db.query<{ last: string }>('SELECT last::text AS last FROM event_sequence')).rows[0].last;
    await expect(relayOnce(suite.t.db, publisher)).rejects.toThrow('broker down');
    expect((await suite.t.db.query<{ last: string }>('SELECT last::text AS last FROM event_sequence')).rows[0].last).toBe(before);
    expect((await readEvents(suite.t.db, lease.cursor, 10)).events).toEqual([]);
    refuse = false;
    expect(await relayOnce(suite.t.db, publisher)).toBe(2);
    expect(published).toEqual([[`p-1@${Number(before) + 1}`, `p-2@${Number(before) + 2}`]]);
    expect((await readAll(lease.cursor)).events.map((e) => e.subject)).toEqual(['p-1', 'p-2']);
  });

  it('one instance at a time advances a consumer; another takes over when its lease runs out, and the old holder can no longer commit', async () => {
    await relayAll(suite.t.db);
    const name = consumer();
    const a = (await claimConsumer(suite.t.db, name, 'instance-a', 30))!;
    expect(a).not.toBeNull();
    expect(await claimConsumer(suite.t.db, name, 'instance-b', 30)).toBeNull();
    await appendEvents(suite.t.db, [task('lease-1')]);
    const first = await readAll(a.cursor);
    expect(first.events.map((e) => e.subject)).toEqual(['lease-1']);
    expect(await commitConsumer(suite.t.db, a, first.cursor, 30)).toBe(true);
    // Instance a stops renewing: its lease runs out.
    await suite.t.db.query(`UPDATE event_consumers SET lease_until = now() - interval '1 second' WHERE name = $1`, [name]);
    const b = (await claimConsumer(suite.t.db, name, 'instance-b', 30))!;
    expect(b.cursor).toEqual(first.cursor);
    expect(await commitConsumer(suite.t.db, a, first.cursor, 30)).toBe(false);
    // b gives the lease back on stopping: a takes it at once.
    await releaseConsumer(suite.t.db, b);
    expect(await claimConsumer(suite.t.db, name, 'instance-a', 30)).not.toBeNull();
  });

  it('reads by number, not as text: 999 before 1000, nothing skipped where the digits grow', async () => {
    // The sequence is moved on to just below a power of ten, then two events are numbered across it; read one at a
    // time from before them, they come in numeric order (as text, "1000" sorts before "999" and a cursor at 1000 would
    // skip 999).
    await relayAll(suite.t.db);
    const last = Number((await suite.t.db.query<{ last: string }>('SELECT last::text AS last FROM event_sequence')).rows[0].last);
    const power = 10 ** (String(last).length + 1);
    await suite.t.db.query('UPDATE event_sequence SET last = $1', [power - 2]);
    await appendEvents(suite.t.db, [task('digits-a'), task('digits-b')]);
    await relayAll(suite.t.db);
    const first = await readEvents(suite.t.db, { seq: String(power - 2) }, 1);
    expect(first.events.map((e) => [e.subject, e.seq])).toEqual([['digits-a', String(power - 1)]]);
    const next = await readEvents(suite.t.db, first.cursor, 1);
    expect(next.events.map((e) => [e.subject, e.seq])).toEqual([['digits-b', String(power)]]);
  });

  it('a running consumer is handed every event once, in batches, and resumes where it committed after a restart', async () => {
    const name = consumer();
    const seen: string[] = [];
    const handle = async (events: DomainEvent[]) => void seen.push(...events.map((e) => e.subject!));
    const relay = startRelay(suite.t.db, quiet, { pollMs: 3_600_000 });
    try {
      const c1 = startConsumer(suite.t.db, quiet, { name, handle, batch: 2, pollMs: 3_600_000, relay });
      await c1.poke();
      await appendEvents(suite.t.db, ['e1', 'e2', 'e3', 'e4', 'e5'].map(task));
      // One round: the relay numbers what was committed before it, and the consumer reads it all, two at a time.
      await c1.poke();
      expect(seen).toEqual(['e1', 'e2', 'e3', 'e4', 'e5']);
      await c1.stop();
      await appendEvents(suite.t.db, [task('e6')]);
      const c2 = startConsumer(suite.t.db, quiet, { name, handle, pollMs: 3_600_000, relay });
      await c2.poke();
      expect(seen).toEqual(['e1', 'e2', 'e3', 'e4', 'e5', 'e6']);
      await c2.stop();
    } finally {
      await relay.stop();
    }
  });

  it('events committed before a consumer first runs are history to it; those after are news', async () => {
    const relay = startRelay(suite.t.db, quiet, { pollMs: 3_600_000 });
    const seen: string[] = [];
    const c = startConsumer(suite.t.db, quiet, {
      name: consumer(),
      handle: async (events) => void seen.push(...events.map((e) => e.subject!)),
      pollMs: 3_600_000,
      relay,
    });
    try {
      // Committed, not numbered yet, when the consumer's first round begins: the round has the relay number it first.
      await appendEvents(suite.t.db, [task('before-start')]);
      await c.poke();
      await appendEvents(suite.t.db, [task('after-start')]);
      await c.poke();
      expect(seen).toEqual(['after-start']);
    } finally {
      await c.stop();
      await relay.stop();
    }
  });

  it('a batch whose handling fails is handed again, and what the handler wrote in it is undone with it', async () => {
    const name = consumer();
    let fail = true;
    let failures = 0;
    const handled: string[] = [];
    const relay = startRelay(suite.t.db, quiet, { pollMs: 3_600_000 });
    const c = startConsumer(suite.t.db, quiet, {
      name,
      pollMs: 3_600_000,
      relay,
      handle: async (events, q) => {
        await q.query(`INSERT INTO audit_log (org_id, action, entity, entity_id) VALUES ('org-demo', 'event_test', 'event', $1)`, [events[0].id]);
        if (fail) {
          failures++;
          throw new Error('receiver down');
        }
        handled.push(...events.map((e) => e.subject!));
      },
    });
    try {
      await c.poke();
      const written = async () => Number((await suite.t.db.query<{ n: string }>("SELECT count(*) AS n FROM audit_log WHERE action = 'event_test'")).rows[0].n);
      await appendEvents(suite.t.db, [task('retry-me')]);
      // Handed over (and refused) twice: nothing it wrote stays.
      await c.poke();
      await c.poke();
      expect(failures).toBe(2);
      expect(handled).toEqual([]);
      expect(await written()).toBe(0);
      fail = false;
      await c.poke();
      expect(handled).toEqual(['retry-me']);
      expect(await written()).toBe(1);
    } finally {
      await c.stop();
      await relay.stop();
    }
  });

  it('keeps old months while an event in them is not numbered or a consumer still has one to read, and drops them once all have read them', async () => {
    await relayAll(suite.t.db);
    const name = consumer();
    const lease = (await claimConsumer(suite.t.db, name, 'a', 30))!;
    await suite.t.db.query(`SELECT ensure_month_partition('events', '2025-01-01')`);
    await suite.t.db.query(
      `INSERT INTO events (org_id, type, subtype, subject, created_at) VALUES ('org-demo', 'task', 'finished', 'old-month', '2025-01-15T00:00:00Z')`,
    );
    const now = new Date();
    const kept = async () => (await suite.t.db.query(`SELECT to_regclass('events_y2025m01') AS r`)).rows[0].r !== null;
    // Not numbered yet, though every consumer is at the present: no consumer has had it, it is kept.
    expect(await maintainEventLog(suite.t.db, now)).toEqual([]);
    expect(await kept()).toBe(true);
    // Numbered, and not read by this test's consumer (nor the others'): kept.
    await relayAll(suite.t.db);
    expect(await maintainEventLog(suite.t.db, now)).toEqual([]);
    expect(await kept()).toBe(true);
    // This month's and the next two months' partitions exist.
    const next = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 2, 1));
    const nextName = `events_y${next.getUTCFullYear()}m${String(next.getUTCMonth() + 1).padStart(2, '0')}`;
    expect((await suite.t.db.query(`SELECT to_regclass($1) AS r`, [nextName])).rows[0].r).not.toBeNull();
    // Every consumer (the other tests' too) reads to the end.
    for (const { name: other } of (await suite.t.db.query<{ name: string }>('SELECT name FROM event_consumers')).rows) {
      await suite.t.db.query(`UPDATE event_consumers SET lease_owner = NULL WHERE name = $1`, [other]);
      const l = (await claimConsumer(suite.t.db, other, 'sweeper', 30))!;
      const { cursor } = await readAll(l.cursor);
      expect(await commitConsumer(suite.t.db, l, cursor, 30)).toBe(true);
    }
    expect(lease.consumer).toBe(name);
    expect(await maintainEventLog(suite.t.db, now)).toEqual(['events_y2025m01']);
    expect(await kept()).toBe(false);
  });

  if (kind === 'postgres') {
    /** A session of the same server that opens a transaction and keeps it, idle, until end(). */
    const holdOpen = async (url: string) => {
      const c = new pg.Client({ connectionString: url });
      await c.connect();
      await c.query('BEGIN');
      await c.query('SELECT txid_current()');
      return c;
    };

    it('an event committed beside a transaction held in another database and one idle in this one is read within a couple of polls', async () => {
      const { db, url, drop } = await freshDb('postgres');
      const other = await createPostgresDatabase();
      const POLL_MS = 200;
      const relay = startRelay(db, quiet, { pollMs: POLL_MS });
      const seen: string[] = [];
      const c = startConsumer(db, quiet, {
        name: consumer(),
        handle: async (events) => void seen.push(...events.map((e) => e.subject!)),
        pollMs: POLL_MS,
        relay,
      });
      const held: pg.Client[] = [];
      try {
        await c.poke();
        // The server's oldest running transaction is now theirs, for as long as the test runs.
        held.push(await holdOpen(other.url), await holdOpen(url!));
        await appendEvents(db, [task('beside-long-transactions')]);
        // Nothing pokes: the loops' own timers. A round at most POLL_MS after the commit numbers and reads it.
        await expect.poll(() => seen, { timeout: 5 * POLL_MS, interval: 10 }).toEqual(['beside-long-transactions']);
      } finally {
        await c.stop();
        await relay.stop();
        for (const h of held) await h.end();
        await drop();
        await other.drop();
      }
    });

    it('an event of a transaction still open is numbered when it commits, after what committed before it: never skipped', async () => {
      const { db, url, drop } = await freshDb('postgres');
      await relayAll(db);
      const lease = (await claimConsumer(db, consumer(), 'a', 30))!;
      const early = new pg.Client({ connectionString: url });
      await early.connect();
      try {
        await early.query('BEGIN');
        await early.query(`INSERT INTO events (org_id, type, subtype, subject) VALUES ('org-demo', 'task', 'finished', 'early')`);
        await appendEvents(db, [task('late')]);
        // 'late' is committed and read at once, though 'early' (a smaller id) is still open: nothing waits for it.
        const first = await readAll(lease.cursor, db);
        expect(first.events.map((e) => e.subject)).toEqual(['late']);
        await early.query('COMMIT');
        // Once it commits it is numbered after 'late', so a cursor past 'late' still reads it.
        const second = await readAll(first.cursor, db);
        expect(second.events.map((e) => e.subject)).toEqual(['early']);
        expect(Number(second.events[0].id)).toBeLessThan(Number(first.events[0].id));
      } finally {
        await early.end();
        await drop();
      }
    });

    it('two relays at once: the second skips the round instead of waiting, and nothing is numbered twice', async () => {
      const { db, url, drop } = await freshDb('postgres');
      const second = await openPostgres(url!);
      try {
        await relayAll(db);
        await appendEvents(db, [task('once')]);
        let release!: () => void;
        const holding = new Promise<void>((resolve) => (release = resolve));
        let entered!: () => void;
        const inside = new Promise<void>((resolve) => (entered = resolve));
        // The first relay holds the sequence while its publisher waits.
        const first = relayOnce(db, { publish: async () => (entered(), await holding) });
        await inside;
        expect(await relayOnce(second)).toBe(0);
        release();
        expect(await first).toBe(1);
        expect(await relayOnce(second)).toBe(0);
        expect((await db.query<{ n: string }>(`SELECT count(*) AS n FROM events WHERE subject = 'once' AND seq IS NOT NULL`)).rows[0].n).toBe('1');
      } finally {
        await second.close();
        await drop();
      }
    });
  }
});
