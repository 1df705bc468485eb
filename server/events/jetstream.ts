/**
 * The event stream on NATS JetStream, used when NATS_URL is set (docs/decisions.md "The event stream: a sequencer on the
 * outbox, JetStream when NATS_URL is set"). The relay publishes the events it numbers to one stream; each consumer of
 * the log (webhooks, autoflow, live) reads it through one durable pull consumer per partition, a partition read by the
 * one instance holding its lease (066_event_partitions.sql), its effects and the partition's last stream sequence
 * committed in one database transaction before the messages are acknowledged.
 *
 * Why a consumer never skips a message. A redelivery at or below the partition's last committed stream sequence is
 * acknowledged without being handled again; that is exact only if nothing older than a committed message can still be
 * outstanding. So the reader never lets a newer message overtake an older one it has not committed:
 * - a batch that fails is not negatively acknowledged at once (the open pull would hand it straight back, spending its
 *   attempts in a burst) nor with a delay (newer messages would be delivered meanwhile); everything that pull delivers
 *   from then on is held too, and when it ends they are all handed back without delay, in order, ahead of anything
 *   new. The next pull must begin with the first of them; if it does not, it is handed back the same way;
 * - a partition taken over with messages still unacknowledged (an instance that stopped or died holding them), or read
 *   after the connection or a pull broke (deliveries may have been lost on the way), is guarded — and a pull during
 *   which the connection dropped or came back is handed back whole, unhandled, to be guarded first: its first pull waits
 *   the acknowledgement window, after which JetStream usually redelivers those messages ahead of newer ones, and until
 *   they are all acknowledged a message is committed only when JetStream's acknowledgement floor shows nothing older
 *   still out (its redelivery timer may run late, and a newer message then comes first: it is handed back);
 * - a pull is made only with the lease good for longer than the pull lasts, so no pull of an instance that lost its
 *   lease is still open when another takes the partition.
 */
import type { FastifyBaseLogger } from 'fastify';
import { connect, nanos, type NatsConnection } from '@nats-io/transport-node';
import {
  AckPolicy,
  DeliverPolicy,
  DiscardPolicy,
  JetStreamApiCodes,
  JetStreamApiError,
  ReplayPolicy,
  RetentionPolicy,
  StorageType,
  jetstream,
  jetstreamManager,
  type Consumer,
  type ConsumerInfo,
  type ConsumerMessages,
  type JetStreamClient,
  type JetStreamManager,
  type JsMsg,
  type StreamConfig,
} from '@nats-io/jetstream';
import type { Db, Queryable } from '../db/db.js';
import { newId } from '../db/ids.js';
import { endedBefore } from '../job/hand-back.js';
import { EVENT_KEEP_DAYS, type ConsumerOptions, type DomainEvent, type EventType } from './event-log.js';
import type { EventPublisher } from './relay.js';
import type { EventStats } from '../plugins/app/metrics.js';

/** Partitions of the stream: one SIM's events share one, and each is read by one instance at a time. */
export const EVENT_PARTITIONS = 16;
/** Deliveries of a message before it is handled alone, and, if it still fails, recorded as a dead letter. */
export const MAX_ATTEMPTS = 5;
/** The stream and the first token of its subjects, unless the bus is told others (tests run on a stream of their own). */
export const EVENT_STREAM = 'EVENTS';
export const EVENT_SUBJECT_PREFIX = 'events';
/**
 * How long JetStream remembers a message id. The relay publishes before it commits; a commit that fails (the database
 * gone between the two) is followed by the same events published again once the database answers, and this window is
 * what drops them: five minutes covers a database restart or failover. The ids are held in the server's memory, so the
 * window is not made longer than needed (about 600,000 ids at 2,000 events a second).
 */
export const DUPLICATE_WINDOW_MS = 5 * 60_000;
/**
 * The stream keeps a message as long as the outbox keeps the event (EVENT_KEEP_DAYS), so a consumer that was down for
 * days catches up and a day can be replayed, and at most this many bytes: at 2,000 events a second of ~500 bytes the age
 * alone would be 2.6 TB on the NATS server's disk. 16 GiB is about nine hours at that rate and weeks at an ordinary one;
 * a consumer that lags that far shows it long before in its pending count (consumerStats, /metrics).
 */
export const EVENT_STREAM_MAX_BYTES = 16 * 1024 ** 3;

export interface EventBusOptions {
  /** The stream's name (EVENT_STREAM by default). */
  stream?: string;
  /** The first token of its subjects (EVENT_SUBJECT_PREFIX by default); two streams may not share subjects. */
  subjectPrefix?: string;
  partitions?: number;
  maxBytes?: number;
  /** Copies of each message in a NATS cluster (1 on a single server; 3 in production). */
  replicas?: number;
  /** How long a publish waits for JetStream's acknowledgement. */
  publishTimeoutMs?: number;
}

/** A consumer's figures, summed over its partitions. */
export interface ConsumerStats {
  /** Messages not yet delivered plus those delivered and not yet acknowledged: the consumer's lag. */
  pending: number;
  /** Messages delivered more than once and not yet acknowledged. */
  redelivered: number;
  /** Messages given up on (event_dead_letters). */
  deadLetters: number;
}

export interface EventBus {
  readonly stream: string;
  readonly subjectPrefix: string;
  readonly partitions: number;
  /** The stream's name and creation time: a stream made anew numbers its messages from 1 again. */
  readonly streamId: string;
  readonly nc: NatsConnection;
  readonly js: JetStreamClient;
  readonly jsm: JetStreamManager;
  readonly publisher: EventPublisher;
  /** When the connection last dropped or came back (Date.now()); 0 if never. */
  readonly disturbedAt: number;
  partitionOf(event: Pick<DomainEvent, 'subject' | 'orgId'>): number;
  subjectOf(event: Pick<DomainEvent, 'subject' | 'orgId' | 'type' | 'subtype'>): string;
  /** The figures of every consumer reading the stream, by consumer name. */
  consumerStats(db: Queryable): Promise<Record<string, ConsumerStats>>;
  close(): Promise<void>;
}

/** FNV-1a: the same partition for the same key on every instance and every version of Node. */
export function partitionOf(key: string, partitions: number): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) {
    h ^= key.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return (h >>> 0) % partitions;
}

/** A subject token: no dots, wildcards or spaces (they would split or widen the subject). */
export const subjectToken = (s: string): string => s.replace(/[^A-Za-z0-9_-]/g, '_') || '_';

const isApiError = (err: unknown, code: number) => err instanceof JetStreamApiError && err.code === code;

/**
 * Connect to NATS and make sure the stream exists. The connection reconnects for as long as the bus is open: while NATS
 * is away publishes fail (the relay keeps the events in the outbox) and consumers wait.
 */
export async function connectEventBus(url: string, log: FastifyBaseLogger, opts: EventBusOptions = {}): Promise<EventBus> {
  const stream = opts.stream ?? EVENT_STREAM;
  const prefix = opts.subjectPrefix ?? EVENT_SUBJECT_PREFIX;
  const partitions = opts.partitions ?? EVENT_PARTITIONS;
  const publishTimeoutMs = opts.publishTimeoutMs ?? 5000;
  const nc = await connect({ servers: url, name: 'iot-sim-console', maxReconnectAttempts: -1, reconnectTimeWait: 1000 });
  let disturbedAt = 0;
  // While the connection is down the client would keep publishes in its buffer and send them on reconnecting, long
  // after the relay gave them up and rolled their numbering back: the relay publishes only while connected.
  let connected = true;
  void (async () => {
    for await (const s of nc.status()) {
      if (s.type === 'disconnect' || s.type === 'reconnect') {
        connected = s.type === 'reconnect';
        disturbedAt = Date.now();
        log.warn({ nats: s.type }, s.type === 'disconnect' ? 'NATS connection lost; it reconnects' : 'NATS connection back');
      }
    }
  })().catch(() => undefined);
  try {
    const jsm = await jetstreamManager(nc);
    const js = jetstream(nc);
    const config: Partial<StreamConfig> & { name: string } = {
      name: stream,
      subjects: [`${prefix}.>`],
      storage: StorageType.File,
      retention: RetentionPolicy.Limits,
      discard: DiscardPolicy.Old,
      max_age: nanos(EVENT_KEEP_DAYS * 86_400_000),
      max_bytes: opts.maxBytes ?? EVENT_STREAM_MAX_BYTES,
      duplicate_window: nanos(DUPLICATE_WINDOW_MS),
      num_replicas: opts.replicas ?? 1,
    };
    const info = await ensureStream(jsm, config);
    const streamId = `${stream}@${info.created}`;

    const subjectOf = (e: Pick<DomainEvent, 'subject' | 'orgId' | 'type' | 'subtype'>) =>
      `${prefix}.${partitionOf(e.subject ?? e.orgId, partitions)}.${subjectToken(e.orgId)}.${subjectToken(e.type)}.${subjectToken(e.subtype)}`;

    const send = (e: DomainEvent & { seq: string }) =>
      js.publish(
        subjectOf(e),
        JSON.stringify({ id: e.id, seq: e.seq, orgId: e.orgId, type: e.type, subtype: e.subtype, subject: e.subject, data: e.data, at: e.at }),
        {
          msgID: e.id,
          timeout: publishTimeoutMs,
        },
      );
    const publisher: EventPublisher = {
      // The first event of a batch is published alone, the others all at once behind it, in order on the one connection
      // (so the stream stores a partition's events in the order given), every acknowledgement awaited: one that failed
      // fails the whole call, and the relay, which has not committed, publishes them all again (those stored already are
      // dropped as duplicates by their id). Alone first, because a NATS server just started answers before its stream
      // is back: sent all at once then, the first events are refused and later ones stored, and published again the
      // first would land after them (a SIM's resumption before its suspension). Once one is stored the stream is there.
      async publish(events) {
        if (!events.length) return;
        if (!connected) throw new Error('NATS is not connected: the events wait in the outbox');
        await send(events[0]);
        for (let i = 1; i < events.length; i += 1000) {
          const results = await Promise.allSettled(events.slice(i, i + 1000).map(send));
          const failed = results.find((r) => r.status === 'rejected');
          if (failed) throw failed.reason;
        }
      },
    };

    return {
      stream,
      subjectPrefix: prefix,
      partitions,
      streamId,
      nc,
      js,
      jsm,
      publisher,
      get disturbedAt() {
        return disturbedAt;
      },
      partitionOf: (e) => partitionOf(e.subject ?? e.orgId, partitions),
      subjectOf,
      async consumerStats(db) {
        const out: Record<string, ConsumerStats> = {};
        const of = (name: string) => (out[name] ??= { pending: 0, redelivered: 0, deadLetters: 0 });
        for await (const ci of jsm.consumers.list(stream)) {
          const m = /^(.+)_p\d+$/.exec(ci.name);
          if (!m) continue;
          const s = of(m[1]);
          s.pending += ci.num_pending + ci.num_ack_pending;
          s.redelivered += ci.num_redelivered;
        }
        const dead = await db.query<{ consumer: string; n: number }>('SELECT consumer, count(*)::int AS n FROM event_dead_letters GROUP BY consumer');
        for (const r of dead.rows) of(r.consumer).deadLetters = r.n;
        return out;
      },
      async close() {
        if (!nc.isClosed()) await nc.close();
      },
    };
  } catch (err) {
    await nc.close().catch(() => undefined);
    throw err;
  }
}

/** The event figures of the JetStream path for /metrics and the health answer (app.eventStats.read when NATS runs). */
export async function jetStreamEventStats(bus: EventBus, q: Queryable): Promise<EventStats> {
  const outbox = await q.query<{ n: string }>('SELECT count(*)::text AS n FROM events WHERE seq IS NULL');
  const stats = await bus.consumerStats(q);
  return {
    outbox: Number(outbox.rows[0]?.n ?? 0),
    consumers: Object.entries(stats)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([consumer, s]) => ({ consumer, ...s })),
  };
}

/** The stream as configured; one made already (by another instance, or tuned by an operator) is taken as it is. */
async function ensureStream(jsm: JetStreamManager, config: Partial<StreamConfig> & { name: string }) {
  try {
    return await jsm.streams.info(config.name);
  } catch (err) {
    if (!isApiError(err, JetStreamApiCodes.StreamNotFound)) throw err;
  }
  try {
    return await jsm.streams.add(config);
  } catch (err) {
    // Another instance made it meanwhile; otherwise the failure to make it is the one to report.
    return await jsm.streams.info(config.name).catch(() => Promise.reject(err));
  }
}

export interface JetStreamConsumerOptions extends ConsumerOptions {
  /** This instance's name in the leases (unique per start by default). */
  owner?: string;
  /** JetStream's acknowledgement window: a message not acknowledged by then is delivered again. */
  ackWaitSeconds?: number;
  /** How long one pull stays open waiting for messages (at least 1 s). */
  fetchMs?: number;
  /** The pause after a batch failed before its messages are pulled again. */
  retryMs?: number;
  /**
   * How long a guarded partition waits before its first pull (the acknowledgement window and a second by default), so
   * that the messages still out elsewhere are due for redelivery and come first. Order holds whatever it is (the
   * guard hands newer messages back until the older ones are in); shorter trades hand-backs for a quicker start.
   */
  takeoverWaitMs?: number;
}

/** The durable JetStream consumer of one partition of a consumer. */
export const durableName = (consumer: string, partition: number): string => `${subjectToken(consumer)}_p${partition}`;

class LeaseLost extends Error {}

/** One partition this instance holds. */
interface Held {
  partition: number;
  /** Until when (Date.now()) the lease is surely ours: measured from before the query that renewed it. */
  until: number;
  /** No pull before this (Date.now()). */
  notBefore: number;
  /** After a failure: the stream sequence the next pull must begin with (the first message handed back). */
  resumeAt: number | null;
  /** To be guarded before the next pull (just taken, or the connection or a pull broke). */
  needsGuard: boolean;
  /**
   * Guarded: the consumer's last delivered stream sequence when messages were found unacknowledged that this reader
   * may not hold (another instance's, or lost on the way). Until the acknowledgement floor reaches it, messages are
   * committed oldest first, each only with nothing older still out (handleBatch).
   */
  guard: number | null;
  /** The connection's last disturbance this reader has guarded against. */
  seenDisturbance: number;
  /** Its reader is to stop (the lease lost, the instance stopping, or the partition given up). */
  leaving: boolean;
  /** Being given up: its lease is cleared once its reader has ended. */
  releasing: boolean;
  wake: AbortController;
  pull: ConsumerMessages | null;
  loop: Promise<void> | null;
}

/**
 * Run a consumer of the event stream on this instance, with the options and the answer of startConsumer (the
 * in-database consumer): every pollMs the instance renews its leases, takes its share of the partitions, gives up what
 * is over its share, and reads each partition it holds.
 */
export function startJetStreamConsumer(
  db: Db,
  log: FastifyBaseLogger,
  bus: EventBus,
  opts: JetStreamConsumerOptions,
): { stop: (handBack?: AbortSignal) => Promise<void>; poke: () => Promise<void> } {
  const owner = opts.owner ?? `${process.pid}-${newId(8)}`;
  const name = opts.name;
  const batch = opts.batch ?? 500;
  const leaseSeconds = opts.leaseSeconds ?? 30;
  const leaseMs = leaseSeconds * 1000;
  const ackWaitMs = (opts.ackWaitSeconds ?? 30) * 1000;
  // A pull ends well within the lease, so none is left open on the server once the lease could be another's.
  const fetchMs = Math.max(1000, Math.min(opts.fetchMs ?? 5000, leaseMs - 2000));
  const retryMs = opts.retryMs ?? 1000;
  const takeoverWaitMs = opts.takeoverWaitMs ?? ackWaitMs + 1000;
  const partitions = bus.partitions;
  const held = new Map<number, Held>();
  let ready: Promise<void> | null = null;
  let running: Promise<void> | null = null;
  let stopped = false;

  // The wake-up listener goes when the pause ends either way: a partition read for days pauses every second.
  const pause = (ms: number, h: Held) =>
    new Promise<void>((resolve) => {
      const wake = () => (clearTimeout(t), resolve());
      const t = setTimeout(() => (h.wake.signal.removeEventListener('abort', wake), resolve()), ms);
      h.wake.signal.addEventListener('abort', wake, { once: true });
    });

  /**
   * The partitions' rows and durable consumers; a consumer made now starts at the stream's present. The relay is poked
   * first, so what was committed before the consumer existed (the demo's history, seeded at first start) is published
   * before it and is history to it, as on the in-database path; otherwise its rules would act on months-old changes.
   */
  const prepare = async () => {
    await opts.relay?.poke();
    await db.query(`INSERT INTO event_partitions (consumer, partition) SELECT $1, g FROM generate_series(0, $2::int - 1) g ON CONFLICT DO NOTHING`, [
      name,
      partitions,
    ]);
    for (let p = 0; p < partitions; p++) {
      const durable = durableName(name, p);
      try {
        const known = await bus.jsm.consumers.info(bus.stream, durable);
        // A window changed since the consumer was made (NATS_ACK_WAIT_SECONDS) applies to it too: the guard waits the
        // configured window, and JetStream must redeliver within it.
        if (known.config.ack_wait !== nanos(ackWaitMs)) await bus.jsm.consumers.update(bus.stream, durable, { ack_wait: nanos(ackWaitMs) });
        continue;
      } catch (err) {
        if (!isApiError(err, JetStreamApiCodes.ConsumerNotFound)) throw err;
      }
      const config = {
        durable_name: durable,
        filter_subject: `${bus.subjectPrefix}.${p}.>`,
        ack_policy: AckPolicy.Explicit,
        deliver_policy: DeliverPolicy.New,
        replay_policy: ReplayPolicy.Instant,
        ack_wait: nanos(ackWaitMs),
        max_ack_pending: batch,
        // The reader gives up on a message itself (a dead letter) and terminates it: JetStream never drops one unseen.
        max_deliver: -1,
      };
      await bus.jsm.consumers.add(bus.stream, config).catch(async (err) => {
        await bus.jsm.consumers.info(bus.stream, durable).catch(() => Promise.reject(err));
      });
    }
  };

  const toEvent = (m: JsMsg): DomainEvent & { seq: string } => {
    const e = m.json<{
      id: string;
      seq: string;
      orgId: string;
      type: EventType;
      subtype: string;
      subject: string | null;
      data: Record<string, unknown>;
      at: string;
    }>();
    return { ...e, at: new Date(e.at) };
  };

  /**
   * Commit messages of a partition in one transaction: handled (or, with `deadLetter`, recorded as given up on), and the
   * partition's last stream sequence moved past them. Those at or below it already were: they are left out.
   */
  const commit = (h: Held, msgs: JsMsg[], deadLetter: string | null) =>
    db.tx(async (q) => {
      const row = (
        await q.query<{ last: string }>(
          'SELECT last_stream_seq::text AS last FROM event_partitions WHERE consumer = $1 AND partition = $2 AND lease_owner = $3 FOR UPDATE',
          [name, h.partition, owner],
        )
      ).rows[0];
      if (!row) throw new LeaseLost();
      const last = Number(row.last);
      const fresh = msgs.filter((m) => m.seq > last);
      if (fresh.length && deadLetter === null) await opts.handle(fresh.map(toEvent), q);
      for (const m of fresh) {
        if (deadLetter === null) break;
        await q.query(
          `INSERT INTO event_dead_letters (consumer, partition, stream_seq, event_id, deliveries, error) VALUES ($1, $2, $3, $4, $5, $6)
           ON CONFLICT (consumer, partition, stream_seq)
           DO UPDATE SET event_id = EXCLUDED.event_id, deliveries = EXCLUDED.deliveries, error = EXCLUDED.error, at = now()`,
          [name, h.partition, m.seq, m.headers?.get('Nats-Msg-Id') ?? '', m.info.deliveryCount, deadLetter.slice(0, 2000)],
        );
      }
      await q.query(
        `UPDATE event_partitions SET last_stream_seq = greatest(last_stream_seq, $4), lease_until = now() + make_interval(secs => $5), updated_at = now()
          WHERE consumer = $1 AND partition = $2 AND lease_owner = $3`,
        [name, h.partition, owner, Math.max(...msgs.map((m) => m.seq)), leaseSeconds],
      );
    });

  /** Acknowledge, the last one confirmed: JetStream has then taken every one before it (they are processed in order). */
  const ackAll = async (msgs: JsMsg[]) => {
    try {
      for (const m of msgs.slice(0, -1)) m.ack();
      await msgs.at(-1)?.ackAck();
    } catch (err) {
      // Not acknowledged: delivered again after the window, and then skipped as committed already.
      log.debug({ err, consumer: name }, 'event stream: acknowledgement not confirmed');
    }
  };

  const committed = () => {
    try {
      opts.onCommitted?.();
    } catch (err) {
      log.error({ err, consumer: name }, 'event consumer onCommitted failed');
    }
  };

  /**
   * Handle one batch of a partition, in order. Returns the messages not done (from the first that failed on), which
   * the caller hands back. A batch holding a message delivered MAX_ATTEMPTS times is taken one message at a time, so
   * the one that fails is found: it is recorded as a dead letter and terminated, and the others go on.
   *
   * While the partition is guarded (messages delivered before may be out elsewhere: see `guard`), the batch is taken
   * in stream order and committed only once nothing older can still be out: when every unacknowledged message of the
   * consumer is in the batch (which ends the guard), or, message by message, when it is the partition's first message
   * after JetStream's acknowledgement floor (the stream sequence before the consumer's first unacknowledged message,
   * advanced as acknowledgements arrive). Otherwise the batch is handed back, to come again with the older messages.
   */
  const handleBatch = async (h: Held, delivered: JsMsg[]): Promise<JsMsg[]> => {
    // One message delivered twice in one batch (its acknowledgement window ran out meanwhile) is taken once.
    const bySeq = new Map(delivered.map((m) => [m.seq, m]));
    if (h.guard === null) return handleGroups(h, [...bySeq.values()]);
    let sorted = [...bySeq.values()].sort((a, b) => a.seq - b.seq);
    while (sorted.length) {
      let ci: ConsumerInfo;
      try {
        ci = await bus.jsm.consumers.info(bus.stream, durableName(name, h.partition));
      } catch (err) {
        log.warn({ err, consumer: name, partition: h.partition }, 'event stream: consumer info failed; the batch is tried again');
        return sorted;
      }
      if (ci.num_ack_pending <= sorted.length || ci.ack_floor.stream_seq >= h.guard) {
        h.guard = null;
        return handleGroups(h, sorted);
      }
      if ((await firstAfter(h, ci.ack_floor.stream_seq)) !== sorted[0].seq) return sorted;
      const rest = await handleGroups(h, sorted.slice(0, 1));
      if (rest.length) return [...rest, ...sorted.slice(1)];
      sorted = sorted.slice(1);
    }
    return [];
  };

  /**
   * The stream sequence of the partition's first message after `floor` (0 if none, or if JetStream could not be asked).
   * The acknowledgement floor is a stream sequence, and the stream interleaves every partition: the partition's next
   * message is rarely the one right after it.
   */
  const firstAfter = async (h: Held, floor: number): Promise<number> => {
    try {
      // JetStream's message get takes next_by_subj with a sequence (the first match at or after it); the client's
      // type names only the sequence, and passes the request on as it is.
      const query: { seq: number; next_by_subj: string } = { seq: floor + 1, next_by_subj: `${bus.subjectPrefix}.${h.partition}.>` };
      const next = await bus.jsm.streams.getMessage(bus.stream, query);
      return next?.seq ?? 0;
    } catch (err) {
      log.warn({ err, consumer: name, partition: h.partition }, 'event stream: the partition’s next message could not be read; the batch is tried again');
      return 0;
    }
  };

  const handleGroups = async (h: Held, msgs: JsMsg[]): Promise<JsMsg[]> => {
    const alone = msgs.some((m) => m.info.deliveryCount >= MAX_ATTEMPTS);
    const groups = alone ? msgs.map((m) => [m]) : [msgs];
    for (let i = 0; i < groups.length; i++) {
      const group = groups[i];
      try {
        await commit(h, group, null);
        await ackAll(group);
      } catch (err) {
        const rest = groups.slice(i).flat();
        if (err instanceof LeaseLost) {
          log.warn({ consumer: name, partition: h.partition, owner }, 'event stream: partition lease lost to another instance');
          leave(h);
          return rest;
        }
        const m = group[0];
        if (!alone || m.info.deliveryCount < MAX_ATTEMPTS) {
          log.error({ err, consumer: name, partition: h.partition, seq: m.seq, attempt: m.info.deliveryCount }, 'event consumer failed; it tries again');
          return rest;
        }
        try {
          await commit(h, group, err instanceof Error ? `${err.name}: ${err.message}` : String(err));
        } catch (err2) {
          if (err2 instanceof LeaseLost) leave(h);
          log.error({ err: err2, consumer: name, partition: h.partition }, 'event consumer could not record a dead letter; it tries again');
          return rest;
        }
        log.error(
          { err, consumer: name, partition: h.partition, seq: m.seq, attempts: m.info.deliveryCount },
          'event consumer gave up on an event: dead letter',
        );
        m.term(`dead letter: ${String(err)}`.slice(0, 200));
      }
      committed();
    }
    return [];
  };

  /** Hand messages back, in order, for delivery again at once; flushed so JetStream has them before the next pull. */
  const handBackMsgs = async (msgs: JsMsg[]) => {
    try {
      for (const m of msgs) m.nak();
      await bus.nc.flush();
    } catch {
      // The connection is gone: they are delivered again after the acknowledgement window.
    }
  };

  /** Read one partition while its lease is held. */
  const readPartition = async (h: Held) => {
    let consumer: Consumer | null = null;
    while (!h.leaving && !stopped) {
      if (bus.disturbedAt > h.seenDisturbance) {
        h.seenDisturbance = bus.disturbedAt;
        h.needsGuard = true;
      }
      if (h.needsGuard && !(await guard(h))) {
        await pause(retryMs, h);
        continue;
      }
      const now = Date.now();
      const wait = h.notBefore - now;
      if (wait > 0) {
        await pause(wait, h);
        continue;
      }
      if (h.until - now < fetchMs + 1000) {
        // The lease is not renewed: the next round renews it, or finds it lost.
        await pause(Math.min(opts.pollMs ?? 1000, 1000), h);
        continue;
      }
      const back: JsMsg[] = [];
      let failed = false;
      let pulled = false;
      try {
        consumer ??= await bus.js.consumers.get(bus.stream, durableName(name, h.partition));
        const pull = await consumer.fetch({ max_messages: batch, expires: fetchMs });
        h.pull = pull;
        let chunk: JsMsg[] = [];
        for await (const m of pull) {
          // After a hand-back the pull must begin with the first message handed back (or an older one still out): a
          // newer one first means JetStream had not taken the hand-back yet, and this pull goes back too.
          if (!pulled && h.resumeAt !== null && m.seq > h.resumeAt) failed = true;
          pulled = true;
          // The connection dropped or came back since this partition was last guarded: messages delivered before may
          // have been lost on the way, and JetStream redelivers them only after the acknowledgement window. Nothing of
          // this pull is committed; it goes back, and the partition is guarded before the next pull.
          if (!failed && bus.disturbedAt !== h.seenDisturbance) {
            failed = true;
            h.needsGuard = true;
          }
          if (failed || h.leaving || stopped) {
            back.push(m);
            continue;
          }
          chunk.push(m);
          // A batch is handled once it is full, or JetStream has nothing more to give now (no new message waiting,
          // and none of its delivery left in hand: redeliveries come without counting as waiting). Not so while the
          // partition is guarded: a redelivery of hundreds of messages reaches the reader in several reads of the
          // connection, and a batch cut at the end of one would hold only some of the unacknowledged messages, be
          // handed back, and come back cut the same way; the pull's whole delivery is taken when it ends.
          if (chunk.length >= batch || (h.guard === null && m.info.pending === 0 && pull.getPending() <= 0)) {
            const rest = await handleBatch(h, chunk);
            chunk = [];
            if (rest.length) {
              failed = true;
              back.push(...rest);
            } else h.resumeAt = null;
          }
        }
        if (chunk.length && bus.disturbedAt !== h.seenDisturbance) h.needsGuard = true;
        if (chunk.length && !failed && !h.needsGuard && !h.leaving && !stopped) {
          const rest = await handleBatch(h, chunk);
          if (rest.length) failed = true;
          back.push(...rest);
          if (!rest.length) h.resumeAt = null;
        } else back.push(...chunk);
      } catch (err) {
        // The pull broke (connection, consumer gone): what it was delivering may be lost on the way, and comes again
        // after the acknowledgement window, ahead of newer messages.
        log.warn({ err, consumer: name, partition: h.partition }, 'event stream: pull failed');
        h.needsGuard = true;
      } finally {
        h.pull = null;
      }
      if (back.length) {
        back.sort((a, b) => a.seq - b.seq);
        h.resumeAt = h.resumeAt === null ? back[0].seq : Math.min(h.resumeAt, back[0].seq);
        await handBackMsgs(back);
      }
      if (failed) h.notBefore = Math.max(h.notBefore, Date.now() + retryMs);
    }
  };

  /**
   * Guard a partition whose consumer has unacknowledged messages this reader may not hold (just taken over, or after
   * the connection or a pull broke): they come again once the acknowledgement window has passed, so the first pull
   * waits for it (then they usually come first), and until they are all acknowledged handleBatch commits oldest
   * first. False when JetStream could not be asked.
   */
  const guard = async (h: Held): Promise<boolean> => {
    try {
      const ci = await bus.jsm.consumers.info(bus.stream, durableName(name, h.partition));
      h.needsGuard = false;
      if (ci.num_ack_pending > 0) {
        h.guard = Math.max(h.guard ?? 0, ci.delivered.stream_seq);
        h.notBefore = Math.max(h.notBefore, Date.now() + takeoverWaitMs);
      }
      return true;
    } catch (err) {
      log.warn({ err, consumer: name, partition: h.partition }, 'event stream: consumer info failed; it tries again');
      return false;
    }
  };

  /** Start reading a partition just leased. */
  const take = async (partition: number, leasedAt: number) => {
    const h: Held = {
      partition,
      until: leasedAt + leaseMs - 1000,
      notBefore: 0,
      resumeAt: null,
      needsGuard: true,
      guard: null,
      seenDisturbance: bus.disturbedAt,
      leaving: false,
      releasing: false,
      wake: new AbortController(),
      pull: null,
      loop: null,
    };
    held.set(partition, h);
    // A reader that ended is forgotten here (one being given up, once its lease is cleared); a partition still leased
    // to this instance and read by no one is taken up again by the next round.
    h.loop = readPartition(h)
      .catch((err) => log.error({ err, consumer: name, partition }, 'event stream: partition reader failed'))
      .finally(() => {
        if (held.get(partition) === h && !h.releasing) held.delete(partition);
      });
  };

  /** Stop reading a partition: the batch in progress ends, the open pull is closed. */
  const leave = (h: Held) => {
    h.leaving = true;
    h.wake.abort();
    void h.pull?.close().catch(() => undefined);
  };

  /** Give a partition up to another instance once its reader has ended. */
  const release = async (h: Held) => {
    h.releasing = true;
    leave(h);
    await h.loop;
    try {
      await db.query('UPDATE event_partitions SET lease_owner = NULL, lease_until = NULL WHERE consumer = $1 AND partition = $2 AND lease_owner = $3', [
        name,
        h.partition,
        owner,
      ]);
    } finally {
      if (held.get(h.partition) === h) held.delete(h.partition);
    }
  };

  const round = async () => {
    ready ??= prepare().catch((err) => {
      ready = null;
      throw err;
    });
    await ready;
    if (stopped) return;
    const t0 = Date.now();
    await db.query(
      `INSERT INTO event_consumer_members (consumer, owner, until) VALUES ($1, $2, now() + make_interval(secs => $3))
       ON CONFLICT (consumer, owner) DO UPDATE SET until = EXCLUDED.until`,
      [name, owner, leaseSeconds],
    );
    await db.query(`DELETE FROM event_consumer_members WHERE consumer = $1 AND until < now() - interval '1 hour'`, [name]);
    const live = (await db.query<{ n: number }>('SELECT count(*)::int AS n FROM event_consumer_members WHERE consumer = $1 AND until >= now()', [name])).rows[0]
      .n;
    const share = Math.ceil(partitions / Math.max(1, live));
    // Renew what is ours; a partition held here but no longer ours in the table was taken after our lease ran out.
    const mine = new Set(
      (
        await db.query<{ partition: number }>(
          `UPDATE event_partitions SET lease_until = now() + make_interval(secs => $3), updated_at = now()
            WHERE consumer = $1 AND lease_owner = $2 RETURNING partition`,
          [name, owner, leaseSeconds],
        )
      ).rows.map((r) => r.partition),
    );
    for (const [p, h] of held) {
      if (mine.has(p)) {
        if (!h.leaving) h.until = t0 + leaseMs - 1000;
      } else if (!h.leaving) {
        log.warn({ consumer: name, partition: p, owner }, 'event stream: partition lease lost to another instance');
        leave(h);
      }
    }
    if (stopped) return;
    for (const p of mine) if (!held.has(p) && !stopped) await take(p, t0);
    // Over the share (instances joined): give up the highest partitions, for the others to take.
    const reading = [...held.values()].filter((h) => !h.leaving).sort((a, b) => a.partition - b.partition);
    for (const h of reading.slice(share)) void release(h).catch((err) => log.error({ err, consumer: name }, 'event stream: releasing a partition failed'));
    const want = share - Math.min(share, held.size);
    if (want <= 0) return;
    const taken = await db.query<{ partition: number }>(
      `UPDATE event_partitions p
          SET lease_owner = $2, lease_until = now() + make_interval(secs => $4), updated_at = now(),
              last_stream_seq = CASE WHEN p.stream_id IS DISTINCT FROM $5 THEN 0 ELSE p.last_stream_seq END, stream_id = $5
         FROM (SELECT partition FROM event_partitions
                WHERE consumer = $1 AND partition < $6 AND (lease_owner IS NULL OR lease_until < now())
                ORDER BY partition LIMIT $3 FOR UPDATE SKIP LOCKED) free
        WHERE p.consumer = $1 AND p.partition = free.partition
        RETURNING p.partition`,
      [name, owner, want, leaseSeconds, bus.streamId, partitions],
    );
    for (const { partition } of taken.rows) {
      if (stopped) break;
      await take(partition, t0);
    }
  };

  const poke = async () => {
    if (stopped) return;
    if (running) return running;
    running = round()
      .catch((err) => log.error({ err, consumer: name }, 'event stream consumer round failed; it tries again'))
      .finally(() => (running = null));
    return running;
  };
  const timer = setInterval(() => void poke(), opts.pollMs ?? 1000);
  void poke();

  return {
    poke,
    // The batches in progress end (or, once `handBack` aborts, are left to end with the database's close, their leases
    // kept); then the leases are given back for other instances to take at once.
    stop: async (handBack?: AbortSignal) => {
      stopped = true;
      clearInterval(timer);
      for (const h of held.values()) leave(h);
      const work = Promise.all([running, ...[...held.values()].map((h) => h.loop)]);
      if (!(await endedBefore(work, handBack))) return;
      await db
        .query('UPDATE event_partitions SET lease_owner = NULL, lease_until = NULL WHERE consumer = $1 AND lease_owner = $2', [name, owner])
        .catch(() => undefined);
      await db.query('DELETE FROM event_consumer_members WHERE consumer = $1 AND owner = $2', [name, owner]).catch(() => undefined);
    },
  };
}
