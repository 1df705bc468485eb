/**
 * The event log (015_event_log.sql, server/events/event-log.ts): SIM, SMS and task changes appended in their own
 * transaction by whoever makes them; consumers read in an order no late commit can break, one instance at a time under
 * a lease, at least once; old months pruned only once every consumer has read them. On PGlite and PostgreSQL.
 */
import { describe, expect, it, vi } from 'vitest';
import pg from 'pg';
import { DEMO_SIMS } from '../../server/db/seed-fleet.js';
import { newId } from '../../server/db/ids.js';
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
import { call, createPostgresDatabase, DB_KINDS, DEMO, freshDb, signedInSuite } from '../helper.js';

// On PostgreSQL an event is readable once every older writing transaction of the server has ended, and in a full run
// other files' seeds on the same server are such transactions (docs/decisions.md, "The event log"): waits are long.
vi.setConfig({ testTimeout: 240_000 });

const quiet = { info() {}, warn() {}, error() {}, debug() {} } as never;

describe.each(DB_KINDS)('event log on %s', (kind) => {
  const suite = signedInSuite(kind, { operator: DEMO.operator });

  /** A fresh consumer name per test: each starts at the log's present. */
  const consumer = () => `test_${newId(8).toLowerCase().replace(/[^a-z]/g, 'x')}`;
  /** Everything readable after the cursor now, batch by batch. */
  const readNow = async (from: Cursor) => {
    const out: DomainEvent[] = [];
    let cursor = from;
    for (;;) {
      const r = await readEvents(suite.t.db, cursor, 50);
      out.push(...r.events);
      if (!r.events.length) return { events: out, cursor };
      cursor = r.cursor;
    }
  };
  /**
   * Everything after the cursor up to a marker event appended now. Readability waits for every older writing
   * transaction of the database server to end, and on a shared test server other files' seeds are such transactions:
   * the marker says when all that came before it is readable.
   */
  const readAll = async (from: Cursor) => {
    const marker = `marker-${newId(8)}`;
    await appendEvents(suite.t.db, [{ orgId: 'org-demo', type: 'task', subtype: 'finished', subject: marker }]);
    const out: DomainEvent[] = [];
    let cursor = from;
    const deadline = Date.now() + 180_000;
    for (;;) {
      const r = await readNow(cursor);
      cursor = r.cursor;
      const at = r.events.findIndex((e) => e.subject === marker);
      if (at >= 0) return { events: [...out, ...r.events.slice(0, at)], cursor };
      out.push(...r.events);
      if (Date.now() > deadline) throw new Error('the marker event never became readable');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };

  it('a new consumer starts at the present: the seed is not replayed to it', async () => {
    expect(Number((await suite.t.db.query<{ n: string }>('SELECT count(*) AS n FROM events')).rows[0].n)).toBeGreaterThan(0);
    const lease = (await claimConsumer(suite.t.db, consumer(), 'a', 30))!;
    expect((await readAll(lease.cursor)).events).toEqual([]);
  });

  it('a SIM suspended and resumed in the console is two events of the log, in order, with who and from what to what', async () => {
    const lease = (await claimConsumer(suite.t.db, consumer(), 'a', 30))!;
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
    const lease = (await claimConsumer(suite.t.db, consumer(), 'a', 30))!;
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
    const lease = (await claimConsumer(suite.t.db, consumer(), 'a', 30))!;
    const task = newId();
    await suite.t.db.query(`INSERT INTO tasks (org_id, id, reference_id, kind, quantity) VALUES ('org-demo', $1, 'REF-EVENT-1', 'sim_export', 3)`, [task]);
    await suite.t.db.query(`UPDATE tasks SET progress = 50 WHERE id = $1`, [task]);
    await suite.t.db.query(`UPDATE tasks SET status = 'done', progress = 100, ended_at = now() WHERE id = $1`, [task]);
    const sim = (await suite.t.db.query<{ id: string; iccid: string }>('SELECT id, iccid FROM sims WHERE iccid = $1', [DEMO_SIMS.active])).rows[0];
    const mo = newId();
    const mt = newId();
    await suite.t.db.query(
      `INSERT INTO sms_records (org_id, id, sim_id, iccid, direction, content, status) VALUES ('org-demo', $1, $3, $4, 'MO', 'hello', 'received'), ('org-demo', $2, $3, $4, 'MT', 'ping', 'sent')`,
      [mo, mt, sim.id, sim.iccid],
    );
    await suite.t.db.query(`UPDATE sms_records SET status = 'delivered', delivered_at = now() WHERE id = $1`, [mt]);
    await suite.t.db.query(`INSERT INTO sim_events (org_id, sim_id, iccid, type, detail, source) VALUES ('org-demo', $1, $2, 'location', '{"lat":1,"lon":2}', 'network')`, [sim.id, sim.iccid]);
    const got = (await readAll(lease.cursor)).events.map((e) => [e.type, e.subtype, e.subject, e.data.status ?? e.data.content ?? e.data.smsId]);
    expect(got).toEqual([
      ['task', 'finished', task, 'done'],
      ['sms', 'received', sim.iccid, 'hello'],
      ['sms', 'delivered', sim.iccid, mt],
    ]);
  });

  it('one instance at a time advances a consumer; another takes over when its lease runs out, and the old holder can no longer commit', async () => {
    const name = consumer();
    const a = (await claimConsumer(suite.t.db, name, 'instance-a', 30))!;
    expect(a).not.toBeNull();
    expect(await claimConsumer(suite.t.db, name, 'instance-b', 30)).toBeNull();
    await appendEvents(suite.t.db, [{ orgId: 'org-demo', type: 'task', subtype: 'finished', subject: 'lease-1' }]);
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

  it('reads in transaction order by number, not as text: 9 before 10, nothing skipped where the digits grow', async () => {
    // Two events of (long past) transactions 10 and 9, written in that order; no real event has so small a number (the
    // events table is made by a later migration's transaction). Read from just before them, they come 9 then 10; the
    // query had sorted its text output columns, and a cursor at 1000 had skipped 999.
    const subject = `digits-${newId(8)}`;
    for (const txid of ['10', '9']) {
      await suite.t.db.query(`INSERT INTO events (txid, org_id, type, subtype, subject) VALUES ($1::xid8, 'org-demo', 'task', 'finished', $2)`, [txid, `${subject}-${txid}`]);
    }
    try {
      const first = await readEvents(suite.t.db, { txid: '8', id: '0' }, 1);
      expect(first.events.map((e) => e.subject)).toEqual([`${subject}-9`]);
      const next = await readEvents(suite.t.db, first.cursor, 1);
      expect(next.events.map((e) => e.subject)).toEqual([`${subject}-10`]);
    } finally {
      await suite.t.db.query('DELETE FROM events WHERE subject LIKE $1', [`${subject}-%`]);
    }
  });

  it('a running consumer is handed every event once, in batches, and resumes where it committed after a restart', async () => {
    const name = consumer();
    const seen: string[] = [];
    const handle = async (events: DomainEvent[]) => void seen.push(...events.map((e) => e.subject!));
    const c1 = startConsumer(suite.t.db, quiet, { name, handle, batch: 2, pollMs: 60_000 });
    await c1.poke();
    await appendEvents(suite.t.db, ['e1', 'e2', 'e3', 'e4', 'e5'].map((subject) => ({ orgId: 'org-demo', type: 'task' as const, subtype: 'finished', subject })));
    await expect.poll(async () => (await c1.poke(), seen), { timeout: 180_000 }).toEqual(['e1', 'e2', 'e3', 'e4', 'e5']);
    await c1.stop();
    await appendEvents(suite.t.db, [{ orgId: 'org-demo', type: 'task', subtype: 'finished', subject: 'e6' }]);
    const c2 = startConsumer(suite.t.db, quiet, { name, handle, pollMs: 60_000 });
    await expect.poll(async () => (await c2.poke(), seen), { timeout: 180_000 }).toEqual(['e1', 'e2', 'e3', 'e4', 'e5', 'e6']);
    await c2.stop();
  });

  it('a batch whose handling fails is handed again, and what the handler wrote in it is undone with it', async () => {
    const name = consumer();
    let fail = true;
    let failures = 0;
    const handled: string[] = [];
    const c = startConsumer(suite.t.db, quiet, {
      name,
      pollMs: 60_000,
      handle: async (events, q) => {
        await q.query(`INSERT INTO audit_log (org_id, action, entity, entity_id) VALUES ('org-demo', 'event_test', 'event', $1)`, [events[0].id]);
        if (fail) {
          failures++;
          throw new Error('receiver down');
        }
        handled.push(...events.map((e) => e.subject!));
      },
    });
    await c.poke();
    const written = async () => Number((await suite.t.db.query<{ n: string }>("SELECT count(*) AS n FROM audit_log WHERE action = 'event_test'")).rows[0].n);
    let attempts = 0;
    const counting = c;
    await appendEvents(suite.t.db, [{ orgId: 'org-demo', type: 'task', subtype: 'finished', subject: 'retry-me' }]);
    // Until the event is readable and handed over (and refused) at least twice, nothing it wrote stays.
    await expect.poll(async () => (await counting.poke(), (attempts = failures)), { timeout: 180_000 }).toBeGreaterThanOrEqual(2);
    expect(attempts).toBeGreaterThanOrEqual(2);
    expect(handled).toEqual([]);
    expect(await written()).toBe(0);
    fail = false;
    await c.poke();
    await c.stop();
    expect(handled).toEqual(['retry-me']);
    expect(await written()).toBe(1);
  });

  it('keeps old months while a consumer still has events to read in them, and drops them once all have read them', async () => {
    const name = consumer();
    const lease = (await claimConsumer(suite.t.db, name, 'a', 30))!;
    await suite.t.db.query(`SELECT event_ensure_partition('2025-01-01')`);
    await suite.t.db.query(`INSERT INTO events (org_id, type, subtype, subject, created_at) VALUES ('org-demo', 'task', 'finished', 'old-month', '2025-01-15T00:00:00Z')`);
    const now = new Date();
    expect(await maintainEventLog(suite.t.db, now)).toEqual([]);
    expect((await suite.t.db.query(`SELECT to_regclass('events_y2025m01') AS r`)).rows[0].r).not.toBeNull();
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
    expect((await suite.t.db.query(`SELECT to_regclass('events_y2025m01') AS r`)).rows[0].r).toBeNull();
  });

  if (kind === 'postgres') {
    it('a consumer made while another database holds a transaction open starts after the events committed here', async () => {
      const { db, drop } = await freshDb('postgres');
      const other = await createPostgresDatabase();
      const elsewhere = new pg.Client({ connectionString: other.url });
      await elsewhere.connect();
      try {
        // A transaction of another database on the same server holds the server's oldest running transaction back.
        await elsewhere.query('BEGIN');
        await elsewhere.query('SELECT pg_current_xact_id()');
        await appendEvents(db, [{ orgId: 'org-demo', type: 'task', subtype: 'finished', subject: 'before' }]);
        const lease = (await claimConsumer(db, consumer(), 'a', 30))!;
        await elsewhere.query('COMMIT');
        await appendEvents(db, [{ orgId: 'org-demo', type: 'task', subtype: 'finished', subject: 'after' }]);
        // 'before' was committed when the consumer was made: it is history, not news.
        await expect.poll(async () => (await readEvents(db, lease.cursor, 10)).events.map((e) => e.subject), { timeout: 180_000 }).toEqual(['after']);
      } finally {
        await elsewhere.end();
        await drop();
        await other.drop();
      }
    });

    it('an event of a transaction still open is not read past: a later commit cannot make a consumer skip it', async () => {
      const { db, url, drop } = await freshDb('postgres');
      const lease = (await claimConsumer(db, consumer(), 'a', 30))!;
      const early = new pg.Client({ connectionString: url });
      await early.connect();
      try {
        await early.query('BEGIN');
        await early.query(`INSERT INTO events (org_id, type, subtype, subject) VALUES ('org-demo', 'task', 'finished', 'early')`);
        await appendEvents(db, [{ orgId: 'org-demo', type: 'task', subtype: 'finished', subject: 'late' }]);
        // 'late' committed, but 'early' (an older transaction) is still open: nothing is readable yet.
        const first = await readEvents(db, lease.cursor, 10);
        expect(first.events).toEqual([]);
        await early.query('COMMIT');
        // Once it commits, both are read, the older transaction's first (other test files' transactions on this server
        // may hold the horizon a little longer: hence the poll).
        await expect.poll(async () => (await readEvents(db, first.cursor, 10)).events.map((e) => e.subject), { timeout: 180_000 }).toEqual(['early', 'late']);
      } finally {
        await early.end();
        await drop();
      }
    });
  }
});
