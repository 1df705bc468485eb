/** Builds the Fastify app: external plugins, then app plugins, then routes (like fastify/demo's app.ts). */
import fs from 'node:fs';
import path from 'node:path';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest, type FastifyError } from 'fastify';
import compress from '@fastify/compress';
import cookie from '@fastify/cookie';
import helmet from '@fastify/helmet';
import fastifyStatic from '@fastify/static';
import multipart from '@fastify/multipart';
import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import { CODES, messageKeyOf } from '../common/errors.js';
import { LIMITS, pickLanguage } from '../common/limits.js';
import { translate } from '../common/i18n.js';
import type { Config } from './config.js';
import type { Db } from './db/db.js';
import { newId } from './db/ids.js';
import { ApiError } from './http/api-error.js';
import context from './http/context.js';
import inputGuard, { BodyError } from './http/input-guard.js';
import rateLimits from './http/rate-limit.js';
import { registerRoutes, type RouteDef } from './http/route.js';
import { TokenService } from './identity/tokens.js';
import { createMailer, type Mailer } from './identity/mailer.js';
import { ALL_ROUTES } from './routes.js';
import { startSchemaResources } from './main/schema-routes.js';
import { EXPORT_JOBS } from './job/export-jobs.js';
import { DEVICE_EXPORT_JOBS } from './main/device-usage-routes.js';
import { UPLOAD_JOBS } from './job/upload-jobs.js';
import { REPORT_JOBS, startReportScheduler } from './job/report-jobs.js';
import { startMaintenance } from './job/maintenance.js';
import { startConsumer } from './events/event-log.js';
import { LIVE_CONSUMER, liveHandle } from './live/live-consumer.js';
import { CONSUMER as AUTOFLOW_CONSUMER, handleEvents as autoflowHandle } from './autoflow/engine.js';
import { ActionRunner } from './autoflow/actions.js';
import { startSchedule as startAutoflowSchedule } from './autoflow/schedule.js';
import { publicApiLog } from './developer/public-api.js';
import { CONSUMER as WEBHOOK_CONSUMER, queueDeliveries, WebhookDispatcher } from './developer/webhooks.js';
import { DashboardSnapshots } from './main/dashboard-snapshots.js';
import { filesIn, type FileStore } from './job/storage.js';
import { JobWorker } from './job/worker.js';
import type { ResourceSchema } from '../common/resources.js';
import { LiveHub } from './live/hub.js';
import { activationJob } from './network/activation.js';
import { startBundleJob } from './network/bundle-engine.js';
import { startInvoiceJob } from './billing/invoice-job.js';
import { startPoolJob } from './pool/pool-engine.js';
import { networkReports } from './network/reports.js';
import { SimulatedNetwork } from './network/simulator.js';
import { smsExportJob } from './sms/sms-export.js';
import { noSink, sentrySink, type ErrorSink } from './public/error-sink.js';
import { SmsScheduler } from './sms-schedules/scheduler.js';
import { smsReportJob } from './sms-schedules/task-reports.js';

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
    envelope(req: FastifyRequest, data: unknown): { status: { code: string; success: boolean; message: string }; data: unknown };
  }
}

export interface BuildOptions {
  config: Config;
  db: Db;
  /** Extra routes (tests register fixtures this way). */
  routes?: RouteDef[];
  logger?: boolean;
}

/** Build the app on an open, migrated database. */
export async function buildApp({ config, db, routes = [], logger = true }: BuildOptions): Promise<FastifyInstance> {
  // With a certificate the server ends TLS itself and speaks HTTP/2 to browsers that offer it (one connection for the
  // console's ~80 files instead of six at a time), HTTP/1.1 to other clients. The routes see the same requests either way.
  const tls = config.tls
    ? { http2: true as const, https: { allowHTTP1: true, cert: fs.readFileSync(config.tls.certFile), key: fs.readFileSync(config.tls.keyFile) } }
    : {};
  const app = Fastify({
    // The HTTP/2 options' types describe another server type; the instance is used as the HTTP/1.1 one (cast below).
    ...(tls as object),
    logger: logger ? { level: config.logLevel, redact: ['req.headers.authorization', 'req.headers.cookie'] } : false,
    genReqId: (req) => (typeof req.headers['x-request-id'] === 'string' && /^[\w-]{1,64}$/.test(req.headers['x-request-id']) ? req.headers['x-request-id'] : newId(16)),
    // Forwarded headers only from the proxies named in TRUST_PROXY (none by default): req.ip and req.protocol.
    trustProxy: config.trustProxy,
    bodyLimit: 2 * 1024 * 1024,
    // A URL whose percent-encoding is not UTF-8 never reaches a route: answered here, in the envelope, naming the URL.
    frameworkErrors: (err, req, reply) => {
      const lang = pickLanguage(req.headers.language as string | undefined);
      const bad = err.code === 'FST_ERR_BAD_URL';
      return (reply as FastifyReply).status(400).send({
        status: { code: bad ? CODES.validation : CODES.badRequest, success: false, message: bad ? translate(lang, 'errors.validation', { field: 'url', rule: translate(lang, 'rules.badUrl') }) : translate(lang, 'errors.badRequest') },
        data: bad ? { field: 'url', rule: 'badUrl' } : null,
      });
    },
   }) as unknown as FastifyInstance;
  // Bodies are checked strictly (no type coercion, unknown fields rejected with a 400: docs/decisions.md);
  // query strings and path parameters arrive as text and are coerced to their declared types.
  const ajvFor = (coerce: boolean) => {
    const ajv = new Ajv({ removeAdditional: false, coerceTypes: coerce ? 'array' : false, useDefaults: true, allErrors: false, verbose: true, keywords: ['x-admin', 'x-rule', 'x-money', 'x-percent', 'x-country'] });
    const add = ((addFormats as unknown as { default?: unknown }).default ?? addFormats) as (a: Ajv) => void;
    add(ajv);
    return ajv;
  };
  const strictAjv = ajvFor(false);
  const coercingAjv = ajvFor(true);
  app.setValidatorCompiler(({ schema, httpPart }) => (httpPart === 'body' ? strictAjv : coercingAjv).compile(schema));

  // External plugins.
  await app.register(cookie);
  // Uploads (SPEC.md section 5): one file of at most 1 MB per request; a larger one is refused by name below.
  await app.register(multipart, { limits: { fileSize: LIMITS.uploadBytes, files: 1, fields: 50, fieldSize: LIMITS.uploadBytes } });
  await app.register(helmet, {
    contentSecurityPolicy: {
      directives: {
        defaultSrc: ["'self'"],
        scriptSrc: ["'self'"],
        // antd writes its styles at run time.
        styleSrc: ["'self'", "'unsafe-inline'"],
        imgSrc: ["'self'", 'data:', 'blob:'],
        connectSrc: ["'self'"],
        fontSrc: ["'self'", 'data:'],
        frameAncestors: ["'none'"],
        objectSrc: ["'none'"],
        baseUri: ["'self'"],
        formAction: ["'self'"],
      },
    },
    crossOriginEmbedderPolicy: false,
  });
  // The API's answers of 1 KB and more are compressed (brotli or gzip, as the client accepts; small ones are not).
  // The console's files are not: they are compressed at build time (scripts/precompress.ts) and @fastify/static sends
  // the .br or .gz beside each. Event streams are written raw (reply.hijack) and never pass through this hook.
  // Request bodies are not decompressed (as before).
  app.addHook('onRoute', (route) => {
    if (!route.url.startsWith('/api/')) route.compress = false;
  });
  await app.register(compress, { global: true, globalDecompression: false, threshold: 1024, encodings: ['br', 'gzip'] });

  // App plugins.
  app.decorate('config', config);
  app.decorate('db', db);
  app.decorate('tokens', await TokenService.create(db, config.accessTokenTtlSeconds));
  app.decorate('mailer', createMailer(db, config));
  const live = new LiveHub(db, config.livePollMs);
  app.decorate('live', live);
  app.decorate('errorSink', config.sentryDsn ? sentrySink(config.sentryDsn, (m) => app.log.warn(m)) : noSink);
  // Open event streams would keep close() waiting: end them first.
  app.addHook('preClose', async () => live.close());
  const files = filesIn(config.dataDir);
  app.decorate('files', files);
  // The network answers commands whether or not its simulated traffic runs (SIMULATOR=off stops only the traffic).
  // The reports tell the network a SIM's new data policy (issue 19): they reach it once it exists.
  const network: SimulatedNetwork = new SimulatedNetwork(
    db,
    networkReports(db, () => network),
    {
      enabled: config.simulator, seed: config.simulatorSeed, tickMs: config.simulatorTickMs, simsPerTick: config.simulatorSimsPerTick,
      smsDeliveryMs: config.simulatorSmsDeliveryMs ?? undefined, moReplyChance: config.simulatorMoReplyChance,
    },
    app.log,
  );
  app.decorate('network', network);
  const jobs = new JobWorker(db, files, { ...EXPORT_JOBS, ...DEVICE_EXPORT_JOBS, ...UPLOAD_JOBS, ...REPORT_JOBS, sms_export: smsExportJob, sms_report: smsReportJob, sim_activate: activationJob(network, { answerWaitMs: config.activationAnswerMinutes * 60_000 }) }, app.log, config.jobLeaseSeconds, () => app.mailer.sendPendingNotices());
  app.decorate('jobs', jobs);
  if (config.jobs) app.addHook('onReady', async () => jobs.start(config.jobPollMs));
  // Last month's reports on the 5th to 8th (UTC+8), from every instance that runs jobs; the database keeps them single.
  let stopReports = () => {};
  if (config.jobs) app.addHook('onReady', async () => void (stopReports = startReportScheduler(db, app.log)));
  // Pruning of the dashboard's per-SIM hours, on the dashboard's clock; every instance that runs jobs may do it.
  let stopMaintenance = async () => {};
  if (config.jobs) app.addHook('onReady', async () => void (stopMaintenance = startMaintenance(db, app.log, () => config.clock?.() ?? new Date())));
  if (config.simulator) app.addHook('onReady', async () => network.start());
  // Bundles and cycles by time (issue 19): once across the instances that run jobs, under a lease.
  let stopBundleJob = async () => {};
  if (config.jobs) app.addHook('onReady', async () => void (stopBundleJob = startBundleJob(db, network, app.log, () => config.clock?.() ?? new Date())));
  // Invoices of the closed month (issue 20): once across the instances that run jobs, under a lease; idempotent.
  let stopInvoiceJob = async () => {};
  if (config.jobs) app.addHook('onReady', async () => void (stopInvoiceJob = startInvoiceJob(db, app.log, () => config.clock?.() ?? new Date())));
  // Shared pools (issue 19): cycles, enrolments and exits, the daily size, overage; once across instances, under a lease.
  let stopPoolJob = async () => {};
  if (config.jobs) app.addHook('onReady', async () => void (stopPoolJob = startPoolJob(db, network, app.log, () => config.clock?.() ?? new Date())));
  // Webhooks: the event log's `webhooks` consumer queues deliveries, the dispatcher sends them (instances with jobs).
  const webhooks = new WebhookDispatcher(db, app.log, { allowPrivate: () => config.webhookAllowPrivate, mailer: app.mailer, pollMs: config.jobPollMs });
  app.decorate('webhooks', webhooks);
  let webhookConsumer: { stop: () => Promise<void> } | null = null;
  // Autoflow: the event log's `autoflow` consumer matches events to rules and writes their runs, a scheduled evaluation
  // fires the usage and time triggers, and the action runner carries the runs' actions out (instances with jobs).
  let autoflowConsumer: { stop: () => Promise<void> } | null = null;
  // Live pages: the event log's `live` consumer turns SMS events into live events of their organisation (instances with jobs).
  let liveConsumer: { stop: () => Promise<void> } | null = null;
  const autoflowActions = new ActionRunner(db, network, app.mailer, app.log);
  app.decorate('autoflowActions', autoflowActions);
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
  const smsScheduler = new SmsScheduler(db, network, app.mailer, app.log, { leaseSeconds: config.jobLeaseSeconds, clock: config.clock });
  app.decorate('smsScheduler', smsScheduler);
  // Every instance that runs jobs ticks it; the database keeps each occurrence single (server/sms-schedules/scheduler.ts).
  if (config.jobs) app.addHook('onReady', async () => smsScheduler.start(Math.max(config.jobPollMs, 5000)));
  const snapshots = new DashboardSnapshots(db, config, app.log);
  app.decorate('dashboardSnapshots', snapshots);
  app.addHook('onClose', async () => {
    stopReports();
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
  app.decorate('envelope', (req: FastifyRequest, data: unknown) => ({
    status: { code: CODES.ok, success: true, message: translate(req.lang, 'errors.ok') },
    data,
  }));
  // Before the context: a NUL in partnerCode must not reach the membership query either.
  await app.register(inputGuard);
  await app.register(context);
  await app.register(rateLimits);
  await app.register(publicApiLog);

  app.setErrorHandler((err: FastifyError | ApiError, req, reply) => {
    const lang = req.lang ?? 'en-US';
    // A field a schema labels itself (a resource of SCHEMAS_DIR) is named by that label.
    const labels = req.routeOptions?.config?.routeDef?.labels?.[lang];
    const label = (field: string) => labels?.[field] ?? field;
    if (err instanceof ApiError) {
      const { ruleKey, entityKey, ...rest } = err.params as { ruleKey?: string; entityKey?: string; field?: string };
      const named = rest.field ? { ...rest, field: label(rest.field) } : entityKey ? { ...rest, entity: translate(lang, `entities.${entityKey}`) } : rest;
      const params = ruleKey ? { ...named, rule: translate(lang, `rules.${ruleKey}`, rest) } : named;
      return reply.status(err.statusCode).send({
        status: { code: err.code, success: false, message: translate(lang, err.messageKey, params) },
        data: err.data ?? (ruleKey ? { field: rest.field, rule: ruleKey } : null),
      });
    }
    const fe = err as FastifyError;
    const bodyProblem = bodyProblemOf(fe, req.body);
    if (bodyProblem) {
      return reply.status(bodyProblem.status).send({
        status: { code: CODES.validation, success: false, message: translate(lang, `errors.${bodyProblem.key}`, { limit: `${Math.round((req.routeOptions.bodyLimit ?? app.initialConfig.bodyLimit ?? 0) / 1024)} KB` }) },
        data: { field: 'body', rule: bodyProblem.key },
      });
    }
    if (fe.validation && fe.validation.length > 0) {
      const v = fe.validation[0];
      const { field, rule, params } = describeAjvError(v as never, fe.validationContext);
      return reply.status(400).send({
        status: { code: CODES.validation, success: false, message: translate(lang, 'errors.validation', { field: label(field), rule: translate(lang, `rules.${rule}`, params) }) },
        data: { field, rule },
      });
    }
    if (fe.code === 'FST_REQ_FILE_TOO_LARGE') {
      const params = { limit: `${LIMITS.uploadBytes / (1024 * 1024)} MB` };
      return reply.status(400).send({
        status: { code: CODES.validation, success: false, message: translate(lang, 'errors.validation', { field: 'file', rule: translate(lang, 'rules.maximum', params) }) },
        data: { field: 'file', rule: 'maximum' },
      });
    }
    const status = fe.statusCode ?? 500;
    if (status >= 400 && status < 500) {
      const code = status === 404 ? CODES.notFound : status === 429 ? CODES.tooManyRequests : CODES.badRequest;
      return reply.status(status).send({ status: { code, success: false, message: translate(lang, messageKeyOf(code), { minutes: 15 }) }, data: null });
    }
    // 5xx: log everything, tell the caller only a reference.
    req.log.error({ err }, 'request failed');
    return reply.status(500).send({ status: { code: CODES.internal, success: false, message: translate(lang, 'errors.internal', { ref: req.id }) }, data: null });
  });

  // Routes.
  app.get('/api/health', { config: { permission: 'public' } }, async (req, reply) => {
    try {
      const r = await db.query<{ ok: number }>('SELECT 1 AS ok');
      return app.envelope(req, { status: 'ok', database: { kind: db.kind, ok: r.rows[0]?.ok === 1 } });
    } catch {
      return reply.status(503).send({ status: { code: CODES.internal, success: false, message: 'database unavailable' }, data: { status: 'down', database: { kind: db.kind, ok: false } } });
    }
  });
  // Resources of SCHEMAS_DIR join schemas/; those stored generically get their calls answered from their table.
  const { resources, routes: generic } = await startSchemaResources(db, config.schemasDir, app.log);
  app.decorate('resources', resources);
  const all = [...ALL_ROUTES, ...generic, ...routes];
  app.decorate('routeDefs', all);
  registerRoutes(app, all);

  // The built console, with the SPA fallback for its routes.
  const index = path.join(config.consoleDir, 'index.html');
  const hasConsole = fs.existsSync(index);
  if (hasConsole) {
    // Content negotiation: the .br or .gz written beside each file at build time, by Accept-Encoding (Vary says so).
    // Hashed files (assets/) never change under their name; index.html must be asked for again on every visit.
    await app.register(fastifyStatic, { root: config.consoleDir, wildcard: false, index: false, preCompressed: true, cacheControl: false, setHeaders: consoleCacheHeaders(config.consoleDir) });
  }
  app.setNotFoundHandler((req, reply) => {
    // A missing API path, or a missing built file (an old page asking for assets of an earlier build), is a 404,
    // never the console's index.html served as that file.
    if (req.url.startsWith('/api/') || req.url.startsWith('/assets/') || req.method !== 'GET') {
      // Named as a missing call, so that a client tells a wrong URL from a wrong id (a record's 404 names the record).
      const path = req.url.split('?')[0].slice(0, 200);
      return reply.status(404).send({ status: { code: CODES.notFound, success: false, message: translate(req.lang, 'errors.noRoute', { method: req.method, path }) }, data: null });
    }
    if (!hasConsole) return reply.status(404).type('text/plain').send('The console is not built: run npm run build.');
    return reply.type('text/html').sendFile('index.html');
  });

  return app;
}

/** Cache-Control of the console's files: a year and immutable under assets/ (hashed names), no-cache for index.html. */
function consoleCacheHeaders(root: string) {
  const assets = path.join(root, 'assets') + path.sep;
  return (reply: { header(name: string, value: string): unknown }, file: string) => {
    if (file.startsWith(assets)) reply.header('cache-control', 'public, max-age=31536000, immutable');
    else if (/[\\/]index\.html(?:\.br|\.gz)?$/.test(file)) reply.header('cache-control', 'no-cache');
    else reply.header('cache-control', 'public, max-age=3600');
  };
}

/** A body that could not be read, or is missing where the route needs one: which message says so, and the status. */
function bodyProblemOf(fe: FastifyError, body: unknown): { key: string; status: number } | null {
  if (fe instanceof BodyError) return { key: fe.key, status: 400 };
  switch (fe.code) {
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return { key: 'bodyRequired', status: 400 };
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return { key: 'bodyNotJson', status: 400 };
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return { key: 'bodyMediaType', status: 415 };
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return { key: 'bodyTooLarge', status: 413 };
  }
  // A route that reads a JSON object got none: nothing at all, or text sent as text/plain.
  const first = fe.validation?.[0] as { instancePath?: string; keyword?: string } | undefined;
  if (first && fe.validationContext === 'body' && first.instancePath === '' && first.keyword === 'type') {
    if (body === undefined || body === null) return { key: 'bodyRequired', status: 400 };
    if (typeof body === 'string') return { key: 'bodyMediaType', status: 415 };
  }
  return null;
}

/** Turn an ajv error into the field it concerns and the rule it broke. */
function describeAjvError(
  v: { keyword: string; instancePath: string; params: Record<string, unknown>; parentSchema?: Record<string, unknown> },
  where?: string,
): { field: string; rule: string; params: Record<string, unknown> } {
  const pathField = v.instancePath.split('/').filter(Boolean).join('.');
  // A property that names its own rule (x-rule: "password") is refused with that rule's message, whichever check failed.
  const own = v.parentSchema?.['x-rule'];
  if (typeof own === 'string' && v.keyword !== 'type' && v.keyword !== 'required') return { field: pathField || where || 'body', rule: own, params: {} };
  switch (v.keyword) {
    case 'required':
      return { field: String(v.params.missingProperty), rule: 'required', params: {} };
    case 'additionalProperties':
      return { field: String(v.params.additionalProperty), rule: 'additionalProperties', params: {} };
    case 'minLength':
    case 'maxLength':
    case 'minimum':
    case 'maximum':
    case 'minItems':
    case 'maxItems':
      return { field: pathField || where || 'body', rule: v.keyword, params: { limit: v.params.limit } };
    case 'enum':
      return { field: pathField || where || 'body', rule: 'enum', params: { values: (v.params.allowedValues as unknown[]).join(', ') } };
    case 'format':
      return { field: pathField || where || 'body', rule: v.params.format === 'email' ? 'email' : 'format', params: { format: v.params.format } };
    case 'type':
      return { field: pathField || where || 'body', rule: 'type', params: { type: v.params.type } };
    default:
      return { field: pathField || where || 'body', rule: v.keyword in RULES ? v.keyword : 'pattern', params: v.params };
  }
}
const RULES = { pattern: 1, const: 1, uniqueItems: 1, minProperties: 1 };
