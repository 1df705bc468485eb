/**
 * The event log (ARCHITECTURE.md "Events, webhooks and the public API"): domain events appended in the transaction of
 * their change (the transactional outbox), numbered once committed by the relay (relay.ts), read in that order by named
 * consumers each with a cursor of its own, claimed with a lease so that one instance at a time advances a consumer and
 * a stopped instance is taken over. Delivery is at least once; a consumer is idempotent by event id. The SQL is
 * 015_event_log.sql and 065_event_sequence.sql; SIM, SMS and task events are appended there by triggers, so every
 * writer of those tables announces its change without code of its own.
 *
 * No reader waits on transactions: an event is readable once the relay has numbered it, and the relay numbers what is
 * committed (docs/decisions.md "The event stream: a sequencer on the outbox").
 */
import type { FastifyBaseLogger } from 'fastify';
import type { Db, Queryable } from '../db/db.js';
import { newId } from '../db/ids.js';
import { endedBefore } from '../job/hand-back.js';

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

/** An event as the relay numbered it: `seq` is its place in the log (a bigint, as text). */
export type SequencedEvent = DomainEvent & { seq: string };

/** Where a consumer has read to: the number (seq) of the last event it committed. */
export interface Cursor {
  seq: string;
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

/** A row of events as read for a consumer or the relay (id and seq as text). */
export interface EventRow {
  id: string;
  seq: string;
  org_id: string;
  type: EventType;
  subtype: string;
  subject: string | null;
  data: Record<string, unknown>;
  at: Date | string;
}

/** A row of events as the event consumers and the relay's publisher see it. */
export const toSequencedEvent = (r: EventRow): SequencedEvent => ({
  id: String(r.id),
  seq: String(r.seq),
  orgId: r.org_id,
  type: r.type,
  subtype: r.subtype,
  subject: r.subject,
  data: r.data,
  at: new Date(r.at),
});

/**
 * Up to `limit` events numbered after the cursor, in log order. Only numbered events are read, and the relay numbers
 * each batch in one transaction on from the last number given, so an event not returned now can only come after the
 * last one returned. The order names the table's column: a bare `seq` would sort by the output column `seq::text`, as
 * text, and put 10 before 9.
 */
export async function readEvents(q: Queryable, after: Cursor, limit: number): Promise<{ events: SequencedEvent[]; cursor: Cursor }> {
  const r = await q.query<EventRow>(
    `SELECT id::text, seq::text, org_id, type, subtype, subject, data, at FROM events
      WHERE seq > $1::bigint ORDER BY events.seq LIMIT $2`,
    [after.seq, Math.max(1, Math.floor(limit))],
  );
  const last = r.rows.at(-1);
  return { events: r.rows.map(toSequencedEvent), cursor: last ? { seq: last.seq } : after };
}

/** A consumer's lease: held by one instance until `until` (database time) unless renewed by a commit or a claim. */
export interface Lease {
  consumer: string;
  owner: string;
  cursor: Cursor;
}

/**
 * Take (or keep) the consumer's lease for leaseSeconds; null while another instance holds it. A consumer seen for the
 * first time starts at the log's present, the last number given: it reads what is numbered from now on, not the
 * history before it existed (startConsumer has the relay number what is committed first, so that is history too).
 */
export async function claimConsumer(db: Db, consumer: string, owner: string, leaseSeconds: number): Promise<Lease | null> {
  await db.query(`INSERT INTO event_consumers (name, position_seq) SELECT $1, last FROM event_sequence ON CONFLICT (name) DO NOTHING`, [consumer]);
  const r = await db.query<{ seq: string }>(
    `UPDATE event_consumers SET lease_owner = $2, lease_until = now() + make_interval(secs => $3), updated_at = now()
      WHERE name = $1 AND (lease_owner IS NULL OR lease_owner = $2 OR lease_until < now())
      RETURNING position_seq::text AS seq`,
    [consumer, owner, leaseSeconds],
  );
  const row = r.rows[0];
  return row ? { consumer, owner, cursor: { seq: row.seq } } : null;
}

/**
 * Move the consumer's cursor in q's transaction (so a consumer whose work is database writes does them and the commit
 * at once: exactly once for those writes). False when the lease was lost: another instance has the consumer, and the
 * caller stops; the events it handled will be handled again there (at least once).
 */
export async function commitConsumer(q: Queryable, lease: Lease, cursor: Cursor, leaseSeconds: number): Promise<boolean> {
  const r = await q.query(
    `UPDATE event_consumers SET position_seq = $3::bigint, lease_until = now() + make_interval(secs => $4), updated_at = now()
      WHERE name = $1 AND lease_owner = $2 AND lease_until >= now()`,
    [lease.consumer, lease.owner, cursor.seq, leaseSeconds],
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
  /**
   * The instance's relay (startRelay in relay.ts), poked at the start of each round, so an event committed before the
   * round is numbered and read in it: an event waits at most one poll. Without it the consumer reads what other loops
   * number.
   */
  relay?: { poke(): Promise<void> };
}

/**
 * Run a consumer on this instance: every pollMs, have the relay number what is committed, claim the lease and hand it
 * batches until the log is read to its present. Returns the stop function, which waits for a batch in progress and
 * gives the lease back, and poke, which runs a round now.
 */
export function startConsumer(
  db: Db,
  log: FastifyBaseLogger,
  opts: ConsumerOptions,
): { stop: (handBack?: AbortSignal) => Promise<void>; poke: () => Promise<void> } {
  const owner = `${process.pid}-${newId(8)}`;
  const batch = opts.batch ?? 500;
  const leaseSeconds = opts.leaseSeconds ?? 30;
  let lease: Lease | null = null;
  let running: Promise<void> | null = null;
  let stopped = false;

  const round = async () => {
    await opts.relay?.poke();
    if (stopped) return;
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
    // A batch still going when `handBack` aborts keeps the lease (its transaction ends with the database's close, and
    // the cursor stays where it was committed); otherwise the lease is given back for another instance to take at once.
    stop: async (handBack?: AbortSignal) => {
      stopped = true;
      clearInterval(timer);
      if (!(await endedBefore(running, handBack))) return;
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
    await db.query("SELECT ensure_month_partition('events', $1::date)", [m.toISOString().slice(0, 10)]);
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
    // An event not numbered yet, or a consumer that has not read past this month's last event, holds it.
    const lagging = await db.query(
      `SELECT 1 WHERE EXISTS (SELECT 1 FROM ${name} WHERE seq IS NULL)
          OR (SELECT max(seq) FROM ${name}) > (SELECT min(position_seq) FROM event_consumers)`,
    );
    if (lagging.rows.length) continue;
    await db.query(`DROP TABLE ${name}`);
    dropped.push(name);
  }
  return dropped;
}
