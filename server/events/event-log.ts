/**
 * The event log (issue 16; ARCHITECTURE.md "Events, webhooks and the public API"): domain events appended in the
 * transaction of their change, read by named consumers each with a cursor of its own, claimed with a lease so that one
 * instance at a time advances a consumer and a stopped instance is taken over. Delivery is at least once; a consumer is
 * idempotent by event id. The SQL is 015_event_log.sql; SIM, SMS and task events are appended there by triggers, so
 * every writer of those tables announces its change without code of its own.
 *
 * The interface (append, read from a cursor, commit) is what a broker would carry (docs/decisions.md "The event log").
 */
import type { FastifyBaseLogger } from 'fastify';
import type { Db, Queryable } from '../db/db.js';
import { newId } from '../db/ids.js';

export type EventType = 'sim' | 'sms' | 'sms_schedule' | 'task' | 'pool' | 'usage' | 'autoflow' | 'org' | 'invoice';

export interface DomainEvent {
  /** The log's id: a consumer's idempotency key (webhooks send it as `webhook-id`). */
  id: string;
  orgId: string;
  type: EventType;
  subtype: string;
  subject: string | null;
  data: Record<string, unknown>;
  /** When it happened. */
  at: Date;
}

export interface NewEvent {
  orgId: string;
  type: EventType;
  subtype: string;
  subject?: string | null;
  data?: Record<string, unknown>;
  at?: Date;
}

/** Where a consumer has read to: the (transaction, id) of the last event it committed. */
export interface Cursor {
  txid: string;
  id: string;
}

/** Append events in q's transaction: they exist for consumers only if that transaction commits. */
export async function appendEvents(q: Queryable, events: NewEvent[]): Promise<void> {
  if (!events.length) return;
  await q.query(
    `INSERT INTO events (org_id, type, subtype, subject, data, at)
     SELECT o, t, s, j, d::jsonb, coalesce(a::timestamptz, now())
       FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[]) WITH ORDINALITY AS x(o, t, s, j, d, a, n)
      ORDER BY n`,
    [
      events.map((e) => e.orgId),
      events.map((e) => e.type),
      events.map((e) => e.subtype),
      events.map((e) => e.subject ?? null),
      events.map((e) => JSON.stringify(e.data ?? {})),
      events.map((e) => e.at?.toISOString() ?? null),
    ],
  );
}

interface EventRow {
  id: string;
  txid: string;
  org_id: string;
  type: EventType;
  subtype: string;
  subject: string | null;
  data: Record<string, unknown>;
  at: Date | string;
}

const toEvent = (r: EventRow): DomainEvent => ({ id: String(r.id), orgId: r.org_id, type: r.type, subtype: r.subtype, subject: r.subject, data: r.data, at: new Date(r.at) });

/**
 * Up to `limit` events after the cursor, in log order, of transactions older than every transaction still running:
 * an event not returned now can only come after the last one returned (015_event_log.sql explains why). The order
 * names the table's columns: a bare `txid, id` would sort by the output columns `txid::text` and `id::text`, as text,
 * and skip every event whose transaction number has fewer digits than the cursor's (999 after 1000).
 */
export async function readEvents(q: Queryable, after: Cursor, limit: number): Promise<{ events: DomainEvent[]; cursor: Cursor }> {
  const r = await q.query<EventRow>(
    `SELECT id::text, txid::text, org_id, type, subtype, subject, data, at FROM events
      WHERE (txid, id) > ($1::xid8, $2::bigint) AND txid < pg_snapshot_xmin(pg_current_snapshot())
      ORDER BY events.txid, events.id LIMIT $3`,
    [after.txid, after.id, Math.max(1, Math.floor(limit))],
  );
  const last = r.rows.at(-1);
  return { events: r.rows.map(toEvent), cursor: last ? { txid: last.txid, id: last.id } : after };
}

/** A consumer's lease: held by one instance until `until` (database time) unless renewed by a commit or a claim. */
export interface Lease {
  consumer: string;
  owner: string;
  cursor: Cursor;
}

/**
 * Take (or keep) the consumer's lease for leaseSeconds; null while another instance holds it. A consumer seen for the
 * first time starts at the log's present: it reads what is appended from now on, not the history before it existed.
 */
export async function claimConsumer(db: Db, consumer: string, owner: string, leaseSeconds: number): Promise<Lease | null> {
  // The present is the oldest transaction still running on the server (its events, and later ones, are to come), unless
  // this log already holds committed events past it: on a PostgreSQL server shared with other databases, one long
  // transaction elsewhere holds that xmin back, and the events committed here since would be replayed as "new". Those
  // are skipped: the cursor starts at the last event written. (A transaction of this database still running with a
  // smaller id than that event is skipped with them: a consumer starts at a moment, not in the middle of one.)
  await db.query(
    `INSERT INTO event_consumers (name, position_txid, position_id)
     SELECT $1, CASE WHEN last.txid >= x.xmin THEN last.txid ELSE x.xmin END, CASE WHEN last.txid >= x.xmin THEN last.id ELSE 0 END
       FROM (SELECT pg_snapshot_xmin(pg_current_snapshot()) AS xmin) x
       LEFT JOIN LATERAL (SELECT txid, id FROM events ORDER BY txid DESC, id DESC LIMIT 1) last ON true
     ON CONFLICT (name) DO NOTHING`,
    [consumer],
  );
  const r = await db.query<{ txid: string; id: string }>(
    `UPDATE event_consumers SET lease_owner = $2, lease_until = now() + make_interval(secs => $3), updated_at = now()
      WHERE name = $1 AND (lease_owner IS NULL OR lease_owner = $2 OR lease_until < now())
      RETURNING position_txid::text AS txid, position_id::text AS id`,
    [consumer, owner, leaseSeconds],
  );
  const row = r.rows[0];
  return row ? { consumer, owner, cursor: { txid: row.txid, id: row.id } } : null;
}

/**
 * Move the consumer's cursor in q's transaction (so a consumer whose work is database writes does them and the commit
 * at once: exactly once for those writes). False when the lease was lost: another instance has the consumer, and the
 * caller stops; the events it handled will be handled again there (at least once).
 */
export async function commitConsumer(q: Queryable, lease: Lease, cursor: Cursor, leaseSeconds: number): Promise<boolean> {
  const r = await q.query(
    `UPDATE event_consumers SET position_txid = $3::xid8, position_id = $4::bigint, lease_until = now() + make_interval(secs => $5), updated_at = now()
      WHERE name = $1 AND lease_owner = $2 AND lease_until >= now()`,
    [lease.consumer, lease.owner, cursor.txid, cursor.id, leaseSeconds],
  );
  if (r.rowCount === 1) lease.cursor = cursor;
  return r.rowCount === 1;
}

/** Give the lease back (an instance stopping), so another takes the consumer at once instead of after its lease. */
export async function releaseConsumer(db: Db, lease: Lease): Promise<void> {
  await db.query('UPDATE event_consumers SET lease_owner = NULL, lease_until = NULL WHERE name = $1 AND lease_owner = $2', [lease.consumer, lease.owner]);
}

export interface ConsumerOptions {
  name: string;
  /** Handles one batch in the transaction that commits the cursor; throwing leaves the cursor where it was. */
  handle(events: DomainEvent[], q: Queryable): Promise<void>;
  batch?: number;
  pollMs?: number;
  leaseSeconds?: number;
  /** Called after a batch's transaction committed (e.g. to wake what works on the consumer's writes). */
  onCommitted?: () => void;
}

/**
 * Run a consumer on this instance: every pollMs, claim its lease and hand it batches until the log is read to its
 * present. Returns the stop function, which waits for a batch in progress and gives the lease back.
 */
export function startConsumer(db: Db, log: FastifyBaseLogger, opts: ConsumerOptions): { stop: () => Promise<void>; poke: () => Promise<void> } {
  const owner = `${process.pid}-${newId(8)}`;
  const batch = opts.batch ?? 500;
  const leaseSeconds = opts.leaseSeconds ?? 30;
  let lease: Lease | null = null;
  let running: Promise<void> | null = null;
  let stopped = false;

  const round = async () => {
    lease = await claimConsumer(db, opts.name, owner, leaseSeconds);
    if (!lease) return;
    for (;;) {
      if (stopped) return;
      const held: Lease = lease;
      const done = await db.tx(async (q) => {
        const { events, cursor } = await readEvents(q, held.cursor, batch);
        if (!events.length) return null;
        await opts.handle(events, q);
        if (!(await commitConsumer(q, held, cursor, leaseSeconds))) {
          log.warn({ consumer: opts.name, owner }, 'event consumer lease lost to another instance');
          throw new LeaseLost();
        }
        return { handled: events.length, full: events.length === batch };
      });
      if (done) opts.onCommitted?.();
      if (!done || !done.full) return;
    }
  };
  const poke = async () => {
    if (stopped) return;
    if (running) return running;
    running = round()
      .catch((err) => {
        if (!(err instanceof LeaseLost)) log.error({ err, consumer: opts.name }, 'event consumer failed; it tries again');
      })
      .finally(() => (running = null));
    return running;
  };
  const timer = setInterval(() => void poke(), opts.pollMs ?? 1000);
  return {
    poke,
    stop: async () => {
      stopped = true;
      clearInterval(timer);
      await running;
      if (lease) await releaseConsumer(db, lease).catch(() => undefined);
    },
  };
}

class LeaseLost extends Error {}

/** Days an event is kept once every consumer has read it. */
export const EVENT_KEEP_DAYS = 30;

/**
 * Housekeeping: the partitions of this month and the next two exist (rows of a month without one would land in the
 * default partition), and a month's partition wholly older than EVENT_KEEP_DAYS is dropped once no consumer still has
 * an event to read in it. Returns the partitions dropped.
 */
export async function maintainEventLog(db: Db, now: Date): Promise<string[]> {
  for (let i = 0; i < 3; i++) {
    const m = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + i, 1));
    await db.query('SELECT event_ensure_partition($1::date)', [m.toISOString().slice(0, 10)]);
  }
  const cutoff = new Date(now.getTime() - EVENT_KEEP_DAYS * 86_400_000);
  const parts = await db.query<{ name: string }>(
    `SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
      WHERE i.inhparent = 'events'::regclass AND c.relname ~ '^events_y[0-9]{4}m[0-9]{2}$' ORDER BY 1`,
  );
  const dropped: string[] = [];
  for (const { name } of parts.rows) {
    const [, y, m] = /^events_y(\d{4})m(\d{2})$/.exec(name)!;
    const end = new Date(Date.UTC(Number(y), Number(m), 1));
    if (end > cutoff) continue;
    // A consumer that has not read past this month's last event holds it.
    const lagging = await db.query(
      `SELECT 1 FROM event_consumers c WHERE EXISTS (SELECT 1 FROM ${name} e WHERE (e.txid, e.id) > (c.position_txid, c.position_id)) LIMIT 1`,
    );
    if (lagging.rows.length) continue;
    await db.query(`DROP TABLE ${name}`);
    dropped.push(name);
  }
  return dropped;
}
