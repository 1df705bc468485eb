/**
 * The services every route and job shares, decorated onto the instance: configuration, database, tokens, mail, live
 * streams, per-call state (Redis or the database), error sink, stored files, the network, the job worker, webhooks, autoflow actions, scheduled SMS and the
 * dashboard's snapshots. They are started and stopped by app/lifecycles.ts.
 */
import fp from 'fastify-plugin';
import type { FastifyRequest } from 'fastify';
import type { Config } from '../../config.js';
import type { Db } from '../../db/db.js';
import { TokenService } from '../../identity/tokens.js';
import { createMailer, type Mailer } from '../../identity/mailer.js';
import { EXPORT_JOBS } from '../../job/export-jobs.js';
import { DEVICE_EXPORT_JOBS } from '../../sim/device-usage-routes.js';
import { UPLOAD_JOBS } from '../../sim/sim-upload-jobs.js';
import { REPORT_JOBS } from '../../report/report-jobs.js';
import { INVOICE_JOBS } from '../../billing/invoice-tasks.js';
import { ActionRunner } from '../../autoflow/actions.js';
import { WebhookDispatcher } from '../../developer/webhooks.js';
import { DashboardSnapshots } from '../../dashboard/dashboard-snapshots.js';
import { filesIn, type FileStore } from '../../job/storage.js';
import { JobWorker } from '../../job/worker.js';
import type { ResourceSchema } from '../../../common/resources.js';
import type { RouteDef } from '../../http/route.js';
import { LiveHub } from '../../live/hub.js';
import { activationJob } from '../../sim/activation.js';
import { networkReports } from '../../network-reports/network-reports.js';
import { SimulatedNetwork } from '../../network/simulator.js';
import { smsExportJob } from '../../sms/sms-export.js';
import { noSink, sentrySink, type ErrorSink } from '../../public/error-sink.js';
import { SmsScheduler } from '../../sms-schedules/scheduler.js';
import { smsReportJob } from '../../sms-schedules/task-reports.js';
import type { Redis } from 'ioredis';
import { connectRedis } from '../../http/redis.js';
import { databaseFailures, redisFailures, type SignInFailures } from '../../identity/sign-in-throttle.js';
import { databaseChallenges, redisChallenges, type ChallengeStore } from '../../identity/captcha.js';

declare module 'fastify' {
  interface FastifyInstance {
    config: Config;
    db: Db;
    tokens: TokenService;
    mailer: Mailer;
    live: LiveHub;
    errorSink: ErrorSink;
    routeDefs: RouteDef[];
    /** Every resource schema: schemas/ and SCHEMAS_DIR. */
    resources: ResourceSchema[];
    /** The generic list, show, create, edit and delete routes of the schema resources stored in their own table. */
    schemaRoutes: RouteDef[];
    /** Stored files' bytes (exports, reports). */
    files: FileStore;
    /** The job worker of this instance. */
    jobs: JobWorker;
    /** Autoflow runs' actions, as durable jobs (server/autoflow/actions.ts); tests call runOnce(). */
    autoflowActions: ActionRunner;
    /** The core network: the simulator (server/network), behind the NetworkAdapter interface. */
    network: SimulatedNetwork;
    /** Large organisations' top 10 and heatmap, stored and refreshed in the background. */
    dashboardSnapshots: DashboardSnapshots;
    /** Webhook deliveries: queued from the event log, sent and retried by every instance that runs jobs. */
    webhooks: WebhookDispatcher;
    /** Scheduled SMS: due occurrences become runs, runs are claimed with a lease and sent (instances with jobs). */
    smsScheduler: SmsScheduler;
    /** The Redis connection of per-call state (REDIS_URL), or null: then that state lives in the database. */
    redis: Redis | null;
    /** Failed sign-ins, counted for the throttle: in Redis or the database. */
    signInFailures: SignInFailures;
    /** The picture challenges' answers: in Redis or the database. */
    challenges: ChallengeStore;
    envelope(req: FastifyRequest, data: unknown): { status: { code: string; success: boolean; message: string }; data: unknown };
  }
}

export default fp<{ config: Config; db: Db }>(
  async (app, { config, db }) => {
    app.decorate('config', config);
    app.decorate('db', db);
    app.decorate('tokens', await TokenService.create(db, config.accessTokenTtlSeconds));
    app.decorate('mailer', createMailer(db, config));
    app.decorate('live', new LiveHub(db, config.livePollMs));
    // Per-call state (rate-limit counters, failed sign-ins, challenges): in Redis when REDIS_URL is set.
    const redis = config.redisUrl ? await connectRedis(config.redisUrl, app.log) : null;
    app.decorate('redis', redis);
    app.decorate('signInFailures', redis ? redisFailures(redis, config.redisPrefix) : databaseFailures(db));
    app.decorate('challenges', redis ? redisChallenges(redis, config.redisPrefix) : databaseChallenges(db));
    if (redis) app.addHook('onClose', async () => void (await redis.quit().catch(() => redis.disconnect())));
    app.decorate('errorSink', config.sentryDsn ? sentrySink(config.sentryDsn, (m) => app.log.warn(m)) : noSink);
    const files = filesIn(config.dataDir);
    app.decorate('files', files);
    // The network answers commands whether or not its simulated traffic runs (SIMULATOR=off stops only the traffic).
    // The reports tell the network a SIM's new data policy: they reach it once it exists.
    const network: SimulatedNetwork = new SimulatedNetwork(
      db,
      networkReports(db, () => network),
      {
        enabled: config.simulator,
        seed: config.simulatorSeed,
        tickMs: config.simulatorTickMs,
        simsPerTick: config.simulatorSimsPerTick,
        smsDeliveryMs: config.simulatorSmsDeliveryMs ?? undefined,
        moReplyChance: config.simulatorMoReplyChance,
      },
      app.log,
    );
    app.decorate('network', network);
    app.decorate(
      'jobs',
      new JobWorker(
        db,
        files,
        {
          ...EXPORT_JOBS,
          ...DEVICE_EXPORT_JOBS,
          ...UPLOAD_JOBS,
          ...REPORT_JOBS,
          ...INVOICE_JOBS,
          sms_export: smsExportJob,
          sms_report: smsReportJob,
          sim_activate: activationJob(network, { answerWaitMs: config.activationAnswerMinutes * 60_000 }),
        },
        app.log,
        config.jobLeaseSeconds,
        () => app.mailer.sendPendingNotices(),
      ),
    );
    // Webhooks: the event log's `webhooks` consumer queues deliveries, the dispatcher sends them (instances with jobs).
    app.decorate(
      'webhooks',
      new WebhookDispatcher(db, app.log, { allowPrivate: () => config.webhookAllowPrivate, mailer: app.mailer, pollMs: config.jobPollMs }),
    );
    app.decorate('autoflowActions', new ActionRunner(db, network, app.mailer, app.log));
    app.decorate('smsScheduler', new SmsScheduler(db, network, app.mailer, app.log, { leaseSeconds: config.jobLeaseSeconds, clock: config.clock }));
    app.decorate('dashboardSnapshots', new DashboardSnapshots(db, config, app.log));
  },
  { name: 'services' },
);
