/**
 * The relay: the sequencer on the outbox (docs/decisions.md "The event stream: a sequencer on the outbox"). Events are
 * written with seq NULL in the transaction of their change; the relay numbers the committed ones, in id order, on from
 * event_sequence.last, and (with NATS) publishes each numbered batch before its transaction commits. Its read is a
 * plain read-committed read of rows not numbered yet: it sees only committed rows and waits on no transaction, so a
 * long transaction elsewhere (another database, a report, an idle session) delays no event. An event whose transaction
 * commits late is numbered late, after everything numbered before it: consumers reading by number skip nothing.
 *
 * One relay numbers at a time across instances: it holds event_sequence's one row (FOR UPDATE SKIP LOCKED); the others
 * skip the round rather than wait.
 */
import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../db/db.js';
import { endedBefore } from '../job/hand-back.js';
import { toSequencedEvent, type DomainEvent, type EventRow } from './event-log.js';

/** Where numbered events go before their numbers are committed (NATS JetStream); the in-database path has none. */
export interface EventPublisher {
  /**
   * Publish one numbered batch, in seq order. Resolves once the broker holds every event; throwing rolls the batch's
   * numbering back, and its events are numbered and published again by a later round (the event id de-duplicates).
   */
  publish(events: Array<DomainEvent & { seq: string }>): Promise<void>;
}

/** Events numbered per transaction: a backlog (a seed, an import, NATS back after an outage) goes in rounds of this. */
export const RELAY_BATCH = 1000;

const bySeq = (a: { seq: string }, b: { seq: string }) => (BigInt(a.seq) < BigInt(b.seq) ? -1 : BigInt(a.seq) > BigInt(b.seq) ? 1 : 0);

/**
 * Number up to `limit` committed events not numbered yet, in id order, publish them (when a publisher is given) and
 * commit: all in one transaction. Returns how many were numbered; 0 when there were none or another instance is
 * numbering now. Throws (numbering nothing) when the publisher throws.
 */
export async function relayOnce(db: Db, publisher?: EventPublisher, limit = RELAY_BATCH): Promise<number> {
  // Most rounds find nothing to number: one indexed read says so without a transaction and a lock (on PGlite, whose one
  // connection every loop shares, four statements fewer per consumer round).
  if (!(await db.query('SELECT 1 FROM events WHERE seq IS NULL LIMIT 1')).rows.length) return 0;
  return db.tx(async (q) => {
    const held = await q.query<{ last: string }>('SELECT last::text AS last FROM event_sequence FOR UPDATE SKIP LOCKED');
    const sequence = held.rows[0];
    if (!sequence) return 0;
    // The primary key (created_at, id) finds each row in its month's partition; seq IS NULL in the update as well as in
    // the read, so a row numbered meanwhile (it cannot be: the lock is ours) would never be numbered twice.
    const r = await q.query<EventRow>(
      `WITH pending AS (
         SELECT created_at, id FROM events WHERE seq IS NULL ORDER BY events.id LIMIT $2
       ), numbered AS (
         SELECT created_at, id, $1::bigint + row_number() OVER (ORDER BY id) AS seq FROM pending
       )
       UPDATE events e SET seq = numbered.seq FROM numbered
        WHERE e.created_at = numbered.created_at AND e.id = numbered.id AND e.seq IS NULL
       RETURNING e.id::text AS id, e.seq::text AS seq, e.org_id, e.type, e.subtype, e.subject, e.data, e.at`,
      [sequence.last, Math.max(1, Math.floor(limit))],
    );
    if (!r.rows.length) return 0;
    const events = r.rows.map(toSequencedEvent).sort(bySeq);
    await q.query('UPDATE event_sequence SET last = $1::bigint', [events[events.length - 1].seq]);
    await publisher?.publish(events);
    return events.length;
  });
}

export interface RelayOptions {
  /** A round every pollMs, besides the rounds poked by the instance's consumers. */
  pollMs: number;
  publisher?: EventPublisher;
  batch?: number;
}

export interface Relay {
  /**
   * Run a round now; resolves when a round that began after this call has ended (one already going may have read
   * before the caller's commit). Never rejects: a failed round is logged, and its events wait for the next.
   */
  poke(): Promise<void>;
  /** Stop: no new round; the round going is waited for until `handBack` aborts (its transaction ends with the database). */
  stop(handBack?: AbortSignal): Promise<void>;
}

/** Every minute at most, a relay failing round after round (NATS down) says so again. */
const FAILING_LOG_EVERY_MS = 60_000;

/**
 * Run the relay on this instance: a round every pollMs and whenever poked; each round numbers batches until none is
 * left. Runs on every instance that runs jobs; the row lock keeps one numbering at a time.
 */
export function startRelay(db: Db, log: FastifyBaseLogger, opts: RelayOptions): Relay {
  const batch = opts.batch ?? RELAY_BATCH;
  let running: Promise<void> | null = null;
  let next: Promise<void> | null = null;
  let stopped = false;
  let failingSince = 0;
  let lastFailureLog = 0;

  const round = async () => {
    for (;;) {
      if (stopped) return;
      const n = await relayOnce(db, opts.publisher, batch);
      if (n < batch) return;
    }
  };
  const run = (): Promise<void> =>
    round()
      .then(() => {
        if (failingSince) log.info({ failingForMs: Date.now() - failingSince }, 'event relay numbering again');
        failingSince = 0;
      })
      .catch((err: unknown) => {
        const now = Date.now();
        // Events stay pending and are numbered by a later round; one line when it starts failing, then one a minute.
        if (!failingSince || now - lastFailureLog >= FAILING_LOG_EVERY_MS) {
          log.error({ err, failingForMs: failingSince ? now - failingSince : 0 }, 'event relay failed; events wait in the outbox and it tries again');
          lastFailureLog = now;
        }
        failingSince ||= now;
      })
      .finally(() => {
        running = null;
      });
  const poke = (): Promise<void> => {
    if (stopped) return Promise.resolve();
    if (!running) return (running = run());
    // One more round after the one going, shared by every poke made meanwhile.
    next ??= running.then(() => {
      next = null;
      return poke();
    });
    return next;
  };
  const timer = setInterval(() => void poke(), opts.pollMs);
  return {
    poke,
    stop: async (handBack?: AbortSignal) => {
      stopped = true;
      clearInterval(timer);
      await endedBefore(running, handBack);
    },
  };
}
