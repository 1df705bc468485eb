/**
 * Live SMS statuses: an SMS of the organisation delivered, failed or answered reaches the organisation's
 * SSE stream through the event log's `live` consumer (server/live/live-consumer.ts), on another instance than the one
 * that made the change and runs the consumer; another organisation's stream hears nothing of it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../server/app.js';
import { startConsumer } from '../../server/events/event-log.js';
import { startRelay, type Relay } from '../../server/events/relay.js';
import { LIVE_CONSUMER, liveHandle, type LiveSmsData } from '../../server/live/live-consumer.js';
import { networkReports } from '../../server/network-reports/network-reports.js';
import { SimulatedNetwork } from '../../server/network/simulator.js';
import { SmsScheduler } from '../../server/sms-schedules/scheduler.js';
import { call, DB_KINDS, DEMO, type Session, signedInSuite, signIn } from '../helper.js';
import { collectFrames as collect } from '../sse.js';

/** Wait for a condition, checking every 20 ms, failing after the deadline. */
async function until(what: string, cond: () => boolean | Promise<boolean>, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe.each(DB_KINDS)('live SMS statuses over SSE on %s', (kind) => {
  const suite = signedInSuite({ kind, config: { livePollMs: 50 } });
  let second: Awaited<ReturnType<typeof buildApp>>;
  let base: string;
  let operator: Session;
  let other: Session;
  let consumer: { stop: () => Promise<void>; poke: () => Promise<void> };
  let relay: Relay;

  beforeAll(async () => {
    // A second instance on the same database: the browsers connect to it, the change and the consumer are on the first.
    second = await buildApp({ config: suite.t.config, db: suite.t.db, logger: false });
    await second.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(second.server.address() as { port: number }).port}`;
    operator = await signIn(suite.t.app, DEMO.operator);
    other = await signIn(suite.t.app, 'admin@other.example.com');
    await suite.t.db.query(`UPDATE organisations SET sms_quota = 100000, sms_used = 0 WHERE id = 'org-demo'`);
    // The seed may leave another organisation's SMS on its way (a day's draw). Delivered before the consumer starts (its
    // event is then in the past), the network step below delivers only this organisation's, and the other stream has
    // nothing of its own to hear.
    await suite.t.db.query(`UPDATE sms_records SET status = 'delivered', delivered_at = now() WHERE org_id <> 'org-demo' AND status IN ('pending', 'sent')`);
    // The first instance runs the relay and the consumer (as an instance with jobs does); its first claim starts it at
    // the present.
    relay = startRelay(suite.t.db, suite.t.app.log, { pollMs: 50 });
    consumer = startConsumer(suite.t.db, suite.t.app.log, { name: LIVE_CONSUMER, handle: liveHandle, pollMs: 50, relay });
    await consumer.poke();
  });
  afterAll(async () => {
    await consumer.stop();
    await relay.stop();
    await second.close();
  });

  const connect = (s: Session) => fetch(`${base}/api/identity/sse/connect?userId=${s.accountId}`, { headers: s.headers });

  it("carries an SMS delivered, one failed and the device's reply to the organisation's stream on another instance, and nothing to another organisation", async () => {
    const mine = collect(await connect(operator));
    const theirs = collect(await connect(other));
    await until('both streams open', () => mine.frames.length > 0 && theirs.frames.length > 0 && second.live.size === 2);

    const sim = (
      await suite.t.db.query<{ iccid: string }>(
        `SELECT iccid FROM sims WHERE org_id = 'org-demo' AND status = 'active' AND msisdn IS NOT NULL ORDER BY iccid LIMIT 1`,
      )
    ).rows[0];
    const pre = (
      await suite.t.db.query<{ iccid: string }>(
        `SELECT iccid FROM sims WHERE org_id = 'org-demo' AND status = 'pre_activated' AND msisdn IS NOT NULL ORDER BY iccid LIMIT 1`,
      )
    ).rows[0];
    const res = await call(suite.t.app, operator, { method: 'POST', url: '/api/main/sms/send', payload: { iccids: [sim.iccid, pre.iccid], content: 'LIVE?' } });
    expect(res.statusCode, res.body).toBe(200);
    const [mt, toPre] = res.json().data.results.map((r: { smsId: string }) => r.smsId);
    // The network reports: the first delivered (and the device answers), the second failed.
    await new SimulatedNetwork(suite.t.db, networkReports(suite.t.db), { enabled: true, seed: 'live', simsPerTick: 1000, moReplyChance: 1 }).step(
      new Date(Date.now() - 5000),
    );
    const reply = (await suite.t.db.query<{ id: string }>('SELECT id FROM sms_records WHERE reply_to_id = $1', [mt])).rows[0].id;

    const sms = () => mine.frames.filter((f) => f.event === 'sms').map((f) => f.data as LiveSmsData);
    await until('the three changes on the stream', () => {
      const ids = new Set(sms().flatMap((d) => d.smsIds));
      return ids.has(mt) && ids.has(toPre) && ids.has(reply);
    });
    const statuses = new Set(sms().flatMap((d) => d.statuses));
    expect([...statuses].sort()).toEqual(expect.arrayContaining(['delivered', 'failed', 'received']));
    expect(sms().every((d) => d.scheduleIds.length === 0)).toBe(true);
    // The other organisation's stream (same instance, same moment) got its ready frame and nothing else.
    expect(
      theirs.frames.map((f) => f.event),
      JSON.stringify(theirs.frames),
    ).toEqual(['ready']);
    await mine.stop();
    await theirs.stop();
  });

  it("tells the organisation's stream that a scheduled run ended and which schedule its messages belong to", async () => {
    const admin = await signIn(suite.t.app, DEMO.admin);
    const mine = collect(await connect(admin));
    await until('the stream open', () => mine.frames.length > 0);
    const sims = (
      await suite.t.db.query<{ iccid: string }>(
        `SELECT iccid FROM sims WHERE org_id = 'org-demo' AND status = 'active' AND msisdn IS NOT NULL ORDER BY iccid LIMIT 3 OFFSET 10`,
      )
    ).rows.map((r) => r.iccid);
    const made = await call(suite.t.app, admin, {
      method: 'POST',
      url: '/api/customer/sms/task',
      payload: {
        name: 'Live run',
        content: 'PING',
        smsType: 'text',
        mode: 'once',
        weekdays: [1],
        sendTime: '09:00',
        startAt: new Date(Date.now() + 60_000).toISOString(),
        timezone: 'UTC',
        neverEnds: true,
        iccids: sims,
        emailNotify: false,
      },
    });
    expect(made.statusCode, made.body).toBe(200);
    const id = made.json().data.id as string;
    await suite.t.db.query(`UPDATE sms_schedules SET status = 'disabled', next_run_at = NULL WHERE id <> $1`, [id]);
    await suite.t.db.query(`UPDATE sms_schedule_runs SET status = 'done', ended_at = now() WHERE status = 'running' AND schedule_id <> $1`, [id]);
    // The run, as an instance with jobs makes it two minutes on; then the network delivers its messages.
    await new SmsScheduler(suite.t.db, suite.t.app.network, suite.t.app.mailer, suite.t.app.log, {
      leaseSeconds: 60,
      clock: () => new Date(Date.now() + 120_000),
    }).tick();
    await new SimulatedNetwork(suite.t.db, networkReports(suite.t.db), { enabled: true, seed: 'live-run', simsPerTick: 1000, moReplyChance: 0 }).step(
      new Date(Date.now() - 5000),
    );
    const delivered = (await suite.t.db.query<{ id: string }>(`SELECT id FROM sms_records WHERE schedule_id = $1 AND status = 'delivered'`, [id])).rows.map(
      (r) => r.id,
    );
    expect(delivered).toHaveLength(3);
    const sms = () => mine.frames.filter((f) => f.event === 'sms').map((f) => f.data as LiveSmsData);
    await until('the run and its deliveries on the stream', () => {
      const ids = new Set(sms().flatMap((d) => d.smsIds));
      return sms().some((d) => d.scheduleIds.includes(id)) && delivered.every((m) => ids.has(m));
    });
    expect(
      sms()
        .filter((d) => d.smsIds.some((m) => delivered.includes(m)))
        .every((d) => d.scheduleIds.includes(id)),
    ).toBe(true);
    await mine.stop();
  });
});
