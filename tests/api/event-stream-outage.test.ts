/**
 * NATS stopped while SIMs change, then started again, under the running server (its relay, consumers and dispatcher
 * on their own timers), on a NATS server of the test's own (its own port and store, so stopping it touches nobody
 * else): the console and the API keep answering meanwhile, nothing is lost, and nothing is told twice — a real HTTPS
 * receiver gets every event once under its own webhook-id, the live pages show every change once, and a rule watching
 * the SIM runs once per change, and the SIM's changes arrive in the order they happened. On PGlite and on PostgreSQL
 * where it answers.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { newId } from '../../server/db/ids.js';
import { DEMO_SIMS } from '../../server/db/seed-fleet.js';
import { appendEvents } from '../../server/events/event-log.js';
import { LIVE_SMS_IDS } from '../../server/live/live-consumer.js';
import type { BuildOptions } from '../helper.js';
import { call, DB_KINDS, DEMO, signedInSuite } from '../helper.js';
import { httpsReceiver } from '../test-tls.js';
import { childServer, freePort, sleep, until } from '../wait.js';

/** How long NATS stays down: longer than the client's first reconnect attempts, as a restart of the service would be. */
const OUTAGE_MS = 30_000;
const BEFORE = 100;
const DURING = 100;

vi.setConfig({ testTimeout: 480_000, hookTimeout: 120_000 });

const hasNatsServer = fs.existsSync('/usr/sbin/nats-server') || fs.existsSync('/usr/bin/nats-server') || fs.existsSync('/usr/local/bin/nats-server');
if (!hasNatsServer) console.warn('tests/api/event-stream-outage.test.ts skipped: no nats-server binary on this machine');

/** A NATS server with JetStream on `port`, its stream kept in `store` across a stop and a start. */
const natsServer = (port: number, store: string) => childServer('nats-server', ['-js', '-a', '127.0.0.1', '-p', String(port), '-sd', store], port);

describe.skipIf(!hasNatsServer).each(DB_KINDS)('the event stream through a NATS outage on %s', (kind) => {
  const store = fs.mkdtempSync(path.join(os.tmpdir(), 'nats-outage-'));
  let nats: ReturnType<typeof natsServer>;
  const opts: BuildOptions = {
    kind,
    config: { jobs: true, jobPollMs: 200, webhookAllowPrivate: true, natsAckWaitSeconds: 10, natsStream: `OUTAGE_${newId(8).replace(/[^A-Za-z0-9]/g, 'x')}` },
  };
  // NATS first, so the app (built by the suite's beforeAll, registered after this one) connects to it.
  beforeAll(async () => {
    const port = await freePort();
    nats = natsServer(port, store);
    await nats.start();
    opts.config!.natsUrl = `nats://127.0.0.1:${port}`;
  });
  const suite = signedInSuite(opts, { admin: DEMO.superadmin, operator: DEMO.operator });
  let rx: Awaited<ReturnType<typeof httpsReceiver>>;
  beforeAll(async () => (rx = await httpsReceiver()));
  afterAll(async () => {
    await rx?.close();
    await nats?.stop();
    fs.rmSync(store, { recursive: true, force: true });
  });

  it('keeps answering while NATS is down, and afterwards every event reaches each consumer once', async () => {
    const { db, app } = suite.t;
    const org = 'org-demo';
    /** The webhooks and live consumers on the stream, with nothing waiting for them and nothing left in the outbox. */
    const caughtUp = async () => {
      const events = (await app.inject({ method: 'GET', url: '/api/health' })).json().data.events;
      const mine = ((events?.consumers ?? []) as Array<{ consumer: string; pending: number }>).filter((c) => ['webhooks', 'live'].includes(c.consumer));
      return events?.outbox === 0 && mine.length === 2 && mine.every((c) => c.pending === 0) ? true : undefined;
    };
    // The demo's history has reached the consumers before the webhook is switched on (it would be sent otherwise).
    await until('the consumers to catch up', caughtUp, 90_000, 200);
    const keyCall = (method: 'GET' | 'PUT', url: string, payload?: Record<string, unknown>) =>
      call(app, suite.admin, { method, url: `/api/main/developer/key/notification${url}`, payload });
    const key = (await keyCall('GET', `/${suite.admin.accountId}`)).json().data as { id: string };
    expect((await keyCall('PUT', `/callbackUrl/${key.id}`, { webhookUrl: rx.url })).statusCode).toBe(200);
    expect((await keyCall('PUT', `/webhookStatus/${key.id}`, { status: 'enabled' })).statusCode).toBe(200);

    // A rule watching the SIM: each of its status changes is one crossing, one run, one tag.
    const iccid = DEMO_SIMS.active;
    const made = await call(app, suite.admin, {
      method: 'POST',
      url: '/api/rule/auto_flow/cube/rules',
      payload: {
        name: `Outage watch ${newId(6)}`,
        trigger: { type: 'status_change', from: 'any', to: 'any' },
        scope: { type: 'iccids', iccids: [iccid] },
        actions: [{ type: 'tag', tag: 'seen' }],
        status: 'enabled',
      },
    });
    expect(made.statusCode, made.body).toBe(200);
    const ruleId = made.json().data.id as string;

    const run = newId(6).replace(/[^A-Za-z0-9]/g, 'x');
    /** Task events (webhooks deliver them) and received SMS (the live pages show them), numbered for this run. */
    const emit = async (from: number, count: number) => {
      for (let i = from; i < from + count; i += 25) {
        const n = Math.min(25, from + count - i);
        await appendEvents(db, [
          // What the console's writers make (a task finished, an SMS received), as the outbox holds them.
          ...Array.from({ length: n }, (_, k) => ({
            orgId: org,
            type: 'task' as const,
            subtype: 'finished',
            subject: `${run}-${i + k}`,
            data: { taskId: `${run}-${i + k}` },
          })),
          ...Array.from({ length: n }, (_, k) => ({
            orgId: org,
            type: 'sms' as const,
            subtype: 'received',
            subject: '89860000000000000001',
            data: { smsId: `${run}-${i + k}` },
          })),
        ]);
      }
    };
    const toggle = async (action: 'suspend' | 'resume') => {
      const res = await call(app, suite.operator, { method: 'POST', url: `/api/main/sim/${action}`, payload: { iccids: [iccid] } });
      expect(res.statusCode, res.body).toBe(200);
    };

    await emit(0, BEFORE);
    // Events keep coming while NATS goes down, so some are on their way to a reader (delivered by JetStream, not yet
    // handled) as it stops: those come back only after the acknowledgement window, and must not be overtaken.
    let streaming = true;
    let sent = BEFORE;
    const stream = (async () => {
      while (streaming) {
        await emit(sent, 1);
        sent += 1;
        await sleep(5);
      }
    })();
    await toggle('suspend');
    await sleep(200);
    await nats.stop();
    await sleep(200);
    streaming = false;
    await stream;
    // NATS is down: the console keeps answering (health included, saying what it cannot reach) and SIMs keep changing;
    // their events wait in the outbox.
    const downUntil = Date.now() + OUTAGE_MS;
    await emit(sent, DURING);
    sent += DURING;
    await toggle('resume');
    await toggle('suspend');
    while (Date.now() < downUntil) {
      const health = await app.inject({ method: 'GET', url: '/api/health' });
      expect(health.statusCode, health.body).toBe(200);
      const list = await call(app, suite.operator, { method: 'POST', url: '/api/main/sim/list/es', payload: { pageSize: 5 } });
      expect(list.statusCode, list.body).toBe(200);
      await sleep(2_000);
    }
    const waiting = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM events WHERE seq IS NULL`);
    expect(waiting.rows[0].n).toBeGreaterThan(0);
    await nats.start();
    await toggle('resume');

    const total = sent;
    const bodies = () =>
      rx.received.map((r) => ({
        id: r.headers['webhook-id'],
        body: JSON.parse(r.body) as { type: string; subtype: string; timestamp: string; data: Record<string, unknown> },
      }));
    const taskDeliveries = () => bodies().filter((b) => b.body.type === 'task' && String(b.body.data.taskId ?? '').startsWith(`${run}-`));
    const statusDeliveries = () => bodies().filter((b) => b.body.subtype === 'status_change' && b.body.data.iccid === iccid);
    // Where the events are, should they not all arrive: the outbox, each consumer's partitions, the deliveries by state.
    const whereTheyAre = async () => {
      const outbox = (await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM events WHERE seq IS NULL`)).rows[0].n;
      const partitions = (await db.query(`SELECT consumer, partition, last_stream_seq, lease_owner IS NOT NULL AS held FROM event_partitions ORDER BY 1, 2`))
        .rows;
      const deliveries = (
        await db.query(
          `SELECT status, attempt, min(next_at) AS next_at, count(*)::int AS n FROM webhook_deliveries WHERE created_at > now() - interval '1 hour' GROUP BY 1, 2 ORDER BY 1, 2`,
        )
      ).rows;
      return JSON.stringify({
        received: { tasks: taskDeliveries().length, of: total, statusChanges: statusDeliveries().length },
        outbox,
        deliveries,
        partitions,
      });
    };
    await until(
      'every webhook delivered',
      async () => (taskDeliveries().length >= total && statusDeliveries().length >= 4 ? true : undefined),
      300_000,
      200,
    ).catch(async (e: Error) => {
      throw new Error(`${e.message}: ${await whereTheyAre().catch((d: Error) => `(not found: ${d.message})`)}`);
    });
    // The live pages hear a batch of SMS changes as one event that counts them and names up to LIVE_SMS_IDS of them
    // (the backlog after the outage is one batch of more than that).
    const liveOfRun = async () => {
      const rows = (
        await db.query<{ changes: number; ids: string[] }>(
          `SELECT (l.data->>'changes')::int AS changes, ARRAY(SELECT jsonb_array_elements_text(l.data->'smsIds')) AS ids
             FROM live_events l
            WHERE l.type = 'sms' AND EXISTS (SELECT 1 FROM jsonb_array_elements_text(l.data->'smsIds') AS x(id) WHERE x.id LIKE $1)`,
          [`${run}-%`],
        )
      ).rows;
      return { changes: rows.reduce((n, r) => n + r.changes, 0), named: rows.flatMap((r) => r.ids).filter((id) => id.startsWith(`${run}-`)) };
    };
    await until('every live event', async () => ((await liveOfRun()).changes >= total ? true : undefined), 60_000, 200);
    // The consumers' lag comes back to 0 and the outbox is empty.
    await until('the lag to return to 0', caughtUp, 60_000, 200);
    // A little longer, for anything that would come twice.
    await sleep(3_000);
    const tasks = taskDeliveries();
    expect(new Set(tasks.map((t) => t.body.data.taskId)).size).toBe(total);
    expect(tasks).toHaveLength(total);
    expect(new Set(tasks.map((t) => t.id)).size).toBe(total);
    // The SIM's four changes, once each, in the order they happened.
    const changes = statusDeliveries();
    expect(changes).toHaveLength(4);
    expect(new Set(changes.map((b) => b.id)).size).toBe(4);
    expect(changes.map((b) => b.body.data.to)).toEqual(['paused', 'active', 'paused', 'active']);
    // The rule heard each change once: four runs.
    await until(
      'the rule’s runs',
      async () => ((await db.query(`SELECT 1 FROM autoflow_runs WHERE rule_id = $1`, [ruleId])).rows.length >= 4 ? true : undefined),
      30_000,
      200,
    );
    const runs = await db.query(`SELECT id FROM autoflow_runs WHERE rule_id = $1`, [ruleId]);
    expect(runs.rows).toHaveLength(4);
    // Every message counted once, none named twice.
    const shown = await liveOfRun();
    expect(shown.changes).toBe(total);
    expect(new Set(shown.named).size).toBe(shown.named.length);
    expect(shown.named.length).toBeGreaterThanOrEqual(Math.min(total, LIVE_SMS_IDS));
  });
});
