/**
 * The rule engine's second half, driven step by step: the scheduled triggers over the rollups (written by the
 * network's own writer, server/network-reports/network-reports.ts), network and country changes through the event log, and the actions
 * as durable jobs with retries. The network is the simulator, wrapped where a test needs it to refuse (the system's
 * edge); everything else is the real server and database.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ActionRunner, type ActionState } from '../../server/autoflow/actions.js';
import { CONSUMER, handleEvents } from '../../server/autoflow/engine.js';
import { claimSchedule, evaluateScheduled, finishSchedule } from '../../server/autoflow/schedule.js';
import { startConsumer } from '../../server/events/event-log.js';
import { startRelay } from '../../server/events/relay.js';
import type { CommandAnswer, NetworkAdapter, NetworkName, SimRef } from '../../server/network/adapter.js';
import { networkReports } from '../../server/network-reports/network-reports.js';
import { sendSmsBatch } from '../../server/sms/send.js';
import { call, DB_KINDS, DEMO, signedInSuite } from '../helper.js';

const quiet = { info() {}, warn() {}, error() {}, debug() {} } as never;
const RULES = '/api/rule/auto_flow/cube/rules';
const VODAFONE_DE: NetworkName = { name: 'Vodafone DE 262-02', mccMnc: '26202', country: 'DE' };
const TELEKOM_DE: NetworkName = { name: 'Telekom DE 262-01', mccMnc: '26201', country: 'DE' };
const ORANGE_FR: NetworkName = { name: 'Orange FR 208-01', mccMnc: '20801', country: 'FR' };
const HOUR = 3_600_000;

interface Sim {
  id: string;
  iccid: string;
  imsi: string | null;
  msisdn: string | null;
}

/** The simulator, refusing the next `fail[command]` commands (a network that is busy). */
class FlakyNetwork implements NetworkAdapter {
  fail = { suspend: 0, resume: 0, sms: 0 };
  constructor(private readonly inner: NetworkAdapter) {}
  activate(taskId: string, sims: SimRef[]) {
    return this.inner.activate(taskId, sims);
  }
  reset(sims: SimRef[]) {
    return this.inner.reset(sims);
  }
  setDataPolicy(sims: Parameters<NetworkAdapter['setDataPolicy']>[0]) {
    return this.inner.setDataPolicy(sims);
  }
  async suspend(sims: SimRef[]): Promise<CommandAnswer[]> {
    if (this.fail.suspend > 0 && this.fail.suspend--) return sims.map((s) => ({ iccid: s.iccid, ok: false, error: 'busy' }));
    return this.inner.suspend(sims);
  }
  async resume(sims: SimRef[]): Promise<CommandAnswer[]> {
    if (this.fail.resume > 0 && this.fail.resume--) return sims.map((s) => ({ iccid: s.iccid, ok: false, error: 'busy' }));
    return this.inner.resume(sims);
  }
  async sendSms(sim: SimRef, sms: { id: string; content: string }): Promise<CommandAnswer> {
    if (this.fail.sms > 0 && this.fail.sms--) return { iccid: sim.iccid, ok: false, error: 'SMSC busy' };
    return this.inner.sendSms(sim, sms);
  }
}

describe.each(DB_KINDS)('autoflow actions and scheduled triggers on %s', (kind) => {
  const suite = signedInSuite({ kind, config: { webhookAllowPrivate: true } }, { admin: DEMO.admin });
  let consumer: ReturnType<typeof startConsumer>;
  let relay: ReturnType<typeof startRelay>;
  let network: FlakyNetwork;
  let runner: ActionRunner;
  let pool: Sim[];
  const take = () => pool.shift()!;

  beforeAll(async () => {
    // The demo's own rules stay out of the way: every rule here names its SIMs.
    await suite.t.db.query("UPDATE autoflow_rules SET status = 'disabled' WHERE status = 'enabled'");
    await suite.t.db.query("UPDATE organisations SET sms_quota = sms_used + 1000 WHERE id = 'org-demo'");
    pool = (
      await suite.t.db.query<Sim>(
        `SELECT id, iccid, imsi, msisdn FROM sims WHERE org_id = 'org-demo' AND status = 'active' AND msisdn IS NOT NULL AND pool_id IS NULL
          ORDER BY iccid LIMIT 30`,
      )
    ).rows;
    expect(pool.length).toBeGreaterThanOrEqual(22);
    network = new FlakyNetwork(suite.t.app.network);
    runner = new ActionRunner(suite.t.db, network, suite.t.app.mailer, quiet, { retryBaseMs: 0, maxAttempts: 3 });
    relay = startRelay(suite.t.db, quiet, { pollMs: 3_600_000 });
    consumer = startConsumer(suite.t.db, quiet, { name: CONSUMER, handle: handleEvents, pollMs: 3_600_000, relay });
    await consumer.poke();
  });
  afterAll(async () => {
    await consumer?.stop();
    await relay?.stop();
  });

  const ref = (s: Sim): SimRef => ({ orgId: 'org-demo', simId: s.id, iccid: s.iccid, imsi: s.imsi, msisdn: s.msisdn });
  const reports = () => networkReports(suite.t.db);
  const useData = (s: Sim, kb: number, at = new Date()) =>
    reports().usage({
      sim: ref(s),
      network: VODAFONE_DE,
      planCode: null,
      rat: 'LTE',
      direction: 'downlink',
      volumeKb: kb,
      start: new Date(at.getTime() - 600_000),
      end: at,
    });
  const rule = async (
    name: string,
    trigger: Record<string, unknown>,
    iccids: string[],
    actions: Array<Record<string, unknown>> = [{ type: 'tag', tag: 'hit' }],
  ) => {
    const res = await call(suite.t.app, suite.admin, {
      method: 'POST',
      url: RULES,
      payload: { name, trigger, scope: { type: 'iccids', iccids }, actions, status: 'enabled' },
    });
    expect(res.statusCode, res.body).toBe(200);
    return res.json().data.id as string;
  };
  const runs = async (ruleId: string) =>
    (
      await suite.t.db.query<{ id: string; iccid: string; status: string; crossing: string; actions: ActionState[] }>(
        'SELECT id::text, iccid, status, crossing, actions FROM autoflow_runs WHERE rule_id = $1 ORDER BY id',
        [ruleId],
      )
    ).rows;
  const evaluate = (now = new Date()) => evaluateScheduled(suite.t.db, now);
  /** Run every due action (a bounded number of rounds: a retrying action is due again at once here). */
  const runActions = async (r = runner) => {
    for (let i = 0; i < 20 && (await r.runOnce()) > 0; i++);
  };
  const drain = () =>
    expect
      .poll(
        async () => {
          await consumer.poke();
          const r = await suite.t.db.query<{ n: string }>(
            'SELECT count(*)::text AS n FROM events e, event_consumers c WHERE c.name = $1 AND (e.seq IS NULL OR e.seq > c.position_seq)',
            [CONSUMER],
          );
          return Number(r.rows[0].n);
        },
        { timeout: 10_000, interval: 20 },
      )
      .toBe(0);
  const simRow = async (s: Sim) =>
    (
      await suite.t.db.query<{ status: string; tags: string[]; flow_control_policy: string; rule_control: string; policy_unsent: boolean }>(
        'SELECT status, tags, flow_control_policy, rule_control, policy_unsent FROM sims WHERE id = $1',
        [s.id],
      )
    ).rows[0];
  const smsSent = async (s: Sim, content: string) =>
    Number(
      (
        await suite.t.db.query<{ n: string }>(
          "SELECT count(*)::text AS n FROM sms_records WHERE sim_id = $1 AND direction = 'MT' AND content = $2 AND status IN ('sent', 'delivered')",
          [s.id, content],
        )
      ).rows[0].n,
    );

  it('data usage in the cycle: fires once for the SIM in scope, runs every action once, and its own suspend fires nothing', async () => {
    const [a, b] = [take(), take()];
    const watch = await rule('Any pause', { type: 'status_change', from: 'any', to: 'paused' }, [a.iccid]);
    const id = await rule(
      'Over 1 MB',
      { type: 'data_usage', threshold: 1, unit: 'MB', window: 'cycle' },
      [a.iccid],
      [
        { type: 'sms', text: 'Over 1 MB' },
        { type: 'email', emails: ['ops@example.com', 'noc@example.com'] },
        { type: 'tag', tag: 'over' },
        { type: 'throttle', speedKbps: 256 },
        { type: 'suspend' },
        { type: 'webhook' },
      ],
    );
    await suite.t.db.query('UPDATE sims SET cycle_usage_kb = 0 WHERE id = ANY($1::text[])', [[a.id, b.id]]);
    await useData(a, 1000);
    await useData(b, 5000);
    await evaluate();
    expect(await runs(id)).toHaveLength(0);
    await useData(a, 100);
    await evaluate();
    await evaluate();
    const fired = await runs(id);
    expect(fired).toHaveLength(1);
    expect(fired[0]).toMatchObject({ iccid: a.iccid, status: 'pending' });
    expect(fired[0].crossing).toMatch(/^data_usage:\d{4}-\d{2}-\d{2}$/);
    // The crossing is an event of the log too.
    expect(
      (await suite.t.db.query("SELECT data FROM events WHERE type = 'usage' AND subtype = 'threshold_crossed' AND subject = $1", [a.iccid])).rows,
    ).toMatchObject([{ data: { ruleId: id, value: 1100, threshold: 1, unit: 'MB' } }]);

    await runActions();
    const [done] = await runs(id);
    expect(done.status).toBe('success');
    expect(done.actions.map((x) => x.outcome)).toEqual(['done', 'done', 'done', 'done', 'done', 'queued']);
    expect(done.actions[4].result).toEqual({ from: 'active', to: 'paused' });
    // The rule's throttle is kept as its own cause of the data policy, and the network was told (nothing left unsent).
    expect(await simRow(a)).toMatchObject({ status: 'paused', flow_control_policy: 'throttle_256', rule_control: 'throttle_256', policy_unsent: false });
    expect((await simRow(a)).tags).toContain('over');
    expect(await smsSent(a, 'Over 1 MB')).toBe(1);
    const mails = (
      await suite.t.db.query<{ to_address: string; subject: string }>(
        "SELECT to_address, subject FROM outbox WHERE subject LIKE '%Over 1 MB%' ORDER BY to_address",
      )
    ).rows;
    expect(mails).toEqual([
      { to_address: 'noc@example.com', subject: `Automation rule "Over 1 MB" fired for SIM ${a.iccid}` },
      { to_address: 'ops@example.com', subject: `Automation rule "Over 1 MB" fired for SIM ${a.iccid}` },
    ]);
    const own = (
      await suite.t.db.query<{ type: string; source: string }>("SELECT type, source FROM sim_events WHERE sim_id = $1 AND source = 'autoflow' ORDER BY id", [
        a.id,
      ])
    ).rows;
    expect(own.map((e) => e.type)).toEqual(['tag_change', 'info_change', 'status_change']);

    // Nothing runs twice; the rule's own suspend does not set off the status rule.
    expect(await runner.runOnce()).toBe(0);
    await drain();
    expect(await runs(watch)).toHaveLength(0);
    expect(await smsSent(a, 'Over 1 MB')).toBe(1);
    expect(await runs(id)).toHaveLength(1);

    // The cycle resets: the rule is armed again and fires on the next crossing, once.
    await suite.t.db.query('UPDATE sims SET cycle_usage_kb = 0, cycle_start = coalesce(cycle_start, current_date) + 30 WHERE id = $1', [a.id]);
    await evaluate();
    expect(await suite.t.db.query('SELECT 1 FROM autoflow_trips WHERE rule_id = $1', [id]).then((r) => r.rows.length)).toBe(0);
    await useData(a, 2000);
    await evaluate();
    await evaluate();
    expect(await runs(id)).toHaveLength(2);
  });

  it('data usage in a rolling 24 hours fires once and is armed again when the window has moved past it', async () => {
    const [c, d] = [take(), take()];
    const id = await rule('Rolling 500 KB', { type: 'data_usage', threshold: 500, unit: 'KB', window: 'rolling_24h' }, [c.iccid]);
    await useData(c, 600);
    await useData(d, 600);
    await evaluate();
    await evaluate();
    expect((await runs(id)).map((r) => r.iccid)).toEqual([c.iccid]);
    // Two days later the hour has left the window.
    await evaluate(new Date(Date.now() + 48 * HOUR));
    expect(await suite.t.db.query('SELECT 1 FROM autoflow_trips WHERE rule_id = $1', [id]).then((r) => r.rows.length)).toBe(0);
    await runActions();
    expect((await simRow(c)).tags).toContain('hit');
    expect((await simRow(d)).tags).not.toContain('hit');
  });

  it('percentage of the bundle used fires once for the SIM in scope', async () => {
    const bundled = (
      await suite.t.db.query<Sim & { quota_kb: string }>(
        `SELECT s.id, s.iccid, s.imsi, s.msisdn, b.quota_kb::text FROM sims s JOIN bundle_orders b ON b.sim_id = s.id AND b.status = 'IN_USE' AND b.service_type <> 'sms' AND b.quota_kb > 0
          WHERE s.org_id = 'org-demo' AND s.status = 'active' AND s.pool_id IS NULL AND s.test_data_status <> 'in_test'
            AND NOT EXISTS (SELECT 1 FROM bundle_orders o WHERE o.sim_id = s.id AND o.status = 'IN_USE' AND o.id <> b.id)
          ORDER BY s.iccid LIMIT 2`,
      )
    ).rows;
    expect(bundled).toHaveLength(2);
    const [e, f] = bundled;
    await suite.t.db.query('UPDATE bundle_orders SET used_kb = 0 WHERE sim_id = ANY($1::text[])', [[e.id, f.id]]);
    const id = await rule('Bundle at 90 %', { type: 'data_usage_percent', percent: 90 }, [e.iccid]);
    await useData(e, Math.ceil(Number(e.quota_kb) * 0.5));
    await evaluate();
    expect(await runs(id)).toHaveLength(0);
    await useData(e, Math.ceil(Number(e.quota_kb) * 0.45));
    await useData(f, Math.ceil(Number(f.quota_kb) * 0.95));
    await evaluate();
    await evaluate();
    expect((await runs(id)).map((r) => r.iccid)).toEqual([e.iccid]);
  });

  it('SMS MO in the cycle and SMS MT in 24 hours fire once each for the SIM in scope', async () => {
    const [g, h] = [take(), take()];
    // The demo's SMS of these SIMs' cycles so far are not this test's: their counts start from none.
    await suite.t.db.query('UPDATE usage_daily SET sms_mo = 0, sms_mt = 0 WHERE sim_id = ANY($1::text[])', [[g.id, h.id]]);
    const mo = await rule('Two MO', { type: 'sms_mo', count: 2, window: 'cycle' }, [g.iccid]);
    const mt = await rule('One MT', { type: 'sms_mt', count: 1, window: 'rolling_24h' }, [g.iccid]);
    const moSms = (s: Sim) => reports().moSms({ sim: ref(s), content: 'hello', replyToId: null, at: new Date() } as never);
    await moSms(g);
    await moSms(h);
    await moSms(h);
    await evaluate();
    expect(await runs(mo)).toHaveLength(0);
    await moSms(g);
    await sendSmsBatch(suite.t.db, suite.t.app.network, { orgId: 'org-demo', accountId: null, iccids: [g.iccid, h.iccid], content: 'ping', smsType: 'text' });
    await evaluate();
    await evaluate();
    expect((await runs(mo)).map((r) => r.iccid)).toEqual([g.iccid]);
    expect((await runs(mt)).map((r) => r.iccid)).toEqual([g.iccid]);
  });

  it('days before expiry fires once per expiry date, for SIMs in scope within the days', async () => {
    const [i, j, k] = [take(), take(), take()];
    const id = await rule('Expiring in 7 days', { type: 'expiry_reminder', days: 7 }, [i.iccid, k.iccid]);
    const soon = new Date(Date.now() + 3 * 86_400_000);
    await suite.t.db.query('UPDATE sims SET expires_at = $2 WHERE id = ANY($1::text[])', [[i.id, j.id], soon.toISOString()]);
    await suite.t.db.query("UPDATE sims SET expires_at = now() + interval '20 days' WHERE id = $1", [k.id]);
    await evaluate();
    await evaluate();
    expect((await runs(id)).map((r) => r.iccid)).toEqual([i.iccid]);
    // Renewed, then expiring again at a new date: a new crossing.
    await suite.t.db.query("UPDATE sims SET expires_at = now() + interval '60 days' WHERE id = $1", [i.id]);
    await evaluate();
    await suite.t.db.query("UPDATE sims SET expires_at = now() + interval '5 days' WHERE id = $1", [i.id]);
    await evaluate();
    expect((await runs(id)).map((r) => r.iccid)).toEqual([i.iccid, i.iccid]);
  });

  it('no connection for N hours fires once, and again only after the SIM has connected', async () => {
    const [l, m] = [take(), take()];
    const id = await rule('Silent 6 h', { type: 'no_connection', hours: 6 }, [l.iccid, m.iccid]);
    await suite.t.db.query("UPDATE sims SET connection_status = 'connected', last_session_at = now() - interval '10 hours' WHERE id = $1", [l.id]);
    await suite.t.db.query("UPDATE sims SET connection_status = 'connected', last_session_at = now() - interval '1 hour' WHERE id = $1", [m.id]);
    await evaluate();
    await evaluate();
    expect((await runs(id)).map((r) => r.iccid)).toEqual([l.iccid]);
    await reports().sessionOpened({ sim: ref(l), apn: 'iot', ip: '10.0.0.1', network: VODAFONE_DE, rat: 'LTE', at: new Date() });
    await evaluate();
    expect(await suite.t.db.query('SELECT 1 FROM autoflow_trips WHERE rule_id = $1', [id]).then((r) => r.rows.length)).toBe(0);
    // Twelve hours later, silent again since that session.
    await reports().sessionClosed({ sim: ref(l), kb: 10, at: new Date() });
    await evaluate(new Date(Date.now() + 12 * HOUR));
    expect((await runs(id)).filter((r) => r.iccid === l.iccid)).toHaveLength(2);
  });

  it('network and country changes come through the event log; a restarted consumer resumes from its cursor', async () => {
    const [n, o] = [take(), take()];
    const net = await rule('Network moved', { type: 'network_change' }, [n.iccid]);
    const country = await rule('Into France', { type: 'country_change', countries: ['FR'] }, [n.iccid]);
    await suite.t.db.query('UPDATE sims SET network = NULL, network_country = NULL WHERE id = ANY($1::text[])', [[n.id, o.id]]);
    const open = (s: Sim, network: NetworkName) => reports().sessionOpened({ sim: ref(s), apn: 'iot', ip: '10.0.0.2', network, rat: 'LTE', at: new Date() });
    await open(n, VODAFONE_DE);
    await open(o, VODAFONE_DE);
    await open(n, TELEKOM_DE);
    await open(o, TELEKOM_DE);
    await drain();
    expect((await runs(net)).map((r) => r.iccid)).toEqual([n.iccid]);
    expect(await runs(country)).toHaveLength(0);
    const change = (await suite.t.db.query("SELECT data FROM events WHERE type = 'sim' AND subtype = 'network_change' AND subject = $1", [n.iccid])).rows;
    expect(change).toMatchObject([{ data: { detail: { fromNetwork: VODAFONE_DE.name, toNetwork: TELEKOM_DE.name, fromCountry: 'DE', toCountry: 'DE' } } }]);

    // The consumer stops (an instance restarts); the change meanwhile is read by the next one from the cursor, once.
    await consumer.stop();
    await open(n, ORANGE_FR);
    consumer = startConsumer(suite.t.db, quiet, { name: CONSUMER, handle: handleEvents, pollMs: 3_600_000, relay });
    await drain();
    expect(await runs(country)).toHaveLength(1);
    expect(await runs(net)).toHaveLength(2);
  });

  it('an action the network refuses is retried with its attempts recorded, and given up as failed after the last', async () => {
    const [p, q] = [take(), take()];
    const id = await rule(
      'Silent, suspend',
      { type: 'no_connection', hours: 1 },
      [p.iccid, q.iccid],
      [{ type: 'sms', text: 'Suspending you' }, { type: 'suspend' }],
    );
    // What the tests before left due runs first: this test counts its own run's rounds.
    await runActions();
    // q was seen a moment ago (the demo's last session of a SIM may be hours old): only p is silent for now.
    await suite.t.db.query("UPDATE sims SET connection_status = 'online', last_session_at = now() WHERE id = $1", [q.id]);
    await suite.t.db.query("UPDATE sims SET connection_status = 'connected', last_session_at = now() - interval '5 hours' WHERE id = $1", [p.id]);
    await evaluate();
    network.fail.sms = 1;
    network.fail.suspend = 1;
    expect(await runner.runOnce()).toBe(1);
    let [run] = await runs(id);
    // The SMS was refused at hand-off (nothing sent, its quota unit given back): retried; the suspend waits its turn.
    expect(run.actions[0]).toMatchObject({ type: 'sms', outcome: 'retrying', reason: 'network', attempts: 1 });
    expect(run.actions[1].outcome).toBe('pending');
    expect(await runner.runOnce()).toBe(1);
    [run] = await runs(id);
    expect(run.actions[0]).toMatchObject({ outcome: 'done', attempts: 1 });
    expect(run.actions[1]).toMatchObject({ type: 'suspend', outcome: 'retrying', reason: 'network', attempts: 1 });
    await runActions();
    [run] = await runs(id);
    expect(run.status).toBe('success');
    expect(run.actions[1]).toMatchObject({ outcome: 'done', result: { from: 'active', to: 'paused' } });
    expect((await simRow(p)).status).toBe('paused');
    expect(await smsSent(p, 'Suspending you')).toBe(1);

    // A network that keeps refusing: failed after the runner's last attempt, the run failed.
    await suite.t.db.query("UPDATE sims SET connection_status = 'connected', last_session_at = now() - interval '5 hours' WHERE id = $1", [q.id]);
    await evaluate();
    network.fail.suspend = 100;
    await runActions();
    network.fail.suspend = 0;
    const failed = (await runs(id)).find((r) => r.iccid === q.iccid)!;
    expect(failed.status).toBe('failed');
    expect(failed.actions[0].outcome).toBe('done');
    expect(failed.actions[1]).toMatchObject({ outcome: 'failed', reason: 'network', attempts: 3 });
    expect((await simRow(q)).status).toBe('active');

    // The history filtered by one action's outcome (and type): only q's run has a failed suspend; both have a done SMS.
    const history = async (query: string) => {
      const res = await call(suite.t.app, suite.admin, { method: 'GET', url: `${RULES}/triggers/${id}?${query}` });
      expect(res.statusCode, res.body).toBe(200);
      return (res.json().data.items as Array<{ iccid: string }>).map((r) => r.iccid).sort();
    };
    expect(await history('actionOutcome=failed')).toEqual([q.iccid]);
    expect(await history('actionType=suspend&actionOutcome=failed')).toEqual([q.iccid]);
    expect(await history('actionType=sms&actionOutcome=failed')).toEqual([]);
    expect(await history('actionType=sms&actionOutcome=done')).toEqual([p.iccid, q.iccid].sort());
    expect(await history('actionType=suspend')).toEqual([p.iccid, q.iccid].sort());
    const bad = await call(suite.t.app, suite.admin, { method: 'GET', url: `${RULES}/triggers/${id}?actionOutcome=exploded`, headers: { language: 'zh-CN' } });
    expect(bad.statusCode).toBe(400);
    expect(bad.body).toContain('actionOutcome');
  });

  it('a job taken over after its runner stopped never sends or applies twice', async () => {
    const [r1, r2] = [take(), take()];
    const id = await rule(
      'Tag and tell',
      { type: 'no_connection', hours: 1 },
      [r1.iccid, r2.iccid],
      [{ type: 'tag', tag: 'quiet' }, { type: 'sms', text: 'Are you there?' }, { type: 'suspend' }],
    );
    await suite.t.db.query("UPDATE sims SET connection_status = 'connected', last_session_at = now() - interval '5 hours' WHERE id = ANY($1::text[])", [
      [r1.id, r2.id],
    ]);
    await evaluate();
    const [first, second] = await runs(id);
    // r1: a runner stopped after handing the SMS over (the action still "sending"); its lease ran out.
    await suite.t.db.query(
      `UPDATE autoflow_runs SET claimed_by = 'gone', lease_until = now() - interval '1 second',
              actions = jsonb_set(jsonb_set(actions, '{0,outcome}', '"done"'), '{1,outcome}', '"sending"') WHERE id = $1::bigint`,
      [first.id],
    );
    // r2: a runner stopped after its tag and SMS were recorded done; only the suspend is left.
    await suite.t.db.query(
      `UPDATE autoflow_runs SET claimed_by = 'gone', lease_until = now() - interval '1 second',
              actions = jsonb_set(jsonb_set(actions, '{0,outcome}', '"done"'), '{1,outcome}', '"done"') WHERE id = $1::bigint`,
      [second.id],
    );
    // Two runners at once (two instances) take the runs over.
    const other = new ActionRunner(suite.t.db, network, suite.t.app.mailer, quiet, { retryBaseMs: 0 });
    await Promise.all([runActions(runner), runActions(other)]);
    const [a, b] = await runs(id);
    expect(a.actions[1]).toMatchObject({ outcome: 'failed', reason: 'interrupted' });
    expect(a.actions[2]).toMatchObject({ outcome: 'done', result: { from: 'active', to: 'paused' } });
    expect(a.status).toBe('failed');
    expect(b.status).toBe('success');
    expect(b.actions[2]).toMatchObject({ outcome: 'done', result: { from: 'active', to: 'paused' } });
    // Nothing recorded done was done again: no SMS, no tag.
    expect(await smsSent(r1, 'Are you there?')).toBe(0);
    expect(await smsSent(r2, 'Are you there?')).toBe(0);
    expect((await simRow(r2)).tags).not.toContain('quiet');
    expect(
      (await suite.t.db.query("SELECT 1 FROM sim_events WHERE sim_id = ANY($1::text[]) AND source = 'autoflow' AND type = 'status_change'", [[r1.id, r2.id]]))
        .rows,
    ).toHaveLength(2);
  });

  it('a rule disabled mid-stream stops: its waiting actions are skipped and it fires no more', async () => {
    const [s1, s2] = [take(), take()];
    const id = await rule('Stop me', { type: 'no_connection', hours: 1 }, [s1.iccid, s2.iccid], [{ type: 'tag', tag: 'stopme' }]);
    await suite.t.db.query("UPDATE sims SET connection_status = 'connected', last_session_at = now() - interval '5 hours' WHERE id = $1", [s1.id]);
    await evaluate();
    expect((await call(suite.t.app, suite.admin, { method: 'PUT', url: `${RULES}/${id}/disable` })).statusCode).toBe(200);
    await runActions();
    const [run] = await runs(id);
    expect(run).toMatchObject({ status: 'skipped', actions: [{ outcome: 'skipped', reason: 'ruleDisabled' }] });
    expect((await simRow(s1)).tags).not.toContain('stopme');
    await suite.t.db.query("UPDATE sims SET connection_status = 'connected', last_session_at = now() - interval '5 hours' WHERE id = $1", [s2.id]);
    await evaluate();
    expect(await runs(id)).toHaveLength(1);
  });

  it('two instances evaluating at once fire each crossing once; the lease lets one evaluate at a time', async () => {
    const sims = [take(), take(), take()];
    const id = await rule(
      'Both instances',
      { type: 'no_connection', hours: 2 },
      sims.map((s) => s.iccid),
    );
    await suite.t.db.query("UPDATE sims SET connection_status = 'connected', last_session_at = now() - interval '3 hours' WHERE id = ANY($1::text[])", [
      sims.map((s) => s.id),
    ]);
    await Promise.all([evaluate(), evaluate(), evaluate()]);
    expect((await runs(id)).map((r) => r.iccid).sort()).toEqual(sims.map((s) => s.iccid).sort());
    await suite.t.db.query('DELETE FROM autoflow_schedule_lease');
    expect(await claimSchedule(suite.t.db, 'one', 60_000, 60)).toBe(true);
    expect(await claimSchedule(suite.t.db, 'two', 60_000, 60)).toBe(false);
    await finishSchedule(suite.t.db, 'one');
    // Just evaluated: not due again for a minute, for either.
    expect(await claimSchedule(suite.t.db, 'two', 60_000, 60)).toBe(false);
    expect(await claimSchedule(suite.t.db, 'two', 0, 60)).toBe(true);
  });

  it("one query evaluates an organisation's rules of a trigger kind: each rule its own threshold and scope (all, ICCIDs, file, tags, product type, pool)", async () => {
    const GB = 1024 * 1024;
    // SIMs of their own (the pool of SIMs with a number is for the actions that need one).
    const [a, b, c, d, f] = (
      await suite.t.db.query<Sim>(
        "SELECT id, iccid, imsi, msisdn FROM sims WHERE org_id = 'org-demo' AND NOT (status = 'active' AND msisdn IS NOT NULL) AND pool_id IS NULL ORDER BY iccid DESC LIMIT 5",
      )
    ).rows;
    expect(f).toBeDefined();
    // A pool SIM of the demo (the pool scope) and an automotive one: no demo SIM is near 500 GB, only the ones used here.
    const e = (
      await suite.t.db.query<Sim & { pool_id: string }>(
        "SELECT id, iccid, imsi, msisdn, pool_id FROM sims WHERE org_id = 'org-demo' AND status = 'active' AND pool_id IS NOT NULL ORDER BY iccid LIMIT 1",
      )
    ).rows[0];
    await suite.t.db.query("UPDATE sims SET product_type = 'automotive' WHERE id = $1", [d.id]);
    await suite.t.db.query("UPDATE sims SET product_type = 'consumer' WHERE id = ANY($1::text[])", [[a.id, b.id, c.id, f.id, e.id]]);
    await suite.t.db.query("UPDATE sims SET tags = array_append(tags, 'grp-t') WHERE id = ANY($1::text[])", [[a.id, c.id]]);
    await suite.t.db.query("UPDATE sims SET tags = array_append(tags, 'grp-u') WHERE id = $1", [c.id]);
    const sha = 'ab'.repeat(32);
    await suite.t.db.query(
      "INSERT INTO autoflow_scope_files (org_id, token, kind, sha256, file_name, items) VALUES ('org-demo', 'grp-file-token', 'iccid', $1, 'scope.csv', $2)",
      [sha, [f.iccid, a.iccid]],
    );
    // The cycle's rollup as the network's writer keeps it (these SIMs are not all active: set, not used).
    for (const [s, gb] of [
      [a, 600],
      [b, 800],
      [c, 600],
      [d, 600],
      [e, 600],
      [f, 400],
    ] as const)
      await suite.t.db.query('UPDATE sims SET cycle_usage_kb = $2 WHERE id = $1', [s.id, gb * GB]);
    const over = (gb: number) => ({ type: 'data_usage', threshold: gb, unit: 'GB', window: 'cycle' });
    const create = async (name: string, trigger: Record<string, unknown>, scope: Record<string, unknown>) => {
      const res = await call(suite.t.app, suite.admin, {
        method: 'POST',
        url: RULES,
        payload: { name, trigger, scope, actions: [{ type: 'tag', tag: 'hit' }], status: 'enabled' },
      });
      expect(res.statusCode, res.body).toBe(200);
      return res.json().data.id as string;
    };
    const ids = {
      all: await create('Group all', over(500), { type: 'all' }),
      iccids: await create('Group ICCIDs', over(700), { type: 'iccids', iccids: [a.iccid, b.iccid] }),
      file: await create('Group file', over(300), { type: 'file', fileToken: 'grp-file-token', fileSha256: sha, fileName: 'scope.csv' }),
      tags: await create('Group tags', over(500), { type: 'tags', tags: ['grp-t', 'grp-u'] }),
      product: await create('Group product', over(500), { type: 'product_type', productType: 'automotive' }),
      pool: await create('Group pool', over(500), { type: 'pool', poolId: e.pool_id }),
    };
    const fired = async (id: string) => (await runs(id)).map((r) => r.iccid).sort();
    const r = await evaluate();
    expect(r.groups).toBeLessThan(r.rules);
    expect(await fired(ids.all)).toEqual([a, b, c, d, e].map((s) => s.iccid).sort());
    expect(await fired(ids.iccids)).toEqual([b.iccid]);
    expect(await fired(ids.file)).toEqual([a, f].map((s) => s.iccid).sort());
    // c has both tags: one run.
    expect(await fired(ids.tags)).toEqual([a, c].map((s) => s.iccid).sort());
    expect(await fired(ids.product)).toEqual([d.iccid]);
    expect(await fired(ids.pool)).toEqual([e.iccid]);
    // Evaluated again: nothing new.
    await evaluate();
    expect((await runs(ids.all)).length).toBe(5);
    await suite.t.db.query("UPDATE autoflow_rules SET status = 'disabled' WHERE id = ANY($1::text[])", [Object.values(ids)]);
  });

  it('GET /rules/{id}/trigger_actions answers the trigger and each action’s outcomes, and one run’s with runId', async () => {
    const id = (await suite.t.db.query<{ id: string }>("SELECT id FROM autoflow_rules WHERE name = 'Over 1 MB'")).rows[0].id;
    const res = await call(suite.t.app, suite.admin, { method: 'GET', url: `${RULES}/${id}/trigger_actions` });
    expect(res.statusCode, res.body).toBe(200);
    const data = res.json().data;
    expect(data.trigger).toMatchObject({ type: 'data_usage', threshold: 1, unit: 'MB', window: 'cycle' });
    expect(data.actions.map((a: { type: string }) => a.type)).toEqual(['sms', 'email', 'tag', 'throttle', 'suspend', 'webhook']);
    // Two runs (the second crossing after the cycle reset): every action has two outcomes, the first run's all done.
    expect(data.actions[0]).toMatchObject({ index: 0, params: { text: 'Over 1 MB' } });
    for (const a of data.actions as Array<{ outcomes: Record<string, number> }>) expect(Object.values(a.outcomes).reduce((x, y) => x + y, 0)).toBe(2);
    expect(data.actions[2].outcomes.done).toBeGreaterThanOrEqual(1);
    expect(Object.values(data.runs as Record<string, number>).reduce((x, y) => x + y, 0)).toBe(2);
    const runId = (await runs(id))[0].id;
    const one = (await call(suite.t.app, suite.admin, { method: 'GET', url: `${RULES}/${id}/trigger_actions?runId=${runId}` })).json().data;
    expect(one.run).toMatchObject({ id: runId, status: 'success' });
    expect((await call(suite.t.app, suite.admin, { method: 'GET', url: `${RULES}/${id}/trigger_actions?runId=999999999` })).statusCode).toBe(404);
    expect((await call(suite.t.app, suite.admin, { method: 'GET', url: `${RULES}/${id}/trigger_actions?runId=x` })).statusCode).toBe(400);
  });
});

describe('AUTOFLOW_SCHEDULE_SECONDS', () => {
  it('defaults to 5 minutes and takes whole seconds from 1 to 86,400, naming itself when refused', async () => {
    const { loadConfig } = await import('../../server/config.js');
    const at = (v?: string) => loadConfig({ AUTOFLOW_SCHEDULE_SECONDS: v } as NodeJS.ProcessEnv).autoflowScheduleSeconds;
    expect(at()).toBe(300);
    expect(at('')).toBe(300);
    expect(at('1')).toBe(1);
    expect(at('86400')).toBe(86_400);
    for (const bad of ['0', '86401', '1.5', 'soon'])
      expect(() => at(bad)).toThrow(`AUTOFLOW_SCHEDULE_SECONDS must be a whole number of seconds from 1 to 86400, not "${bad}"`);
  });
});
