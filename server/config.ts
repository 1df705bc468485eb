/** Configuration from the environment (README: Configuration). */
import fs from 'node:fs';
import path from 'node:path';
import { ACTIVATION_ANSWER_MINUTES } from './sim/activation.js';
import { SCHEDULE_MINUTES } from './autoflow/schedule.js';
import { parseDsn } from './public/error-sink.js';
import { privateAllowanceOf, type PrivateAllowance } from './developer/ssrf.js';

export interface Config {
  port: number;
  host: string;
  dataDir: string;
  databaseUrl?: string;
  smtpUrl?: string;
  mailFrom: string;
  verificationCode?: string;
  production: boolean;
  accessTokenTtlSeconds: number;
  refreshTokenTtlDays: number;
  /** Caps shown as seats left (SPEC.md section 6); an organisation row may override them. */
  accountCap: number;
  orgCap: number;
  /** The most autoflow rules (not deleted) an organisation may have (SPEC.md section 5 leaves it open: docs/decisions.md). */
  autoflowMaxRules: number;
  /** Seconds between two scheduled evaluations of the usage and time rules (AUTOFLOW_SCHEDULE_SECONDS, default 300). */
  autoflowScheduleSeconds: number;
  /**
   * Seconds from SIGTERM or SIGINT to the process's exit (SHUTDOWN_TIMEOUT_SECONDS, default 10): work in flight
   * finishes or is handed back, the database is closed (server/job/hand-back.ts).
   */
  shutdownTimeoutSeconds: number;
  seed: boolean;
  /** The network simulator's traffic (SIMULATOR=off switches it off; commands to the network are answered either way). */
  simulator: boolean;
  /** Time between simulator steps. */
  simulatorTickMs: number;
  /** Active SIMs the simulator visits per step (also the bound on expiries and SMS per step). */
  simulatorSimsPerTick: number;
  /** Seed of the simulator's PRNG. */
  simulatorSeed: string;
  /**
   * When set, the network delivers each MT SMS this many milliseconds after it was handed over, whether or not its
   * traffic runs (SIMULATOR_SMS_DELIVERY_MS): the end-to-end runs, whose simulator is off, see SMS delivered.
   */
  simulatorSmsDeliveryMs: number | null;
  /** Chance that a device answers a delivered MT SMS (SIMULATOR_MO_REPLY_CHANCE, 0 to 1; default 0.3). */
  simulatorMoReplyChance: number;
  logLevel: string;
  /** A Sentry-compatible DSN that console error reports are also sent to. */
  sentryDsn?: string;
  /** How often an instance holding SSE connections reads new live events. */
  livePollMs: number;
  consoleDir: string;
  /** Run the job worker in this instance (exports and other tasks); tests drive it by hand. */
  jobs: boolean;
  jobPollMs: number;
  /** How long a task stays with an instance that stopped renewing it before another takes it over. */
  jobLeaseSeconds: number;
  /** Minutes the network has to answer an activation before its task ends as "issues" (ACTIVATION_ANSWER_MINUTES). */
  activationAnswerMinutes: number;
  /** Organisations of at most this many SIMs get the dashboard's top 10 and heatmap computed for each call; larger ones read a snapshot. */
  dashboardLiveSims: number;
  /** The age after which a large organisation's dashboard snapshot is computed again (in the background). */
  dashboardSnapshotSeconds: number;
  /** A folder of further resource schemas (docs/schemas.md), loaded beside schemas/ at start. */
  schemasDir?: string;
  /** The time the dashboard counts from; tests fix it, the server uses the wall clock. */
  clock?: () => Date;
  /**
   * Proxies whose forwarded headers (X-Forwarded-For, -Proto, -Host) are believed: addresses or CIDRs, as Fastify's
   * trustProxy takes them. false (the default) believes none, so the client address is the connection's.
   */
  trustProxy: false | string[];
  /** Requests per minute (README: Configuration), counted in the database so every instance shares them. */
  rateLimits: RateLimits;
  /** Tests only: webhooks may go to private and loopback addresses (a local receiver); refused in production. */
  webhookAllowPrivate: PrivateAllowance;
  /**
   * TLS_CERT_FILE and TLS_KEY_FILE (PEM): the server speaks HTTPS itself, HTTP/2 to browsers that offer it and
   * HTTP/1.1 to the rest. Unset, it speaks plain HTTP/1.1 (behind a proxy that ends TLS).
   */
  tls?: { certFile: string; keyFile: string };
  /**
   * NATS_URL: the event stream is published to NATS JetStream and its consumers read it there, their work shared by
   * every instance; unset, the consumers read the database (docs/decisions.md "The event stream").
   */
  natsUrl?: string;
  /** NATS_STREAM: the JetStream stream's name (default EVENTS); its subjects are the name in lower case, then `.>`. */
  natsStream: string;
  /**
   * NATS_ACK_WAIT_SECONDS: how long an event handed to an instance may go unacknowledged before JetStream hands it out
   * again (5 to 300, default 30): the pause before the events held by a stopped instance, or by every instance across a
   * NATS outage, are read again.
   */
  natsAckWaitSeconds: number;
  /**
   * REDIS_URL: rate-limit counters, failed sign-ins and picture challenges live in Redis, shared by every instance;
   * unset, they live in the database (docs/decisions.md "Per-call state in Redis").
   */
  redisUrl?: string;
  /** REDIS_PREFIX: the start of every key this deployment writes in Redis (default `simconsole:`), so several share one. */
  redisPrefix: string;
  /** METRICS_TOKEN: the bearer token /metrics answers to; unset, /metrics is off. */
  metricsToken?: string;
}

/** Requests allowed per minute and caller, per group of calls (server/http/rate-limit.ts). */
export interface RateLimits {
  /** Every API call without a group of its own: per account when signed in, else per client address. */
  api: number;
  /** Sign-in calls per client address (failed sign-ins are also throttled per account and address). */
  signIn: number;
  /** New picture challenges per client address. */
  captcha: number;
  /** Forgot-password calls (send the code, reset) per client address. */
  passwordReset: number;
  /** Page views and error reports per client address. */
  telemetry: number;
}

/** The limits when nothing is set: above what a person does in a minute, far below what a script does. */
export const DEFAULT_RATE_LIMITS: RateLimits = { api: 600, signIn: 30, captcha: 30, passwordReset: 10, telemetry: 60 };

const count = (value: string | undefined, fallback: number, name: string): number => {
  if (value === undefined || value === '') return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new Error(`${name} must be a whole number of at least 1 (requests per minute), not "${value}"`);
  return n;
};

/** A variable of whole seconds from min to max (unset or empty: fallback); anything else stops the start, naming it. */
function seconds(name: string, value: string | undefined, min: number, max: number, fallback: number): number {
  if (value === undefined || value === '') return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < min || n > max) throw new Error(`${name} must be a whole number of seconds from ${min} to ${max}, not "${value}"`);
  return n;
}

/** TRUST_PROXY: a comma list of proxy addresses or CIDRs; empty or unset trusts none. */
function trustProxyOf(value: string | undefined): false | string[] {
  const list = (value ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  return list.length > 0 ? list : false;
}

/** TLS_CERT_FILE and TLS_KEY_FILE: both or neither, each a readable file. */
function tlsOf(env: NodeJS.ProcessEnv): Config['tls'] {
  const certFile = env.TLS_CERT_FILE || undefined;
  const keyFile = env.TLS_KEY_FILE || undefined;
  if (!certFile && !keyFile) return undefined;
  if (!certFile || !keyFile) throw new Error(`TLS_CERT_FILE and TLS_KEY_FILE go together: ${certFile ? 'TLS_KEY_FILE' : 'TLS_CERT_FILE'} is not set.`);
  for (const [name, file] of [
    ['TLS_CERT_FILE', certFile],
    ['TLS_KEY_FILE', keyFile],
  ] as const) {
    if (!fs.existsSync(file) || !fs.statSync(file).isFile()) throw new Error(`${name} names "${file}", which is not a readable file.`);
  }
  return { certFile: path.resolve(certFile), keyFile: path.resolve(keyFile) };
}

/** A JetStream stream name: letters, digits, _ and - (it also names the subjects, in lower case). */
function natsStreamOf(v: string | undefined): string {
  if (!v) return 'EVENTS';
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(v)) throw new Error(`NATS_STREAM must be 1 to 64 letters, digits, _ or -: ${JSON.stringify(v)}`);
  return v;
}

/** A prefix of Redis keys: letters, digits and : _ - . (it is written before every key). */
function redisPrefixOf(v: string | undefined): string {
  if (v === undefined || v === '') return 'simconsole:';
  if (!/^[A-Za-z0-9:_.-]{1,64}$/.test(v)) throw new Error(`REDIS_PREFIX must be 1 to 64 letters, digits, :, _, . or -: ${JSON.stringify(v)}`);
  return v;
}

/** Read the configuration; refuses VERIFICATION_CODE in production (ARCHITECTURE.md, Identity). */
export function loadConfig(env: NodeJS.ProcessEnv = process.env, overrides: Partial<Config> = {}): Config {
  const production = env.NODE_ENV === 'production';
  const config: Config = {
    port: Number(env.PORT ?? 8080),
    host: env.HOST ?? '0.0.0.0',
    dataDir: path.resolve(env.DATA_DIR ?? './data'),
    databaseUrl: env.DATABASE_URL || undefined,
    smtpUrl: env.SMTP_URL || undefined,
    mailFrom: env.MAIL_FROM ?? 'IoT Console <no-reply@demo.example.com>',
    verificationCode: env.VERIFICATION_CODE || undefined,
    production,
    accessTokenTtlSeconds: Number(env.ACCESS_TOKEN_TTL_SECONDS ?? 900),
    refreshTokenTtlDays: Number(env.REFRESH_TOKEN_TTL_DAYS ?? 30),
    accountCap: Number(env.ACCOUNT_CAP ?? 50),
    orgCap: Number(env.ORG_CAP ?? 20),
    autoflowMaxRules: Number(env.AUTOFLOW_MAX_RULES ?? 1000),
    autoflowScheduleSeconds: seconds('AUTOFLOW_SCHEDULE_SECONDS', env.AUTOFLOW_SCHEDULE_SECONDS, 1, 86_400, SCHEDULE_MINUTES * 60),
    shutdownTimeoutSeconds: seconds('SHUTDOWN_TIMEOUT_SECONDS', env.SHUTDOWN_TIMEOUT_SECONDS, 1, 600, 10),
    seed: env.SEED !== 'false',
    simulator: env.SIMULATOR !== 'off',
    simulatorTickMs: Number(env.SIMULATOR_TICK_MS ?? 5000),
    simulatorSimsPerTick: Number(env.SIMULATOR_SIMS_PER_TICK ?? 50),
    simulatorSeed: env.SIMULATOR_SEED ?? 'network',
    simulatorSmsDeliveryMs: env.SIMULATOR_SMS_DELIVERY_MS ? Number(env.SIMULATOR_SMS_DELIVERY_MS) : null,
    simulatorMoReplyChance: env.SIMULATOR_MO_REPLY_CHANCE ? Number(env.SIMULATOR_MO_REPLY_CHANCE) : 0.3,
    logLevel: env.LOG_LEVEL ?? 'info',
    livePollMs: Number(env.LIVE_POLL_MS ?? 1000),
    sentryDsn: env.SENTRY_DSN || undefined,
    consoleDir: path.resolve(env.CONSOLE_DIR ?? './dist'),
    jobs: env.JOBS !== 'off',
    jobPollMs: Number(env.JOB_POLL_MS ?? 1000),
    jobLeaseSeconds: Number(env.JOB_LEASE_SECONDS ?? 60),
    activationAnswerMinutes: Number(env.ACTIVATION_ANSWER_MINUTES ?? ACTIVATION_ANSWER_MINUTES),
    dashboardLiveSims: Number(env.DASHBOARD_LIVE_SIMS ?? 50_000),
    dashboardSnapshotSeconds: Number(env.DASHBOARD_SNAPSHOT_SECONDS ?? 300),
    schemasDir: env.SCHEMAS_DIR ? path.resolve(env.SCHEMAS_DIR) : undefined,
    trustProxy: trustProxyOf(env.TRUST_PROXY),
    webhookAllowPrivate: privateAllowanceOf(env.WEBHOOK_ALLOW_PRIVATE),
    tls: tlsOf(env),
    metricsToken: env.METRICS_TOKEN || undefined,
    natsUrl: env.NATS_URL || undefined,
    natsStream: natsStreamOf(env.NATS_STREAM),
    natsAckWaitSeconds: seconds('NATS_ACK_WAIT_SECONDS', env.NATS_ACK_WAIT_SECONDS, 5, 300, 30),
    redisUrl: env.REDIS_URL || undefined,
    redisPrefix: redisPrefixOf(env.REDIS_PREFIX),
    rateLimits: {
      api: count(env.RATE_LIMIT_PER_MINUTE, DEFAULT_RATE_LIMITS.api, 'RATE_LIMIT_PER_MINUTE'),
      signIn: count(env.RATE_LIMIT_SIGN_IN_PER_MINUTE, DEFAULT_RATE_LIMITS.signIn, 'RATE_LIMIT_SIGN_IN_PER_MINUTE'),
      captcha: count(env.RATE_LIMIT_CAPTCHA_PER_MINUTE, DEFAULT_RATE_LIMITS.captcha, 'RATE_LIMIT_CAPTCHA_PER_MINUTE'),
      passwordReset: count(env.RATE_LIMIT_PASSWORD_RESET_PER_MINUTE, DEFAULT_RATE_LIMITS.passwordReset, 'RATE_LIMIT_PASSWORD_RESET_PER_MINUTE'),
      telemetry: count(env.RATE_LIMIT_TELEMETRY_PER_MINUTE, DEFAULT_RATE_LIMITS.telemetry, 'RATE_LIMIT_TELEMETRY_PER_MINUTE'),
    },
    ...overrides,
  };
  if (config.production && config.verificationCode) {
    throw new Error('VERIFICATION_CODE is a test contract and is refused when NODE_ENV=production.');
  }
  if (config.production && config.webhookAllowPrivate !== false) {
    throw new Error('WEBHOOK_ALLOW_PRIVATE lets webhooks reach private addresses: a test contract, refused when NODE_ENV=production.');
  }
  if (config.sentryDsn) parseDsn(config.sentryDsn);
  return config;
}
