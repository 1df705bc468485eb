/**
 * The event stream on NATS JetStream (server/events/jetstream.ts): events published with their id as message id reach
 * each consumer once, in order per partition; instances share the partitions under leases; a crashed instance's
 * partitions and unacknowledged messages are taken over with nothing handled twice; a message that keeps failing
 * becomes a dead letter while the others go on; a publish to an unreachable NATS fails. On a real NATS server
 * (127.0.0.1:4222, each test on a stream and subjects of its own) and on PGlite and PostgreSQL.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Db, Queryable } from '../../server/db/db.js';
import { newId } from '../../server/db/ids.js';
import type { DomainEvent } from '../../server/events/event-log.js';
import {
  connectEventBus,
  durableName,
  jetStreamEventStats,
  MAX_ATTEMPTS,
  startJetStreamConsumer,
  type EventBus,
  type JetStreamConsumerOptions,
} from '../../server/events/jetstream.js';
import { DB_KINDS, freshDb } from '../helper.js';
import { freePort, until } from '../wait.js';
import { NATS_URL, natsAnswers, slowLinkToNats } from '../nats.js';

const quiet = { info() {}, warn() {}, error() {}, debug() {} } as never;
if (!natsAnswers) console.warn('tests/api/jetstream.test.ts skipped: no NATS server answers on 127.0.0.1:4222');

vi.setConfig({ testTimeout: 120_000 });

type Ev = DomainEvent & { seq: string };

/** The ICCID of the test's SIM number n. */
const iccidOf = (n: number) => `8986${String(n).padStart(15, '0')}`;

/**
 * Events numbered from `from`, about `subjects` SIMs (so they spread over the partitions) or the SIMs named, in turn,
 * ids increasing; `pad` characters of filler in each.
 */
const eventsOf = (from: number, count: number, subjects: number | string[] = 40, pad = 0): Ev[] =>
  Array.from({ length: count }, (_, i) => {
    const n = from + i;
    return {
      id: String(n),
      seq: String(n),
      orgId: 'org-a',
      type: 'sim',
      subtype: 'status_changed',
      subject: typeof subjects === 'number' ? iccidOf(n % subjects) : subjects[n % subjects.length],
      data: pad ? { n, pad: 'x'.repeat(pad) } : { n },
      at: new Date(Date.UTC(2026, 0, 1)),
    };
  });

(natsAnswers ? describe : describe.skip).each(DB_KINDS)('event stream on JetStream with %s', (kind) => {
  let db: Db;
  let drop: () => Promise<void>;
  const buses: EventBus[] = [];
  const stops: Array<() => Promise<void>> = [];
  const streams: string[] = [];

  beforeAll(async () => {
    ({ db, drop } = await freshDb(kind));
    // What the tests' consumers do: one row per event handled, in the order handled.
    await db.exec(
      `CREATE TABLE handled (n bigserial PRIMARY KEY, consumer text NOT NULL, runner text NOT NULL, event_id text NOT NULL, subject text, partition int NOT NULL)`,
    );
  });
  afterEach(async () => {
    for (const stop of stops.splice(0)) await stop();
    // Any bus still connected deletes the test's stream (one may have been closed by the test, as a dead instance's).
    const admin = buses.find((b) => !b.nc.isClosed());
    for (const s of streams.splice(0)) await admin?.jsm.streams.delete(s).catch(() => undefined);
    for (const b of buses.splice(0)) await b.close();
  });
  afterAll(async () => drop());

  /** A bus on a stream of this test's own (through `url`, this machine's NATS by default). */
  const newBus = async (stream?: string, url = NATS_URL) => {
    const id =
      stream ??
      `T${newId(10)
        .toUpperCase()
        .replace(/[^A-Z0-9]/g, 'X')}`;
    const bus = await connectEventBus(url, quiet, { stream: `EVT_${id}`, subjectPrefix: `evt_${id.toLowerCase()}`, maxBytes: 64 * 1024 ** 2 });
    buses.push(bus);
    if (!streams.includes(bus.stream)) streams.push(bus.stream);
    return { bus, id };
  };
  const consumerName = () =>
    `c_${newId(8)
      .toLowerCase()
      .replace(/[^a-z0-9]/g, 'x')}`;

  /** A consumer runner ("an instance") whose handle writes one row per event. */
  const runner = (bus: EventBus, consumer: string, label: string, extra: Partial<JetStreamConsumerOptions> = {}, on: Db = db) => {
    const r = startJetStreamConsumer(on, quiet, bus, {
      name: consumer,
      owner: label,
      batch: 50,
      pollMs: 100,
      ackWaitSeconds: 2,
      fetchMs: 1000,
      retryMs: 50,
      handle: async (events: DomainEvent[], q: Queryable) => {
        await q.query(
          `INSERT INTO handled (consumer, runner, event_id, subject, partition)
           SELECT $1, $2, e, s, p FROM unnest($3::text[], $4::text[], $5::int[]) WITH ORDINALITY AS x(e, s, p, o) ORDER BY o`,
          [consumer, label, events.map((e) => e.id), events.map((e) => e.subject), events.map((e) => bus.partitionOf(e))],
        );
      },
      ...extra,
    });
    stops.push(() => r.stop());
    return r;
  };

  const handledRows = async (consumer: string) =>
    (
      await db.query<{ event_id: string; runner: string; partition: number }>(
        'SELECT event_id, runner, partition FROM handled WHERE consumer = $1 ORDER BY n',
        [consumer],
      )
    ).rows;

  /** Every partition's events were handled in the order they were published (their ids increase). */
  const expectInOrderPerPartition = (rows: Array<{ event_id: string; partition: number }>) => {
    const last = new Map<number, number>();
    for (const r of rows) {
      const id = Number(r.event_id);
      expect(id, `partition ${r.partition}`).toBeGreaterThan(last.get(r.partition) ?? 0);
      last.set(r.partition, id);
    }
  };

  /** The partitions' leases by owner, once every partition is held and each of `owners` holds its share. */
  const sharedAmong = (consumer: string, owners: string[], partitions: number) =>
    until(
      'the partitions to be shared',
      async () => {
        const rows = (
          await db.query<{ lease_owner: string | null }>('SELECT lease_owner FROM event_partitions WHERE consumer = $1 AND lease_until > now()', [consumer])
        ).rows;
        const by = new Map<string, number>();
        for (const r of rows) if (r.lease_owner) by.set(r.lease_owner, (by.get(r.lease_owner) ?? 0) + 1);
        const share = Math.ceil(partitions / owners.length);
        const fair = owners.every((o) => (by.get(o) ?? 0) >= 1 && (by.get(o) ?? 0) <= share);
        return rows.length === partitions && fair ? by : undefined;
      },
      30_000,
    );

  const lagOf = async (bus: EventBus, consumer: string) => (await bus.consumerStats(db))[consumer];

  it('events published, and published again, are handled once each, in order per partition; the lag returns to 0', async () => {
    const { bus } = await newBus();
    const consumer = consumerName();
    const r = runner(bus, consumer, 'one');
    await sharedAmong(consumer, ['one'], bus.partitions);
    const events = eventsOf(1, 300);
    for (let i = 0; i < events.length; i += 100) await bus.publisher.publish(events.slice(i, i + 100));
    // The relay publishing again after a commit that failed: JetStream drops them by their id.
    await bus.publisher.publish(events.slice(0, 150));
    expect((await bus.jsm.streams.info(bus.stream)).state.messages).toBe(300);
    await until('every event handled', async () => ((await handledRows(consumer)).length >= 300 ? true : undefined), 60_000);
    await until('the lag to return to 0', async () => ((await lagOf(bus, consumer))?.pending === 0 ? true : undefined), 30_000);
    const rows = await handledRows(consumer);
    expect(rows).toHaveLength(300);
    expect(new Set(rows.map((x) => x.event_id)).size).toBe(300);
    expectInOrderPerPartition(rows);
    // One SIM's events share a partition, and the partitions are spread.
    expect(new Set(rows.map((x) => x.partition)).size).toBeGreaterThan(8);
    expect(await lagOf(bus, consumer)).toEqual({ pending: 0, redelivered: 0, deadLetters: 0 });
    // Stopping gives the leases back at once, for another instance to take.
    await r.stop();
    const owned = await db.query('SELECT 1 FROM event_partitions WHERE consumer = $1 AND lease_owner IS NOT NULL', [consumer]);
    expect(owned.rows).toHaveLength(0);
  });

  it('three instances share the partitions and together handle every event exactly once', async () => {
    const { bus: first, id } = await newBus();
    const consumer = consumerName();
    const owners = ['a', 'b', 'c'];
    for (const o of owners) runner(o === 'a' ? first : (await newBus(id)).bus, consumer, o);
    const by = await sharedAmong(consumer, owners, first.partitions);
    expect([...by.values()].reduce((a, b) => a + b, 0)).toBe(first.partitions);
    await first.publisher.publish(eventsOf(1, 600));
    await until('every event handled', async () => ((await handledRows(consumer)).length >= 600 ? true : undefined), 60_000);
    await until('the lag to return to 0', async () => ((await lagOf(first, consumer))?.pending === 0 ? true : undefined), 30_000);
    const rows = await handledRows(consumer);
    expect(rows).toHaveLength(600);
    expect(new Set(rows.map((x) => x.event_id)).size).toBe(600);
    expectInOrderPerPartition(rows);
    for (const o of owners) expect(rows.filter((x) => x.runner === o).length, `instance ${o}`).toBeGreaterThan(0);
    // Each partition was read by one instance.
    const readers = new Map<number, Set<string>>();
    for (const x of rows) readers.set(x.partition, (readers.get(x.partition) ?? new Set()).add(x.runner));
    for (const [p, set] of readers) expect(set.size, `partition ${p}`).toBe(1);
  });

  it('instances that join while events flow get their share, and every event is still handled once, in order', async () => {
    const { bus: first, id } = await newBus();
    const consumer = consumerName();
    runner(first, consumer, 'a');
    await sharedAmong(consumer, ['a'], first.partitions);
    await first.publisher.publish(eventsOf(1, 300));
    await until('a to be under way', async () => ((await handledRows(consumer)).length >= 50 ? true : undefined), 60_000);
    for (const o of ['b', 'c']) runner((await newBus(id)).bus, consumer, o);
    await first.publisher.publish(eventsOf(301, 300));
    await sharedAmong(consumer, ['a', 'b', 'c'], first.partitions);
    await first.publisher.publish(eventsOf(601, 300));
    await until('every event handled', async () => ((await handledRows(consumer)).length >= 900 ? true : undefined), 90_000);
    await until('the lag to return to 0', async () => ((await lagOf(first, consumer))?.pending === 0 ? true : undefined), 30_000);
    const rows = await handledRows(consumer);
    expect(rows).toHaveLength(900);
    expect(new Set(rows.map((x) => x.event_id)).size).toBe(900);
    expectInOrderPerPartition(rows);
    for (const o of ['b', 'c']) expect(rows.filter((x) => x.runner === o).length, `instance ${o}`).toBeGreaterThan(0);
  });

  it.each([
    ['after committing a batch it never acknowledged', true, undefined, false],
    ['in the middle of a batch', false, undefined, false],
    // The others pull its partitions at once: newer messages come before its unacknowledged ones are due again, and
    // only the guard on the acknowledgements keeps them from being handled first.
    ['and the others read its partitions at once', false, 0, false],
    // Hundreds of large messages of two SIMs, interleaved in the stream: more than one read of the connection brings,
    // so a pull's messages arrive in several parts, and a partition's next message is never the one right after the
    // acknowledgement floor in the stream.
    ['holding hundreds of large messages of two SIMs', false, undefined, true],
  ])(
    'an instance that dies %s: the others take its partitions and its unacknowledged messages, nothing is handled twice',
    async (_, commits, takeoverWaitMs, big) => {
      const batch = big ? 500 : 50;
      let sims: string[] = [];
      // Large: the second lot is the other SIM's only, so what a was delivered is all that its partition holds, and
      // comes again with nothing new behind it.
      const eventsFrom = (from: number) => (big ? eventsOf(from, 300, from === 1 ? sims : sims.slice(1), 2000) : eventsOf(from, 300));
      const { bus: busA, id } = await newBus();
      // The others read through a slow link: what they pull arrives in parts.
      const link = big ? await slowLinkToNats() : null;
      if (link) stops.push(link.close);
      const { bus: busB } = await newBus(id, link?.url);
      const { bus: busC } = await newBus(id, link?.url);
      const consumer = consumerName();
      // Instance a's database connection, cut when it dies.
      let dead = false;
      const gone = () => Promise.reject(new Error('instance a is gone'));
      const dbA: Db = {
        ...db,
        query: (sql, params) => (dead ? gone() : db.query(sql, params)),
        exec: (sql) => (dead ? gone() : db.exec(sql)),
        tx: (fn) => (dead ? gone() : db.tx(fn)),
      };
      let lastBatch: string[] = [];
      runner(
        busA,
        consumer,
        'a',
        {
          batch,
          handle: async (events, q) => {
            if (dead) throw new Error('instance a is gone');
            await q.query(
              `INSERT INTO handled (consumer, runner, event_id, subject, partition) SELECT $1, 'a', e, s, p FROM unnest($2::text[], $3::text[], $4::int[]) WITH ORDINALITY AS x(e, s, p, o) ORDER BY o`,
              [consumer, events.map((e) => e.id), events.map((e) => e.subject), events.map((e) => busA.partitionOf(e))],
            );
            // It dies in its first batch, its connection to NATS gone with it: the batch either commits and is never
            // acknowledged, or never commits; whatever JetStream delivered to it besides stays unacknowledged.
            {
              dead = true;
              lastBatch = events.map((e) => e.id);
              await busA.close();
              if (!commits) throw new Error('instance a died');
            }
          },
        },
        dbA,
      );
      runner(busB, consumer, 'b', { takeoverWaitMs, batch });
      runner(busC, consumer, 'c', { takeoverWaitMs, batch });
      const leases = await sharedAmong(consumer, ['a', 'b', 'c'], busB.partitions);
      if (big) {
        // One SIM in a partition of a's, one in another's.
        const owners = new Map(
          (
            await db.query<{ partition: number; lease_owner: string }>('SELECT partition, lease_owner FROM event_partitions WHERE consumer = $1', [consumer])
          ).rows.map((r) => [r.partition, r.lease_owner]),
        );
        const simOf = (held: (owner: string) => boolean) => {
          for (let n = 0; ; n++) if (held(owners.get(busB.partitionOf({ subject: iccidOf(n), orgId: 'org-a' }))!)) return iccidOf(n);
        };
        sims = [simOf((o) => o === 'a'), simOf((o) => o !== 'a')];
        expect(leases.get('a')).toBeGreaterThan(0);
      }
      await busB.publisher.publish(eventsFrom(1));
      await until('instance a to die', async () => (dead ? true : undefined), 60_000);
      // Its leases run out (as they would, unrenewed, lease seconds later).
      await db.query(`UPDATE event_partitions SET lease_until = now() - interval '1 second' WHERE consumer = $1 AND lease_owner = 'a'`, [consumer]);
      await db.query(`UPDATE event_consumer_members SET until = now() - interval '1 second' WHERE consumer = $1 AND owner = 'a'`, [consumer]);
      // Newer events arrive while a's unacknowledged ones wait for JetStream's acknowledgement window: they must not be
      // handled before them (and so make them look handled already).
      await busB.publisher.publish(eventsFrom(301));
      await until('every event handled', async () => ((await handledRows(consumer)).length >= 600 ? true : undefined), 90_000);
      // Nothing left unacknowledged: what a had been delivered came again to b and c and was acknowledged there.
      await until('the lag to return to 0', async () => ((await lagOf(busB, consumer))?.pending === 0 ? true : undefined), 30_000);
      const rows = await handledRows(consumer);
      expect(rows).toHaveLength(600);
      expect(new Set(rows.map((x) => x.event_id)).size).toBe(600);
      expectInOrderPerPartition(rows);
      // The batch a died in: handled by a alone if it committed (its redelivery skipped), else by the one that took over.
      const byWhom = new Set(rows.filter((x) => lastBatch.includes(x.event_id)).map((x) => x.runner));
      expect(lastBatch.length).toBeGreaterThan(0);
      if (commits) expect([...byWhom]).toEqual(['a']);
      else expect(byWhom.has('a')).toBe(false);
      // a's partitions went to b and c.
      const after = await db.query<{ lease_owner: string }>('SELECT DISTINCT lease_owner FROM event_partitions WHERE consumer = $1 AND lease_until > now()', [
        consumer,
      ]);
      expect(after.rows.map((x) => x.lease_owner).sort()).toEqual(['b', 'c']);
    },
  );

  it('an event whose handling always fails becomes a dead letter after the bounded attempts, and the others go on', async () => {
    const { bus } = await newBus();
    const consumer = consumerName();
    const poison = '17';
    const attempts: number[] = [];
    runner(bus, consumer, 'one', {
      handle: async (events, q) => {
        if (events.some((e) => e.id === poison)) {
          attempts.push(events.length);
          throw new Error('this event cannot be handled');
        }
        await q.query(
          `INSERT INTO handled (consumer, runner, event_id, subject, partition) SELECT $1, 'one', e, s, p FROM unnest($2::text[], $3::text[], $4::int[]) WITH ORDINALITY AS x(e, s, p, o) ORDER BY o`,
          [consumer, events.map((e) => e.id), events.map((e) => e.subject), events.map((e) => bus.partitionOf(e))],
        );
      },
    });
    await sharedAmong(consumer, ['one'], bus.partitions);
    // One SIM: every event in one partition, the poisoned one among them.
    await bus.publisher.publish(eventsOf(1, 30, 1));
    const dead = await until(
      'the dead letter',
      async () => {
        const r = await db.query<{ event_id: string; partition: number; error: string; deliveries: number }>(
          'SELECT event_id, partition, error, deliveries FROM event_dead_letters WHERE consumer = $1',
          [consumer],
        );
        return r.rows.length ? r.rows : undefined;
      },
      60_000,
    );
    expect(dead).toEqual([
      {
        event_id: poison,
        partition: bus.partitionOf({ subject: eventsOf(17, 1, 1)[0].subject, orgId: 'org-a' }),
        error: 'Error: this event cannot be handled',
        deliveries: MAX_ATTEMPTS,
      },
    ]);
    await until('the others handled', async () => ((await handledRows(consumer)).length >= 29 ? true : undefined), 30_000);
    const rows = await handledRows(consumer);
    expect(rows.map((x) => x.event_id)).toEqual(
      eventsOf(1, 30)
        .map((e) => e.id)
        .filter((e) => e !== poison),
    );
    // Tried with its batch on the deliveries before, then alone on the last.
    expect(attempts.length).toBeLessThanOrEqual(MAX_ATTEMPTS);
    expect(attempts.at(-1)).toBe(1);
    await until('the lag to return to 0', async () => ((await lagOf(bus, consumer))?.pending === 0 ? true : undefined), 30_000);
    expect(await lagOf(bus, consumer)).toEqual({ pending: 0, redelivered: 0, deadLetters: 1 });
    // The same figures as /metrics reads them.
    const figures = await jetStreamEventStats(bus, db);
    expect(figures.consumers.find((c) => c.consumer === consumer)).toEqual({ consumer, pending: 0, redelivered: 0, deadLetters: 1 });
    expect(figures.outbox).toBe(0);
  });

  it('a publish fails when NATS cannot be reached', async () => {
    const { bus } = await newBus();
    const port = await freePort();
    await expect(connectEventBus(`nats://127.0.0.1:${port}`, quiet)).rejects.toThrow();
    await bus.close();
    await expect(bus.publisher.publish(eventsOf(1, 3))).rejects.toThrow();
    // The stream is the durable consumers' place: a dead bus leaves nothing behind (the next test's cleanup deletes it).
    buses.splice(buses.indexOf(bus), 1);
    const { bus: admin } = await newBus(bus.stream.replace(/^EVT_/, ''));
    expect((await admin.jsm.streams.info(bus.stream)).state.messages).toBe(0);
  });

  it('the durable consumers are made per partition, filtered on their partition', async () => {
    const { bus } = await newBus();
    const consumer = consumerName();
    runner(bus, consumer, 'one');
    await sharedAmong(consumer, ['one'], bus.partitions);
    const ci = await bus.jsm.consumers.info(bus.stream, durableName(consumer, 3));
    expect(ci.config.filter_subject).toBe(`${bus.subjectPrefix}.3.>`);
    expect(ci.config.max_ack_pending).toBe(50);
  });

  it('a changed acknowledgement window (NATS_ACK_WAIT_SECONDS) is applied to the durable consumers already made', async () => {
    const { bus } = await newBus();
    const consumer = consumerName();
    const first = runner(bus, consumer, 'before', { ackWaitSeconds: 30 });
    await sharedAmong(consumer, ['before'], bus.partitions);
    expect((await bus.jsm.consumers.info(bus.stream, durableName(consumer, 0))).config.ack_wait).toBe(30e9);
    await first.stop();
    runner(bus, consumer, 'after', { ackWaitSeconds: 5 });
    await until(
      'every partition consumer to take the new window',
      async () => {
        for (let p = 0; p < bus.partitions; p++)
          if ((await bus.jsm.consumers.info(bus.stream, durableName(consumer, p))).config.ack_wait !== 5e9) return undefined;
        return true;
      },
      30_000,
      100,
    );
  });
});
