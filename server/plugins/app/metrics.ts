/**
 * Metrics in Prometheus text format at GET /metrics: request rates and latencies by route, calls refused by the rate
 * limits, the database pool, the Redis connection, the job queues (depth and oldest age by kind), and the event stream
 * (events waiting in the outbox, each consumer's lag, redeliveries, dead letters).
 *
 * One registry per app instance (tests build many apps in one process; a global registry would mix them). The queue
 * and event figures are read from the database when scraped, not kept in memory, so every instance reports the same
 * fleet-wide figures for them; request figures are this instance's own.
 *
 * /metrics is off (404) unless METRICS_TOKEN is set, and then answers only to `Authorization: Bearer <token>`: its
 * figures are operational, but route names and volumes are no business of the public.
 */
import { timingSafeEqual } from 'node:crypto';
import fp from 'fastify-plugin';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { Queryable } from '../../db/db.js';

/** One event consumer's figures: what the stream holds for it that it has not handled, and its troubles. */
export interface ConsumerStat {
  consumer: string;
  /** Events published but not yet handled (and acknowledged) by the consumer. */
  pending: number;
  /** Deliveries made again after a failure or a crash (the JetStream path; 0 in the database). */
  redelivered: number;
  /** Events given up on after their attempts, recorded for an operator. */
  deadLetters: number;
}

export interface EventStats {
  /** Events committed in the outbox but not yet numbered (and, with NATS, published). */
  outbox: number;
  consumers: ConsumerStat[];
}

/** Where the event figures come from: the database path by default; the JetStream bus replaces `read` when it runs. */
export interface EventStatsSource {
  read: () => Promise<EventStats>;
}

declare module 'fastify' {
  interface FastifyInstance {
    metrics: Registry;
    eventStats: EventStatsSource;
  }
}

/** The in-database path's figures: each consumer's distance behind the last numbered event, and the unnumbered ones. */
export async function databaseEventStats(q: Queryable): Promise<EventStats> {
  const r = await q.query<{ name: string; pending: string }>(
    `SELECT c.name, greatest(0, s.last - c.position_seq)::text AS pending FROM event_consumers c CROSS JOIN event_sequence s ORDER BY c.name`,
  );
  const outbox = await q.query<{ n: string }>('SELECT count(*)::text AS n FROM events WHERE seq IS NULL');
  return {
    outbox: Number(outbox.rows[0]?.n ?? 0),
    consumers: r.rows.map((row) => ({ consumer: row.name, pending: Number(row.pending), redelivered: 0, deadLetters: 0 })),
  };
}

/** Equal tokens, in constant time. */
const sameToken = (given: string, expected: string) => {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
};

export default fp(
  async (app) => {
    const { db, config } = app;
    const registry = new Registry();
    app.decorate('metrics', registry);
    app.decorate('eventStats', { read: () => databaseEventStats(db) } satisfies EventStatsSource);
    collectDefaultMetrics({ register: registry });

    const requests = new Counter({
      name: 'http_requests_total',
      help: 'HTTP requests answered, by method, route pattern and status class.',
      labelNames: ['method', 'route', 'status'] as const,
      registers: [registry],
    });
    const latency = new Histogram({
      name: 'http_request_duration_seconds',
      help: 'Time to answer an HTTP request, by method and route pattern.',
      labelNames: ['method', 'route'] as const,
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [registry],
    });
    app.addHook('onResponse', async (req, reply) => {
      // The route's pattern, never the raw URL (ids in paths would make a series per id); unmatched URLs are one series.
      const route = req.routeOptions.url ?? 'unmatched';
      if (route === '/metrics') return;
      const status = `${Math.floor(reply.statusCode / 100)}xx`;
      requests.inc({ method: req.method, route, status });
      latency.observe({ method: req.method, route }, reply.elapsedTime / 1000);
    });

    const pool = db.poolStats;
    if (pool) {
      new Gauge({
        name: 'db_pool_connections',
        help: 'PostgreSQL pool connections of this instance, by state (total, idle, waiting: callers waiting for one).',
        labelNames: ['state'] as const,
        registers: [registry],
        collect() {
          const s = pool();
          this.set({ state: 'total' }, s.total);
          this.set({ state: 'idle' }, s.idle);
          this.set({ state: 'waiting' }, s.waiting);
        },
      });
    }

    new Gauge({
      name: 'job_queue_tasks',
      help: 'Tasks of the task center still to finish, by kind and whether an instance has them (claimed) or not (waiting).',
      labelNames: ['kind', 'state'] as const,
      registers: [registry],
      async collect() {
        this.reset();
        const r = await db.query<{ kind: string; claimed: boolean; n: string }>(
          `SELECT kind, claimed_by IS NOT NULL AS claimed, count(*)::text AS n FROM tasks WHERE status = 'processing' GROUP BY 1, 2`,
        );
        for (const row of r.rows) this.set({ kind: row.kind, state: row.claimed ? 'claimed' : 'waiting' }, Number(row.n));
      },
    });
    new Gauge({
      name: 'job_queue_oldest_seconds',
      help: 'Age of the oldest task of each kind still to finish (since it was queued): a stuck or starved kind grows here.',
      labelNames: ['kind'] as const,
      registers: [registry],
      async collect() {
        this.reset();
        const r = await db.query<{ kind: string; age: string }>(
          `SELECT kind, extract(epoch FROM now() - min(created_at))::float8::text AS age FROM tasks WHERE status = 'processing' GROUP BY 1`,
        );
        for (const row of r.rows) this.set({ kind: row.kind }, Math.max(0, Number(row.age)));
      },
    });
    new Counter({
      name: 'http_rate_limited_total',
      help: 'Calls refused with 429 by the per-minute limits, by limit group (api, signIn, captcha, passwordReset, telemetry).',
      labelNames: ['group'] as const,
      registers: [registry],
    });
    if (app.redis) {
      const redis = app.redis;
      new Gauge({
        name: 'redis_connected',
        help: 'Whether this instance is connected to REDIS_URL (1) or not (0: rate limits let calls through, sign-in answers 503).',
        registers: [registry],
        collect() {
          this.set(redis.status === 'ready' ? 1 : 0);
        },
      });
    }
    new Gauge({
      name: 'webhook_deliveries_pending',
      help: 'Webhook deliveries not yet delivered nor given up on.',
      registers: [registry],
      async collect() {
        const r = await db.query<{ n: string }>(`SELECT count(*)::text AS n FROM webhook_deliveries WHERE status = 'pending'`);
        this.set(Number(r.rows[0]?.n ?? 0));
      },
    });
    new Gauge({
      name: 'autoflow_runs_pending',
      help: 'Automation rule runs whose actions are not yet carried out.',
      registers: [registry],
      async collect() {
        const r = await db.query<{ n: string }>('SELECT count(*)::text AS n FROM autoflow_runs WHERE ended_at IS NULL');
        this.set(Number(r.rows[0]?.n ?? 0));
      },
    });

    // The event figures are read once per scrape (the handler below forgets the last reading) and shared by the gauges.
    let reading: Promise<EventStats> | null = null;
    const eventStats = () => (reading ??= app.eventStats.read());
    new Gauge({
      name: 'events_outbox_pending',
      help: 'Events committed but not yet numbered for the consumers (and, with NATS, not yet published).',
      registers: [registry],
      async collect() {
        this.set((await eventStats()).outbox);
      },
    });
    const perConsumer = (name: string, help: string, pick: (s: ConsumerStat) => number) =>
      new Gauge({
        name,
        help,
        labelNames: ['consumer'] as const,
        registers: [registry],
        async collect() {
          this.reset();
          for (const s of (await eventStats()).consumers) this.set({ consumer: s.consumer }, pick(s));
        },
      });
    perConsumer('events_consumer_lag', 'Events waiting for a consumer (published, not yet handled).', (s) => s.pending);
    perConsumer('events_consumer_redelivered', 'Events delivered again to a consumer after a failure or a crash.', (s) => s.redelivered);
    perConsumer('events_consumer_dead_letters', 'Events a consumer gave up on after its attempts.', (s) => s.deadLetters);

    app.get('/metrics', { config: { permission: 'public' }, logLevel: 'warn' }, async (req, reply) => {
      const token = config.metricsToken;
      const given = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
      if (!token) return reply.status(404).type('text/plain').send('Not found: set METRICS_TOKEN to serve /metrics.\n');
      if (!given || !sameToken(given, token)) return reply.status(401).header('www-authenticate', 'Bearer').type('text/plain').send('Unauthorized\n');
      reading = null;
      return reply.type(registry.contentType).send(await registry.metrics());
    });
  },
  { name: 'metrics', dependencies: ['services'] },
);
