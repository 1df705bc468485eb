/**
 * Webhooks end to end against a real HTTPS receiver on this machine, with a self-signed
 * certificate the server trusts through NODE_EXTRA_CA_CERTS (tests/global-setup.ts): a SIM suspended through the API
 * reaches the receiver signed, verified by the `standardwebhooks` package (a verifier nobody here wrote); failures are
 * retried on the schedule, each attempt logged; SSRF refused at save and at delivery; a rotated secret; a test event, a
 * replay; an endpoint failing for 3 days disabled and its owner told. On PGlite and PostgreSQL.
 */
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import pg from 'pg';
import { loadConfig } from '../../server/config.js';
import { DEMO_SIMS } from '../../server/db/seed-fleet.js';
import { appendEvents, startConsumer } from '../../server/events/event-log.js';
import { startRelay } from '../../server/events/relay.js';
import { checkTarget } from '../../server/developer/ssrf.js';
import { CONSUMER, queueDeliveries, RETRY_AFTER_MS, WebhookDispatcher } from '../../server/developer/webhooks.js';
import { httpsReceiver } from '../test-tls.js';
import { call, createPostgresDatabase, DB_KINDS, DEMO, signedInSuite, signIn } from '../helper.js';

const quiet = { info() {}, warn() {}, error() {}, debug() {} } as never;

describe.each(DB_KINDS)('webhooks on %s', (kind) => {
  const suite = signedInSuite({ kind, config: { webhookAllowPrivate: true } }, { admin: DEMO.superadmin, operator: DEMO.operator });
  let rx: Awaited<ReturnType<typeof httpsReceiver>>;
  let consumer: ReturnType<typeof startConsumer>;
  let relay: ReturnType<typeof startRelay>;
  let dispatcher: WebhookDispatcher;
  let key: { id: string; secret: string };

  beforeAll(async () => {
    rx = await httpsReceiver();
    // The relay and the consumer the server runs when jobs are on, driven by hand; the consumer starts at the log's present.
    relay = startRelay(suite.t.db, quiet, { pollMs: 3_600_000 });
    consumer = startConsumer(suite.t.db, quiet, { name: CONSUMER, handle: queueDeliveries, pollMs: 3_600_000, relay });
    await consumer.poke();
    dispatcher = new WebhookDispatcher(suite.t.db, quiet, {
      allowPrivate: () => suite.t.config.webhookAllowPrivate,
      mailer: suite.t.app.mailer,
      timeoutMs: 1500,
    });
  });
  afterAll(async () => {
    await consumer.stop();
    await relay.stop();
    await rx.close();
  });
  beforeEach(() => {
    suite.t.config.webhookAllowPrivate = true;
    rx.hangUp(false);
    rx.answer([]);
  });

  const keyCall = (method: 'GET' | 'PUT', url: string, payload?: Record<string, unknown>, who = suite.admin) =>
    call(suite.t.app, who, { method, url: `/api/main/developer/key/notification${url}`, payload });
  /** Poke the consumer and the dispatcher until `n` more requests reached the receiver. */
  const delivered = async (n: number) => {
    const target = rx.received.length + n;
    await expect
      .poll(
        async () => {
          await consumer.poke();
          await dispatcher.runOnce();
          return rx.received.length;
        },
        { timeout: 15_000, interval: 100 },
      )
      .toBeGreaterThanOrEqual(target);
    return rx.received.slice(target - n, target);
  };
  const deliveries = async () =>
    (
      await suite.t.db.query<{ id: string; status: string; attempt: number; next_at: Date; message_id: string }>(
        `SELECT id::text, status, attempt, next_at, message_id FROM webhook_deliveries WHERE notification_key_id = $1 ORDER BY webhook_deliveries.id`,
        [key.id],
      )
    ).rows;
  const logsOf = async (deliveryId: string) =>
    (
      await suite.t.db.query<{ attempt: number; http_code: number | null; error: string | null; response: string | null }>(
        'SELECT attempt, http_code, error, response FROM notification_logs WHERE delivery_id = $1 ORDER BY id',
        [deliveryId],
      )
    ).rows;
  /** Let the clock run to a delivery's next attempt. */
  const due = (id: string) => suite.t.db.query(`UPDATE webhook_deliveries SET next_at = now() WHERE id = $1`, [id]);
  /** One event of the log (these tests are about delivery; what makes events is tests/api/event-log.test.ts). */
  const oneEvent = (subject: string) =>
    appendEvents(suite.t.db, [{ orgId: 'org-demo', type: 'task', subtype: 'finished', subject, data: { taskId: subject } }]);
  const suspendResume = async (iccid: string) => {
    for (const action of ['suspend', 'resume'])
      expect((await call(suite.t.app, suite.operator, { method: 'POST', url: `/api/main/sim/${action}`, payload: { iccids: [iccid] } })).statusCode).toBe(200);
  };

  it('a developer’s notification key is made on first use, with a Standard Webhooks secret; only its owner reads it', async () => {
    const res = await keyCall('GET', `/${suite.admin.accountId}`);
    expect(res.statusCode, res.body).toBe(200);
    const data = res.json().data;
    expect(data).toMatchObject({ accountId: suite.admin.accountId, status: 'disabled', webhookUrl: null });
    expect(data.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect((await keyCall('GET', `/${suite.admin.accountId}`)).json().data.id).toBe(data.id);
    key = { id: data.id, secret: data.secret };
    // Another developer's key, by their account id or by the key's id, is not found; a user may not read keys at all.
    expect((await keyCall('GET', '/acc-admin')).statusCode).toBe(404);
    const other = await signIn(suite.t.app, DEMO.admin);
    expect((await keyCall('PUT', `/webhookStatus/${key.id}`, { status: 'enabled' }, other)).statusCode).toBe(404);
    expect((await keyCall('GET', `/${suite.operator.accountId}`, undefined, suite.operator)).statusCode).toBe(403);
  });

  it('refuses a URL that is not HTTPS or that points at a private, loopback, link-local or metadata address, naming the field', async () => {
    suite.t.config.webhookAllowPrivate = false;
    const bad: Array<[string, RegExp]> = [
      ['http://hooks.example.com/x', /HTTPS/],
      ['ftp://hooks.example.com/x', /HTTPS/],
      ['not a url', /HTTPS/],
      ['https://user:pw@hooks.example.com/x', /HTTPS/],
      [`https://hooks.example.com/${'x'.repeat(2030)}`, /HTTPS|2,048/],
      ['https://127.0.0.1/hook', /private, loopback/],
      ['https://10.1.2.3/hook', /private, loopback/],
      ['https://172.16.0.1/hook', /private, loopback/],
      ['https://192.168.1.1/hook', /private, loopback/],
      ['https://169.254.169.254/latest/meta-data', /private, loopback/],
      ['https://[::1]/hook', /private, loopback/],
      ['https://[::ffff:127.0.0.1]/hook', /private, loopback/],
      ['https://[fd00:ec2::254]/hook', /private, loopback/],
      // IPv6 forms that carry a refused IPv4 address: IPv4-compatible (stored as ::7f00:1), SIIT, NAT64, 6to4.
      ['https://[::127.0.0.1]/', /private, loopback/],
      ['https://[::ffff:0:127.0.0.1]/', /private, loopback/],
      ['https://[64:ff9b::a9fe:a9fe]/', /private, loopback/],
      ['https://[64:ff9b:1::a00:1]/', /private, loopback/],
      ['https://[2002:7f00:1::]/', /private, loopback/],
      // A name that resolves to loopback.
      ['https://localhost/hook', /private, loopback/],
      ['https://no-such-host.invalid/hook', /does not resolve/],
    ];
    for (const [url, message] of bad) {
      const res = await keyCall('PUT', `/callbackUrl/${key.id}`, { webhookUrl: url });
      expect(res.statusCode, url).toBe(400);
      expect(res.json().status.message, url).toMatch(/^Webhook URL/);
      expect(res.json().status.message, url).toMatch(message);
    }
    const es = await call(suite.t.app, suite.admin, {
      method: 'PUT',
      url: `/api/main/developer/key/notification/callbackUrl/${key.id}`,
      payload: { webhookUrl: 'http://x.example.com' },
      headers: { language: 'es-ES' },
    });
    expect(es.json().status.message).toBe('El campo «URL del webhook» debe ser una URL HTTPS completa (https://host/ruta)');
    // Nothing was saved; switching on without a URL is refused.
    expect((await keyCall('GET', `/${suite.admin.accountId}`)).json().data.webhookUrl).toBeNull();
    expect((await keyCall('PUT', `/webhookStatus/${key.id}`, { status: 'enabled' })).statusCode).toBe(400);
  });

  it('a SIM suspended through the API reaches the receiver signed, and standardwebhooks verifies it', async () => {
    expect((await keyCall('PUT', `/callbackUrl/${key.id}`, { webhookUrl: rx.url })).statusCode).toBe(200);
    expect((await keyCall('PUT', `/webhookStatus/${key.id}`, { status: 'enabled' })).json().data.status).toBe('enabled');
    await suspendResume(DEMO_SIMS.active);
    // The suspension also detaches the SIM (a connection event): the two changes of state are among what arrives.
    await delivered(2);
    await expect
      .poll(async () => (await consumer.poke(), await dispatcher.runOnce(), rx.received.filter((r) => JSON.parse(r.body).subtype === 'status_change').length), {
        timeout: 15_000,
      })
      .toBe(2);
    const [suspended, resumed] = rx.received.filter((r) => JSON.parse(r.body).subtype === 'status_change');
    const verified = new Webhook(key.secret).verify(suspended.body, suspended.headers) as {
      type: string;
      subtype: string;
      timestamp: string;
      data: Record<string, unknown>;
    };
    expect(verified).toMatchObject({
      type: 'sim',
      subtype: 'status_change',
      data: { iccid: DEMO_SIMS.active, from: 'active', to: 'paused', source: 'console' },
    });
    expect(Object.keys(verified)).toEqual(['type', 'subtype', 'timestamp', 'data']);
    expect(suspended.headers['webhook-id']).toMatch(/^evt_\d+$/);
    expect(JSON.parse(resumed.body).data.to).toBe('active');
    // A tampered body or another secret does not verify.
    expect(() => new Webhook(key.secret).verify(suspended.body.replace('paused', 'active'), suspended.headers)).toThrow();
    expect(() => new Webhook('whsec_' + Buffer.alloc(32, 7).toString('base64')).verify(suspended.body, suspended.headers)).toThrow();
    const rows = await deliveries();
    expect(rows.map((d) => [d.status, d.attempt])).toEqual(rows.map(() => ['delivered', 1]));
    expect((await logsOf(rows.at(-1)!.id))[0]).toMatchObject({ attempt: 1, http_code: 200, response: 'thanks', error: null });
  });

  it('one endpoint’s deliveries go out in the order of their events, whatever order the database keeps them in', async () => {
    const subjects = Array.from({ length: 12 }, (_, i) => `in-order-${i}`);
    await appendEvents(
      suite.t.db,
      subjects.map((subject) => ({ orgId: 'org-demo', type: 'task' as const, subtype: 'finished', subject, data: { taskId: subject } })),
    );
    await consumer.poke();
    // Rewritten rows move to the end of the table: a scan now meets the later events' deliveries first.
    const queued = await suite.t.db.query(
      `UPDATE webhook_deliveries SET updated_at = now() WHERE notification_key_id = $1 AND status = 'pending' AND body LIKE '%in-order-%' AND (id % 3) <> 2 RETURNING id`,
      [key.id],
    );
    expect(queued.rows.length).toBeGreaterThan(0);
    const from = rx.received.length;
    await dispatcher.runOnce();
    const got = rx.received.slice(from).map((r) => JSON.parse(r.body).data.taskId as string);
    expect(got).toEqual(subjects);
  });

  it('the same event handed over twice is delivered once (idempotent by event id)', async () => {
    const before = (await deliveries()).length;
    await oneEvent('twice');
    await delivered(1);
    const events = (
      await suite.t.db.query<{ id: string; org_id: string; type: 'task'; subtype: string; subject: string; data: Record<string, unknown>; at: Date }>(
        `SELECT id::text, org_id, type, subtype, subject, data, at FROM events WHERE subject = 'twice'`,
      )
    ).rows;
    expect(events).toHaveLength(1);
    await suite.t.db.tx((q) =>
      queueDeliveries(
        events.map((e) => ({ id: e.id, orgId: e.org_id, type: e.type, subtype: e.subtype, subject: e.subject, data: e.data, at: e.at })),
        q,
      ),
    );
    expect((await deliveries()).length).toBe(before + 1);
  });

  it('a receiver failing twice, then answering 200, gets three attempts, each logged, retried after about 1 and 5 minutes', async () => {
    rx.answer([500, 503]);
    await oneEvent('retried');
    await delivered(1);
    const d = (await deliveries()).at(-1)!;
    expect(d).toMatchObject({ status: 'pending', attempt: 1 });
    const wait1 = (await suite.t.db.query<{ s: number }>('SELECT extract(epoch FROM next_at - updated_at) AS s FROM webhook_deliveries WHERE id = $1', [d.id]))
      .rows[0].s;
    expect(wait1 * 1000).toBeGreaterThanOrEqual(RETRY_AFTER_MS[0] * 0.9 - 1000);
    expect(wait1 * 1000).toBeLessThanOrEqual(RETRY_AFTER_MS[0] * 1.1 + 1000);
    // Not before its time.
    await dispatcher.runOnce();
    expect((await logsOf(d.id)).length).toBe(1);
    await due(d.id);
    await dispatcher.runOnce();
    const wait2 = (await suite.t.db.query<{ s: number }>('SELECT extract(epoch FROM next_at - updated_at) AS s FROM webhook_deliveries WHERE id = $1', [d.id]))
      .rows[0].s;
    expect(wait2 * 1000).toBeGreaterThanOrEqual(RETRY_AFTER_MS[1] * 0.9 - 1000);
    await due(d.id);
    await dispatcher.runOnce();
    expect((await logsOf(d.id)).map((l) => [l.attempt, l.http_code])).toEqual([
      [1, 500],
      [2, 503],
      [3, 200],
    ]);
    expect((await deliveries()).find((x) => x.id === d.id)!.status).toBe('delivered');
    // All attempts carry the same message id, so the receiver can tell a retry from a new event.
    expect(rx.received.slice(-3).map((r) => r.headers['webhook-id'])).toEqual([d.message_id, d.message_id, d.message_id]);
  });

  it('gives up after the last retry (more than 24 hours of them), and an answer slower than the limit is a failure', async () => {
    expect(RETRY_AFTER_MS.reduce((a, b) => a + b, 0)).toBeGreaterThan(24 * 3_600_000);
    rx.answer(Array(RETRY_AFTER_MS.length + 2).fill(500));
    await oneEvent('given-up');
    await oneEvent('slow');
    await delivered(2);
    const [d, other] = (await deliveries()).slice(-2);
    for (let i = 1; i <= RETRY_AFTER_MS.length; i++) {
      await due(d.id);
      await dispatcher.runOnce();
    }
    expect((await logsOf(d.id)).length).toBe(RETRY_AFTER_MS.length + 1);
    expect((await deliveries()).find((x) => x.id === d.id)!.status).toBe('failed');
    await due(d.id);
    await dispatcher.runOnce();
    expect((await logsOf(d.id)).length).toBe(RETRY_AFTER_MS.length + 1);
    // The other delivery: the receiver takes its request and never answers.
    rx.hangUp(true);
    await due(other.id);
    await dispatcher.runOnce();
    expect((await logsOf(other.id)).at(-1)).toMatchObject({ http_code: null, error: 'no answer within 1.5 s' });
  });

  it('checks the address again at every delivery: a URL that now points at a private address is not sent to', async () => {
    await oneEvent('now-private');
    suite.t.config.webhookAllowPrivate = false;
    const before = rx.received.length;
    await expect.poll(async () => (await consumer.poke(), await dispatcher.runOnce()), { timeout: 15_000 }).toBeGreaterThan(0);
    expect(rx.received.length).toBe(before);
    const d = (await deliveries()).at(-1)!;
    expect((await logsOf(d.id))[0]).toMatchObject({ http_code: null, error: 'not sent: the host is a private, loopback or link-local address' });
    expect(d.status).toBe('pending');
  });

  it('a rotated secret: both secrets sign for 24 hours, then only the new one', async () => {
    const old = key.secret;
    const res = await keyCall('PUT', `/${key.id}`);
    expect(res.statusCode).toBe(200);
    const fresh = res.json().data.secret as string;
    expect(fresh).not.toBe(old);
    expect(Date.parse(res.json().data.previousSecretUntil) - Date.now()).toBeGreaterThan(23.9 * 3_600_000);
    key.secret = fresh;
    await oneEvent('rotated-1');
    const [first] = await delivered(1);
    expect(first.headers['webhook-signature'].split(' ')).toHaveLength(2);
    expect(() => new Webhook(fresh).verify(first.body, first.headers)).not.toThrow();
    expect(() => new Webhook(old).verify(first.body, first.headers)).not.toThrow();
    await suite.t.db.query(`UPDATE notification_keys SET previous_until = now() - interval '1 second' WHERE id = $1`, [key.id]);
    await oneEvent('rotated-2');
    const [later] = await delivered(1);
    expect(later.headers['webhook-signature'].split(' ')).toHaveLength(1);
    expect(() => new Webhook(fresh).verify(later.body, later.headers)).not.toThrow();
    expect(() => new Webhook(old).verify(later.body, later.headers)).toThrow();
  });

  it('sends a test event at once and answers its outcome; replays a logged delivery as it was', async () => {
    const test = await call(suite.t.app, suite.admin, { method: 'POST', url: `/api/main/developer/notification/${key.id}`, payload: {} });
    expect(test.statusCode, test.body).toBe(200);
    expect(test.json().data).toMatchObject({ httpCode: 200, delivered: true, error: null });
    const got = rx.received.at(-1)!;
    expect(new Webhook(key.secret).verify(got.body, got.headers)).toMatchObject({ type: 'test', subtype: 'ping' });
    expect(got.headers['webhook-id']).toMatch(/^test_/);
    // Replay the first logged event delivery.
    const log = (
      await suite.t.db.query<{ id: string; message_id: string; payload: unknown }>(
        `SELECT id::text, message_id, payload FROM notification_logs WHERE notification_key_id = $1 AND event_type = 'sim' ORDER BY id LIMIT 1`,
        [key.id],
      )
    ).rows[0];
    const replay = await call(suite.t.app, suite.admin, { method: 'POST', url: `/api/main/developer/notification/${key.id}`, payload: { logId: log.id } });
    expect(replay.json().data).toMatchObject({ httpCode: 200, delivered: true });
    const again = rx.received.at(-1)!;
    expect(again.headers['webhook-id']).toBe(log.message_id);
    expect(JSON.parse(again.body)).toEqual(log.payload);
    // A log entry of another organisation, or none, is not found; an operator may not send.
    const otherLog = (await suite.t.db.query<{ id: string }>(`SELECT id::text FROM notification_logs WHERE org_id = 'org-other' LIMIT 1`)).rows[0];
    for (const logId of [otherLog?.id ?? '999999999', '999999999']) {
      expect((await call(suite.t.app, suite.admin, { method: 'POST', url: `/api/main/developer/notification/${key.id}`, payload: { logId } })).statusCode).toBe(
        404,
      );
    }
    expect((await call(suite.t.app, suite.operator, { method: 'POST', url: `/api/main/developer/notification/${key.id}`, payload: {} })).statusCode).toBe(403);
  });

  it('lists the organisation’s attempts newest first, filtered by type and failure, and names the types in the caller’s language', async () => {
    const all = await call(suite.t.app, suite.admin, { method: 'POST', url: '/api/main/developer/log/notification', payload: { pageSize: 5 } });
    expect(all.statusCode, all.body).toBe(200);
    const { items, total } = all.json().data;
    expect(items).toHaveLength(5);
    expect(total).toBeGreaterThan(5);
    const times = items.map((l: { sentAt: string }) => Date.parse(l.sentAt));
    expect(times).toEqual([...times].sort((a, b) => b - a));
    expect(items.map((l: { eventType: string }) => l.eventType)).toContain('test');
    const failed = (
      await call(suite.t.app, suite.admin, {
        method: 'POST',
        url: '/api/main/developer/log/notification',
        payload: { failed: true, eventType: 'task', pageSize: 100 },
      })
    ).json().data;
    expect(failed.total).toBeGreaterThan(0);
    expect(
      failed.items.every((l: { httpCode: number | null; eventType: string }) => l.eventType === 'task' && (l.httpCode === null || l.httpCode >= 300)),
    ).toBe(true);
    const other = await signIn(suite.t.app, 'admin@other.example.com');
    const theirs = (await call(suite.t.app, other, { method: 'POST', url: '/api/main/developer/log/notification', payload: { pageSize: 100 } })).json().data;
    expect(theirs.items.every((l: { url: string }) => !l.url.includes('localhost'))).toBe(true);
    const types = await call(suite.t.app, suite.admin, { method: 'GET', url: '/api/main/developer/log/notification/type', headers: { language: 'es-ES' } });
    expect(types.json().data.find((x: { type: string }) => x.type === 'sim')).toMatchObject({
      label: 'SIM',
      subtypes: expect.arrayContaining([{ subtype: 'status_change', label: 'Cambio de estado' }]),
    });
    // A scheduled SMS run's end is an event webhooks carry.
    expect(types.json().data.find((x: { type: string }) => x.type === 'sms_schedule')).toMatchObject({
      label: 'SMS programado',
      subtypes: [{ subtype: 'run_finished', label: 'Ejecución finalizada' }],
    });
    // A usage rule's crossing and a SIM's change of network too.
    expect(types.json().data.find((x: { type: string }) => x.type === 'usage').subtypes).toContainEqual({
      subtype: 'threshold_crossed',
      label: 'Umbral superado',
    });
    expect(types.json().data.find((x: { type: string }) => x.type === 'sim').subtypes).toContainEqual({ subtype: 'network_change', label: 'Cambio de red' });
    const zh = await call(suite.t.app, suite.admin, { method: 'GET', url: '/api/main/developer/log/notification/type', headers: { language: 'zh-CN' } });
    expect(zh.json().data.find((x: { type: string }) => x.type === 'usage').subtypes).toContainEqual({ subtype: 'threshold_crossed', label: '超过阈值' });
  });

  it('an endpoint whose deliveries have all failed for 3 days is disabled and its owner told by mail', async () => {
    await suite.t.db.query(`UPDATE notification_keys SET failing_since = now() - interval '3 days 1 minute' WHERE id = $1`, [key.id]);
    rx.answer([500, 500, 500]);
    await oneEvent('three-days');
    await delivered(1);
    const k = (await keyCall('GET', `/${suite.admin.accountId}`)).json().data;
    expect(k).toMatchObject({ status: 'disabled', disabledReason: 'failing' });
    const mail = (
      await suite.t.db.query<{ subject: string; body: string }>('SELECT subject, body FROM outbox WHERE to_address = $1 ORDER BY id DESC LIMIT 1', [
        DEMO.superadmin,
      ])
    ).rows[0];
    expect(mail.subject).toBe('Your webhook was disabled');
    expect(mail.body).toContain(rx.url);
    // Nothing more is queued or sent for it until it is switched on again.
    expect((await deliveries()).filter((d) => d.status === 'pending')).toEqual([]);
    const queued = (await deliveries()).length;
    await oneEvent('while-disabled');
    const before = rx.received.length;
    // Once the consumer has read past the event, it queued nothing for a disabled key.
    await expect
      .poll(
        async () => (
          await consumer.poke(),
          (
            await suite.t.db.query<{ n: number }>(
              `SELECT count(*)::int AS n FROM event_consumers c, events e WHERE c.name = 'webhooks' AND e.subject = 'while-disabled' AND e.seq <= c.position_seq`,
            )
          ).rows[0].n
        ),
        { timeout: 15_000 },
      )
      .toBe(1);
    await dispatcher.runOnce();
    expect((await deliveries()).length).toBe(queued);
    expect(rx.received.length).toBe(before);
    expect((await keyCall('PUT', `/webhookStatus/${key.id}`, { status: 'enabled' })).json().data).toMatchObject({
      status: 'enabled',
      disabledReason: null,
      failingSince: null,
    });
  });

  it('refuses WEBHOOK_ALLOW_PRIVATE in production', () => {
    expect(() => loadConfig({ NODE_ENV: 'production', WEBHOOK_ALLOW_PRIVATE: 'true' } as NodeJS.ProcessEnv)).toThrow(/WEBHOOK_ALLOW_PRIVATE/);
    expect(() => loadConfig({ NODE_ENV: 'production', WEBHOOK_ALLOW_PRIVATE: 'localhost' } as NodeJS.ProcessEnv)).toThrow(/WEBHOOK_ALLOW_PRIVATE/);
    expect(loadConfig({ NODE_ENV: 'production' } as NodeJS.ProcessEnv).webhookAllowPrivate).toBe(false);
    expect(loadConfig({ NODE_ENV: 'production', WEBHOOK_ALLOW_PRIVATE: 'false' } as NodeJS.ProcessEnv).webhookAllowPrivate).toBe(false);
  });

  it('WEBHOOK_ALLOW_PRIVATE with host names opens loopback to those names only, not to addresses written out', async () => {
    const allowance = loadConfig({ NODE_ENV: 'test', WEBHOOK_ALLOW_PRIVATE: ' LocalHost ,hooks.test' } as NodeJS.ProcessEnv).webhookAllowPrivate;
    expect(allowance).toEqual(['localhost', 'hooks.test']);
    expect(await checkTarget('https://localhost:8443/hook', allowance)).toMatchObject({ ok: true });
    expect(await checkTarget('https://127.0.0.1:8443/hook', allowance)).toEqual({ ok: false, problem: 'privateAddress' });
    expect(await checkTarget('https://169.254.169.254/latest/meta-data', allowance)).toEqual({ ok: false, problem: 'privateAddress' });
    expect(await checkTarget('https://localhost:8443/hook', false)).toEqual({ ok: false, problem: 'privateAddress' });
  });
});

describe.each(DB_KINDS)('webhooks through the running server on %s', (kind) => {
  // The server as an instance with jobs runs it: the relay, the consumers and the dispatcher on their own timers, on
  // the in-database path (the JetStream path's own such test is tests/api/event-stream-server.test.ts).
  const POLL_MS = 200;
  const suite = signedInSuite(
    { kind, config: { webhookAllowPrivate: true, jobs: true, jobPollMs: POLL_MS, natsUrl: undefined } },
    { admin: DEMO.superadmin, operator: DEMO.operator },
  );
  let rx: Awaited<ReturnType<typeof httpsReceiver>>;
  beforeAll(async () => (rx = await httpsReceiver()));
  afterAll(() => rx.close());

  it('a SIM suspended through the API reaches the receiver within a few polls, even beside long transactions elsewhere', async () => {
    // The consumer starts at the log's present on its first round: what is committed before then is history to it.
    await expect
      .poll(async () => (await suite.t.db.query("SELECT 1 FROM event_consumers WHERE name = 'webhooks'")).rows.length, { timeout: 15 * POLL_MS, interval: 20 })
      .toBe(1);
    const keyCall = (method: 'GET' | 'PUT', url: string, payload?: Record<string, unknown>) =>
      call(suite.t.app, suite.admin, { method, url: `/api/main/developer/key/notification${url}`, payload });
    const key = (await keyCall('GET', `/${suite.admin.accountId}`)).json().data as { id: string };
    expect((await keyCall('PUT', `/callbackUrl/${key.id}`, { webhookUrl: rx.url })).statusCode).toBe(200);
    expect((await keyCall('PUT', `/webhookStatus/${key.id}`, { status: 'enabled' })).statusCode).toBe(200);
    // On PostgreSQL, a transaction held open in another database of the server and one idle in this database: the
    // server's oldest running transaction stays behind them for the whole test.
    const held: pg.Client[] = [];
    let other: { drop: () => Promise<void> } | null = null;
    if (kind === 'postgres') {
      const made = await createPostgresDatabase();
      other = made;
      const here = new URL(process.env.TEST_DATABASE_URL!);
      here.pathname = `/${(await suite.t.db.query<{ name: string }>('SELECT current_database() AS name')).rows[0].name}`;
      for (const url of [made.url, here.toString()]) {
        const c = new pg.Client({ connectionString: url });
        await c.connect();
        await c.query('BEGIN');
        await c.query('SELECT txid_current()');
        held.push(c);
      }
    }
    try {
      const iccid = DEMO_SIMS.active;
      const statusChanges = () => rx.received.map((r) => JSON.parse(r.body)).filter((b) => b.subtype === 'status_change' && b.data.iccid === iccid);
      expect((await call(suite.t.app, suite.operator, { method: 'POST', url: '/api/main/sim/suspend', payload: { iccids: [iccid] } })).statusCode).toBe(200);
      // A round of the consumer at most POLL_MS after the commit, the relay poked by it, the dispatcher woken by its
      // commit: well within a couple of seconds on a loaded machine, where the old log waited for the transactions.
      await expect.poll(() => statusChanges().map((b) => b.data.to), { timeout: 15 * POLL_MS, interval: 20 }).toEqual(['paused']);
    } finally {
      for (const c of held) await c.end();
      await other?.drop();
    }
  });
});
