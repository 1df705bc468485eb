/**
 * The rule engine's event side (its first half): the `autoflow` consumer of the event log matches SIM events to
 * the enabled rules of their organisation and trigger, within each rule's scope, and writes one run per rule, SIM and
 * crossing, however often the log hands the event over. Driven step by step: the consumer is poked by the test.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONSUMER, handleEvents, matchEvents } from '../../server/autoflow/engine.js';
import { sweepAutoflow } from '../../server/autoflow/run-repo.js';
import { DEMO_SIMS } from '../../server/db/seed-fleet.js';
import { readEvents, startConsumer } from '../../server/events/event-log.js';
import { startRelay } from '../../server/events/relay.js';
import fs from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { call, DB_KINDS, DEMO, signedInSuite, signIn } from '../helper.js';

const quiet = { info() {}, warn() {}, error() {}, debug() {} } as never;
const RULES = '/api/rule/auto_flow/cube/rules';

describe.each(DB_KINDS)('autoflow engine on %s', (kind) => {
  const suite = signedInSuite({ kind, config: { webhookAllowPrivate: true } }, { admin: DEMO.admin, operator: DEMO.operator });
  let consumer: ReturnType<typeof startConsumer>;
  let relay: ReturnType<typeof startRelay>;
  let other: string;

  beforeAll(async () => {
    relay = startRelay(suite.t.db, quiet, { pollMs: 3_600_000 });
    consumer = startConsumer(suite.t.db, quiet, { name: CONSUMER, handle: handleEvents, pollMs: 3_600_000, relay });
    // The first claim places the consumer at the log's present.
    await consumer.poke();
    other = (
      await suite.t.db.query<{ iccid: string }>(
        "SELECT iccid FROM sims WHERE org_id = 'org-demo' AND status = 'active' AND iccid <> $1 ORDER BY iccid LIMIT 1",
        [DEMO_SIMS.active],
      )
    ).rows[0].iccid;
  });
  afterAll(async () => {
    await consumer?.stop();
    await relay?.stop();
  });

  const rule = async (name: string, trigger: Record<string, unknown>, scope: Record<string, unknown>, status = 'enabled') => {
    const res = await call(suite.t.app, suite.admin, {
      method: 'POST',
      url: RULES,
      payload: { name, trigger, scope, actions: [{ type: 'webhook' }, { type: 'tag', tag: 'flagged' }], status },
    });
    expect(res.statusCode, res.body).toBe(200);
    return res.json().data.id as string;
  };
  const runs = async (ruleId: string) =>
    (
      await suite.t.db.query<{ iccid: string; status: string; crossing: string; actions: unknown }>(
        'SELECT iccid, status, crossing, actions FROM autoflow_runs WHERE rule_id = $1 ORDER BY id',
        [ruleId],
      )
    ).rows;
  /**
   * Poke the consumer until it has read every event of the log: a round reads what was committed before it, and the
   * events the engine appends while handling a batch (a rule fired) are read by the next.
   */
  const drain = () =>
    expect
      .poll(
        async () => {
          await consumer.poke();
          const r = await suite.t.db.query<{ n: string }>(
            `SELECT count(*)::text AS n FROM events e, event_consumers c WHERE c.name = $1 AND (e.seq IS NULL OR e.seq > c.position_seq)`,
            [CONSUMER],
          );
          return Number(r.rows[0].n);
        },
        { timeout: 10_000, interval: 20 },
      )
      .toBe(0);
  const act = async (path: string, iccid: string) =>
    expect((await call(suite.t.app, suite.operator, { method: 'POST', url: `/api/main${path}`, payload: { iccids: [iccid] } })).statusCode).toBe(200);

  it('fires once for a SIM in scope that crosses the status change, not for one outside it nor for a disabled rule', async () => {
    const inScope = await rule('Paused watch', { type: 'status_change', from: 'active', to: 'paused' }, { type: 'iccids', iccids: [DEMO_SIMS.active] });
    const outside = await rule('Paused elsewhere', { type: 'status_change', from: 'active', to: 'paused' }, { type: 'iccids', iccids: [other] });
    const disabled = await rule('Paused off', { type: 'status_change', from: 'any', to: 'any' }, { type: 'all' }, 'disabled');
    await act('/sim/suspend', DEMO_SIMS.active);
    await drain();
    const fired = await runs(inScope);
    expect(fired).toHaveLength(1);
    expect(fired[0]).toMatchObject({
      iccid: DEMO_SIMS.active,
      status: 'pending',
      actions: [
        { type: 'webhook', outcome: 'queued' },
        { type: 'tag', tag: 'flagged', outcome: 'pending' },
      ],
    });
    // The webhook action is an event of the log, which the webhooks consumer delivers like any other.
    const notified = (
      await suite.t.db.query<{ subject: string; data: Record<string, unknown> }>(
        "SELECT subject, data FROM events WHERE type = 'autoflow' AND subtype = 'rule_fired'",
      )
    ).rows;
    expect(notified).toHaveLength(1);
    expect(notified[0].subject).toBe(DEMO_SIMS.active);
    expect(notified[0].data).toMatchObject({
      ruleId: inScope,
      ruleName: 'Paused watch',
      trigger: 'status_change',
      iccid: DEMO_SIMS.active,
      event: { type: 'sim', subtype: 'status_change', data: { from: 'active', to: 'paused' } },
    });
    expect(fired[0].crossing).toMatch(/^event:\d+$/);
    expect(await runs(outside)).toHaveLength(0);
    expect(await runs(disabled)).toHaveLength(0);
    const counted = (
      await suite.t.db.query<{ run_count: number; last_run_at: Date | null }>('SELECT run_count, last_run_at FROM autoflow_rules WHERE id = $1', [inScope])
    ).rows[0];
    expect(counted.run_count).toBe(1);
    expect(counted.last_run_at).not.toBeNull();
  });

  it('an event handed over again (at least once) fires nothing twice', async () => {
    const all = await suite.t.db.tx(async (q) => (await readEvents(q, { seq: '0' }, 100_000)).events);
    const again = await suite.t.db.tx((q) => matchEvents(all, q));
    expect(again).toBe(0);
  });

  it('a status change the autoflow made fires nothing; the same change by a person does', async () => {
    const any = await rule('Any change', { type: 'status_change', from: 'any', to: 'any' }, { type: 'iccids', iccids: [DEMO_SIMS.active] });
    const sim = (await suite.t.db.query<{ id: string; org_id: string }>('SELECT id, org_id FROM sims WHERE iccid = $1', [DEMO_SIMS.active])).rows[0];
    await suite.t.db.query(
      `INSERT INTO sim_events (org_id, sim_id, iccid, type, from_status, to_status, source) VALUES ($1, $2, $3, 'status_change', 'paused', 'active', 'autoflow')`,
      [sim.org_id, sim.id, DEMO_SIMS.active],
    );
    await drain();
    expect(await runs(any)).toHaveLength(0);
    await act('/sim/resume', DEMO_SIMS.active);
    await drain();
    expect(await runs(any)).toHaveLength(1);
  });

  it('shows a rule’s run history with each action’s outcome, to its organisation only', async () => {
    const id = (await suite.t.db.query<{ id: string }>("SELECT id FROM autoflow_rules WHERE name = 'Paused watch'")).rows[0].id;
    const res = await call(suite.t.app, suite.admin, { method: 'GET', url: `${RULES}/triggers/${id}` });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data.total).toBe(1);
    expect(res.json().data.items[0]).toMatchObject({
      ruleId: id,
      iccid: DEMO_SIMS.active,
      trigger: 'status_change',
      status: 'pending',
      actions: [
        { type: 'webhook', outcome: 'queued' },
        { type: 'tag', outcome: 'pending' },
      ],
    });
    expect(res.json().data.items[0].detail.event).toMatchObject({ type: 'sim', subtype: 'status_change', data: { from: 'active', to: 'paused' } });
    const none = await call(suite.t.app, suite.admin, { method: 'GET', url: `${RULES}/triggers/${id}?status=failed` });
    expect(none.json().data.total).toBe(0);
    const theirs = await call(suite.t.app, await signIn(suite.t.app, 'admin@other.example.com'), { method: 'GET', url: `${RULES}/triggers/${id}` });
    expect(theirs.statusCode).toBe(404);
  });

  it('sweeps runs older than 30 days and uploads that no rule names after a day', async () => {
    const id = (await suite.t.db.query<{ id: string }>("SELECT id FROM autoflow_rules WHERE name = 'Paused watch'")).rows[0].id;
    await suite.t.db.query(
      `INSERT INTO autoflow_runs (org_id, rule_id, iccid, trigger, status, at) VALUES ('org-demo', $1, $2, 'status_change', 'success', now() - interval '31 days'),
              ('org-demo', $1, $2, 'status_change', 'success', now() - interval '29 days')`,
      [id, DEMO_SIMS.active],
    );
    await suite.t.db.query(
      `INSERT INTO autoflow_scope_files (org_id, token, kind, sha256, file_name, items, created_at) VALUES
         ('org-demo', 'old-unused', 'iccid', $1, 'a.csv', ARRAY[$2], now() - interval '2 days'),
         ('org-demo', 'new-unused', 'iccid', $1, 'b.csv', ARRAY[$2], now()),
         ('org-demo', 'old-used', 'iccid', $1, 'c.csv', ARRAY[$2], now() - interval '2 days')`,
      ['0'.repeat(64), DEMO_SIMS.active],
    );
    await call(suite.t.app, suite.admin, {
      method: 'POST',
      url: RULES,
      payload: {
        name: 'Uses a file',
        trigger: { type: 'imei_change', mode: 'any' },
        scope: { type: 'file', fileToken: 'old-used', fileSha256: '0'.repeat(64) },
        actions: [{ type: 'webhook' }],
      },
    });
    const before = Number((await suite.t.db.query<{ n: string }>('SELECT count(*)::text AS n FROM autoflow_runs WHERE rule_id = $1', [id])).rows[0].n);
    expect(await sweepAutoflow(suite.t.db, new Date())).toEqual({ runs: 1, uploads: 1 });
    expect(Number((await suite.t.db.query<{ n: string }>('SELECT count(*)::text AS n FROM autoflow_runs WHERE rule_id = $1', [id])).rows[0].n)).toBe(
      before - 1,
    );
    expect((await suite.t.db.query<{ token: string }>('SELECT token FROM autoflow_scope_files ORDER BY token')).rows.map((r) => r.token)).toEqual([
      'new-unused',
      'old-used',
    ]);
  });

  it('try-it-out shows the exact body the rule would send and sends it to the caller’s webhook, with the answer', async () => {
    const id = (await suite.t.db.query<{ id: string }>("SELECT id FROM autoflow_rules WHERE name = 'Paused watch'")).rows[0].id;
    const shown = await call(suite.t.app, suite.admin, { method: 'POST', url: '/api/rule/auto_flow/cube/try_it_out/body', payload: { ruleId: id } });
    expect(shown.statusCode, shown.body).toBe(200);
    expect(shown.json().data).toMatchObject({
      type: 'autoflow',
      subtype: 'rule_fired',
      data: {
        ruleId: id,
        ruleName: 'Paused watch',
        trigger: 'status_change',
        iccid: DEMO_SIMS.active,
        event: { type: 'sim', subtype: 'status_change', data: { from: 'active', to: 'paused' } },
      },
    });
    // Someone with no webhook set up is told which field is missing.
    await suite.t.db.query("DELETE FROM notification_keys WHERE account_id = 'acc-superadmin'");
    const none = await call(suite.t.app, await signIn(suite.t.app, DEMO.superadmin), {
      method: 'POST',
      url: '/api/rule/auto_flow/cube/try_it_out/send',
      payload: { ruleId: id },
    });
    expect(none.json().status.message).toBe('Webhook URL is required');
    const received: string[] = [];
    const dir = process.env.TEST_TLS_DIR!;
    const server = https.createServer({ key: fs.readFileSync(path.join(dir, 'key.pem')), cert: fs.readFileSync(path.join(dir, 'cert.pem')) }, (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        received.push(Buffer.concat(chunks).toString('utf8'));
        res.writeHead(202).end('ok');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const key = (await call(suite.t.app, suite.admin, { method: 'GET', url: `/api/main/developer/key/notification/${suite.admin.accountId}` })).json().data;
      const url = `https://localhost:${(server.address() as AddressInfo).port}/hook`;
      expect(
        (
          await call(suite.t.app, suite.admin, {
            method: 'PUT',
            url: `/api/main/developer/key/notification/callbackUrl/${key.id}`,
            payload: { webhookUrl: url },
          })
        ).statusCode,
      ).toBe(200);
      const sent = await call(suite.t.app, suite.admin, { method: 'POST', url: '/api/rule/auto_flow/cube/try_it_out/send', payload: { ruleId: id } });
      expect(sent.statusCode, sent.body).toBe(200);
      expect(sent.json().data).toMatchObject({ delivered: true, httpCode: 202 });
      expect(received).toHaveLength(1);
      expect(JSON.parse(received[0])).toEqual(sent.json().data.body);
    } finally {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  it('a rule disabled mid-stream stops firing; enabled again, it fires on the next crossing only', async () => {
    const id = (await suite.t.db.query<{ id: string }>("SELECT id FROM autoflow_rules WHERE name = 'Paused watch'")).rows[0].id;
    const before = (await runs(id)).length;
    expect((await call(suite.t.app, suite.admin, { method: 'PUT', url: `${RULES}/${id}/disable` })).statusCode).toBe(200);
    await act('/sim/suspend', DEMO_SIMS.active);
    await drain();
    expect(await runs(id)).toHaveLength(before);
    await act('/sim/resume', DEMO_SIMS.active);
    expect((await call(suite.t.app, suite.admin, { method: 'PUT', url: `${RULES}/${id}/enable` })).statusCode).toBe(200);
    await drain();
    expect(await runs(id)).toHaveLength(before);
    await act('/sim/suspend', DEMO_SIMS.active);
    await drain();
    expect(await runs(id)).toHaveLength(before + 1);
  });
});
