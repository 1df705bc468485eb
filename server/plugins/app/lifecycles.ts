/**
 * The services' lifecycles: what starts once the server is ready (on instances that run jobs, and the simulated
 * traffic where it runs) and what stops when it closes. Closing (SIGTERM, SIGINT: server/main.ts) stops every loop at
 * once, side by side: none takes new work; what is in flight may finish during the grace (server/job/hand-back.ts,
 * graceMs of SHUTDOWN_TIMEOUT_SECONDS), after which it is handed back for the next instance and the HTTP connections
 * still open are closed.
 */
import fp from 'fastify-plugin';
import { startReportScheduler } from '../../report/report-jobs.js';
import { startMaintenance } from '../../job/maintenance.js';
import { startConsumer, type ConsumerOptions } from '../../events/event-log.js';
import { connectEventBus, jetStreamEventStats, startJetStreamConsumer, type EventBus } from '../../events/jetstream.js';
import { startRelay, type Relay } from '../../events/relay.js';
import { LIVE_CONSUMER, liveHandle } from '../../live/live-consumer.js';
import { CONSUMER as AUTOFLOW_CONSUMER, handleEvents as autoflowHandle } from '../../autoflow/engine.js';
import { startSchedule as startAutoflowSchedule } from '../../autoflow/schedule.js';
import { CONSUMER as WEBHOOK_CONSUMER, queueDeliveries } from '../../developer/webhooks.js';
import { startBundleJob } from '../../bundles/bundle-engine.js';
import { startInvoiceJob } from '../../billing/invoice-job.js';
import { startPoolJob } from '../../pool/pool-engine.js';
import { nowFrom } from '../../http/clock.js';
import { endedBefore, graceMs } from '../../job/hand-back.js';

/** A loop's stop: waits for its work in flight, or hands it back once `handBack` aborts. */
type Stop = (handBack?: AbortSignal) => Promise<void>;

export default fp(
  async (app) => {
    const { config, db, live, network, jobs, webhooks, autoflowActions, smsScheduler, dashboardSnapshots: snapshots } = app;
    const now = () => nowFrom(config.clock);
    if (config.jobs) app.addHook('onReady', async () => jobs.start(config.jobPollMs));
    // Last month's reports on the 5th to 8th (UTC+8), from every instance that runs jobs; the database keeps them single.
    let stopReports: Stop = async () => {};
    if (config.jobs) app.addHook('onReady', async () => void (stopReports = startReportScheduler(db, app.log)));
    // Pruning of the dashboard's per-SIM hours, on the dashboard's clock; every instance that runs jobs may do it.
    let stopMaintenance: Stop = async () => {};
    if (config.jobs) app.addHook('onReady', async () => void (stopMaintenance = startMaintenance(db, app.log, now)));
    if (config.simulator) app.addHook('onReady', async () => network.start());
    // Bundles and cycles by time: once across the instances that run jobs, under a lease.
    let stopBundleJob: Stop = async () => {};
    if (config.jobs) app.addHook('onReady', async () => void (stopBundleJob = startBundleJob(db, network, app.log, now)));
    // Invoices of the closed month: once across the instances that run jobs, under a lease; idempotent.
    let stopInvoiceJob: Stop = async () => {};
    if (config.jobs) app.addHook('onReady', async () => void (stopInvoiceJob = startInvoiceJob(db, app.log, now)));
    // Shared pools: cycles, enrolments and exits, the daily size, overage; once across instances, under a lease.
    let stopPoolJob: Stop = async () => {};
    if (config.jobs) app.addHook('onReady', async () => void (stopPoolJob = startPoolJob(db, network, app.log, now)));
    // The relay numbers committed events of the log (server/events/relay.ts); each consumer pokes it at the start of
    // its round, so an event waits at most one poll. Webhooks: the `webhooks` consumer queues deliveries from the event
    // log. Autoflow: the `autoflow` consumer matches events to rules and writes their runs, a scheduled evaluation fires
    // the usage and time triggers, and the action runner carries the runs' actions out. Live pages: the `live` consumer
    // turns SMS events into live events of their organisation. All on instances with jobs.
    let relay: Relay | null = null;
    let webhookConsumer: { stop: Stop } | null = null;
    let autoflowConsumer: { stop: Stop } | null = null;
    let liveConsumer: { stop: Stop } | null = null;
    let stopAutoflowSchedule: Stop = async () => {};
    let bus: EventBus | null = null;
    let connecting: { stop: () => void; done: Promise<void> } | null = null;
    /** The three consumers, on the database or (with a bus) on JetStream; the relay publishes to the bus when there is one. */
    const startConsumers = (b: EventBus | null) => {
      relay = startRelay(db, app.log, { pollMs: config.jobPollMs, publisher: b?.publisher });
      const consume = (opts: ConsumerOptions) =>
        b ? startJetStreamConsumer(db, app.log, b, { ...opts, ackWaitSeconds: config.natsAckWaitSeconds }) : startConsumer(db, app.log, opts);
      webhookConsumer = consume({ name: WEBHOOK_CONSUMER, handle: queueDeliveries, pollMs: config.jobPollMs, relay, onCommitted: () => webhooks.wake() });
      autoflowConsumer = consume({
        name: AUTOFLOW_CONSUMER,
        handle: autoflowHandle,
        pollMs: config.jobPollMs,
        relay,
        onCommitted: () => autoflowActions.wake(),
      });
      liveConsumer = consume({ name: LIVE_CONSUMER, handle: liveHandle, pollMs: config.jobPollMs, relay });
      if (b) app.eventStats.read = () => jetStreamEventStats(b, db);
    };
    if (config.jobs) {
      app.addHook('onReady', async () => {
        if (config.natsUrl) {
          // NATS not answering at start does not stop the instance: writes go on, events wait in the outbox (nothing
          // numbers them), and the stream starts once NATS answers. After that the client reconnects by itself.
          const natsUrl = config.natsUrl;
          let stopped = false;
          let wake: () => void = () => {};
          const done = (async () => {
            for (let attempt = 0; !stopped; attempt++) {
              try {
                const b = await connectEventBus(natsUrl, app.log, { stream: config.natsStream, subjectPrefix: config.natsStream.toLowerCase() });
                if (stopped) return void (await b.close().catch(() => undefined));
                bus = b;
                startConsumers(b);
                return;
              } catch (err) {
                if (attempt === 0) app.log.error({ err }, 'NATS does not answer: events wait in the outbox until it does');
                await new Promise<void>((resolve) => {
                  wake = resolve;
                  setTimeout(resolve, 5000).unref();
                });
              }
            }
          })();
          connecting = { stop: () => ((stopped = true), wake()), done };
        } else startConsumers(null);
        webhooks.start();
        autoflowActions.start(config.jobPollMs);
        stopAutoflowSchedule = startAutoflowSchedule(db, app.log, {
          everyMs: config.autoflowScheduleSeconds * 1000,
          clock: config.clock,
          onFired: () => autoflowActions.wake(),
        });
      });
    }
    // Every instance that runs jobs ticks it; the database keeps each occurrence single (server/sms-schedules/scheduler.ts).
    if (config.jobs) app.addHook('onReady', async () => smsScheduler.start(Math.max(config.jobPollMs, 5000)));
    // Every loop told to stop at once; each hands back at `handBack` what it has not finished. Those that cannot hand
    // back (a simulator step, an autoflow run's short actions, a dashboard snapshot) are waited for until then too.
    const handBack = new AbortController();
    const upTo = (p: Promise<unknown>) => endedBefore(p, handBack.signal);
    // Never rejects: one loop failing to stop (its hand-back query refused) does not cut the others' stop short.
    const stopAll = async () => {
      // No consumer starts on the stream once stopping began; a connection being made is closed when it is made.
      const joined = connecting as { stop: () => void; done: Promise<void> } | null;
      joined?.stop();
      await joined?.done;
      const ends = await Promise.allSettled([
        stopReports(handBack.signal),
        stopMaintenance(handBack.signal),
        stopBundleJob(handBack.signal),
        stopInvoiceJob(handBack.signal),
        stopPoolJob(handBack.signal),
        upTo(network.stop()),
        jobs.stop(handBack.signal),
        smsScheduler.stop(handBack.signal),
        webhookConsumer?.stop(handBack.signal),
        autoflowConsumer?.stop(handBack.signal),
        liveConsumer?.stop(handBack.signal),
        relay?.stop(handBack.signal),
        stopAutoflowSchedule(handBack.signal),
        upTo(autoflowActions.stop()),
        webhooks.stop(handBack.signal),
        upTo(snapshots.idle()),
      ]);
      for (const e of ends) if (e.status === 'rejected') app.log.error({ err: e.reason }, 'a background loop failed to stop cleanly');
      // The stream's connection last: the consumers and the relay have ended (or been handed back) with it open.
      await (bus as EventBus | null)?.close().catch((err: unknown) => app.log.error({ err }, 'NATS connection did not close cleanly'));
    };
    let grace: NodeJS.Timeout | undefined;
    let stopping: Promise<void> | null = null;
    app.addHook('preClose', async () => {
      // Open event streams would keep close() waiting: end them first.
      live.close();
      grace = setTimeout(() => {
        handBack.abort();
        // Requests still being answered (a long download) end now; Fastify has refused new ones since closing began.
        (app.server as { closeAllConnections?: () => void }).closeAllConnections?.();
      }, graceMs(config.shutdownTimeoutSeconds));
      grace.unref();
      // Started here, before the server waits for its requests to end, so the loops take no new work meanwhile.
      stopping = stopAll();
    });
    app.addHook('onClose', async () => {
      await (stopping ??= stopAll());
      clearTimeout(grace);
    });
  },
  { name: 'lifecycles', dependencies: ['services'] },
);
