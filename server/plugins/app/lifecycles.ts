/**
 * The services' lifecycles: what starts once the server is ready (on instances that run jobs, and the simulated
 * traffic where it runs) and what stops when it closes, in that order.
 */
import fp from 'fastify-plugin';
import { startReportScheduler } from '../../job/report-jobs.js';
import { startMaintenance } from '../../job/maintenance.js';
import { startConsumer } from '../../events/event-log.js';
import { LIVE_CONSUMER, liveHandle } from '../../live/live-consumer.js';
import { CONSUMER as AUTOFLOW_CONSUMER, handleEvents as autoflowHandle } from '../../autoflow/engine.js';
import { startSchedule as startAutoflowSchedule } from '../../autoflow/schedule.js';
import { CONSUMER as WEBHOOK_CONSUMER, queueDeliveries } from '../../developer/webhooks.js';
import { startBundleJob } from '../../network/bundle-engine.js';
import { startInvoiceJob } from '../../billing/invoice-job.js';
import { startPoolJob } from '../../pool/pool-engine.js';
import { nowFrom } from '../../http/clock.js';

export default fp(
  async (app) => {
    const { config, db, live, network, jobs, webhooks, autoflowActions, smsScheduler, dashboardSnapshots: snapshots } = app;
    const now = () => nowFrom(config.clock);
    // Open event streams would keep close() waiting: end them first.
    app.addHook('preClose', async () => live.close());
    if (config.jobs) app.addHook('onReady', async () => jobs.start(config.jobPollMs));
    // Last month's reports on the 5th to 8th (UTC+8), from every instance that runs jobs; the database keeps them single.
    let stopReports = async () => {};
    if (config.jobs) app.addHook('onReady', async () => void (stopReports = startReportScheduler(db, app.log)));
    // Pruning of the dashboard's per-SIM hours, on the dashboard's clock; every instance that runs jobs may do it.
    let stopMaintenance = async () => {};
    if (config.jobs) app.addHook('onReady', async () => void (stopMaintenance = startMaintenance(db, app.log, now)));
    if (config.simulator) app.addHook('onReady', async () => network.start());
    // Bundles and cycles by time (issue 19): once across the instances that run jobs, under a lease.
    let stopBundleJob = async () => {};
    if (config.jobs) app.addHook('onReady', async () => void (stopBundleJob = startBundleJob(db, network, app.log, now)));
    // Invoices of the closed month (issue 20): once across the instances that run jobs, under a lease; idempotent.
    let stopInvoiceJob = async () => {};
    if (config.jobs) app.addHook('onReady', async () => void (stopInvoiceJob = startInvoiceJob(db, app.log, now)));
    // Shared pools (issue 19): cycles, enrolments and exits, the daily size, overage; once across instances, under a lease.
    let stopPoolJob = async () => {};
    if (config.jobs) app.addHook('onReady', async () => void (stopPoolJob = startPoolJob(db, network, app.log, now)));
    // Webhooks: the `webhooks` consumer queues deliveries from the event log. Autoflow: the `autoflow` consumer matches
    // events to rules and writes their runs, a scheduled evaluation fires the usage and time triggers, and the action
    // runner carries the runs' actions out. Live pages: the `live` consumer turns SMS events into live events of their
    // organisation. All on instances with jobs.
    let webhookConsumer: { stop: () => Promise<void> } | null = null;
    let autoflowConsumer: { stop: () => Promise<void> } | null = null;
    let liveConsumer: { stop: () => Promise<void> } | null = null;
    let stopAutoflowSchedule = async () => {};
    if (config.jobs) {
      app.addHook('onReady', async () => {
        webhookConsumer = startConsumer(db, app.log, { name: WEBHOOK_CONSUMER, handle: queueDeliveries, pollMs: config.jobPollMs, onCommitted: () => webhooks.wake() });
        webhooks.start();
        autoflowConsumer = startConsumer(db, app.log, { name: AUTOFLOW_CONSUMER, handle: autoflowHandle, pollMs: config.jobPollMs, onCommitted: () => autoflowActions.wake() });
        autoflowActions.start(config.jobPollMs);
        stopAutoflowSchedule = startAutoflowSchedule(db, app.log, { everyMs: config.autoflowScheduleSeconds * 1000, clock: config.clock, onFired: () => autoflowActions.wake() });
        liveConsumer = startConsumer(db, app.log, { name: LIVE_CONSUMER, handle: liveHandle, pollMs: config.jobPollMs });
      });
    }
    // Every instance that runs jobs ticks it; the database keeps each occurrence single (server/sms-schedules/scheduler.ts).
    if (config.jobs) app.addHook('onReady', async () => smsScheduler.start(Math.max(config.jobPollMs, 5000)));
    app.addHook('onClose', async () => {
      await stopReports();
      await stopMaintenance();
      await stopBundleJob();
      await stopInvoiceJob();
      await stopPoolJob();
      await network.stop();
      await jobs.stop();
      await smsScheduler.stop();
      await webhookConsumer?.stop();
      await autoflowConsumer?.stop();
      await liveConsumer?.stop();
      await stopAutoflowSchedule();
      await autoflowActions.stop();
      await webhooks.stop();
      await snapshots.idle();
    });
  },
  { name: 'lifecycles', dependencies: ['services'] },
);
