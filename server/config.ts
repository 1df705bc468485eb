/** Configuration from the environment (README: Configuration). */
import path from 'node:path';
import { parseDsn } from './public/error-sink.js';

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
  seed: boolean;
  /** The network simulator's traffic (SIMULATOR=off switches it off; commands to the network are answered either way). */
  simulator: boolean;
  /** Time between simulator steps. */
  simulatorTickMs: number;
  /** Active SIMs the simulator visits per step (also the bound on expiries and SMS per step). */
  simulatorSimsPerTick: number;
  /** Seed of the simulator's PRNG. */
  simulatorSeed: string;
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
  /** Organisations of at most this many SIMs get the dashboard's top 10 and heatmap computed for each call; larger ones read a snapshot. */
  dashboardLiveSims: number;
  /** The age after which a large organisation's dashboard snapshot is computed again (in the background). */
  dashboardSnapshotSeconds: number;
  /** A folder of further resource schemas (docs/schemas.md), loaded beside schemas/ at start. */
  schemasDir?: string;
  /** The time the dashboard counts from; tests fix it, the server uses the wall clock. */
  clock?: () => Date;
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
    seed: env.SEED !== 'false',
    simulator: env.SIMULATOR !== 'off',
    simulatorTickMs: Number(env.SIMULATOR_TICK_MS ?? 5000),
    simulatorSimsPerTick: Number(env.SIMULATOR_SIMS_PER_TICK ?? 50),
    simulatorSeed: env.SIMULATOR_SEED ?? 'network',
    logLevel: env.LOG_LEVEL ?? 'info',
    livePollMs: Number(env.LIVE_POLL_MS ?? 1000),
    sentryDsn: env.SENTRY_DSN || undefined,
    consoleDir: path.resolve(env.CONSOLE_DIR ?? './dist'),
    jobs: env.JOBS !== 'off',
    jobPollMs: Number(env.JOB_POLL_MS ?? 1000),
    jobLeaseSeconds: Number(env.JOB_LEASE_SECONDS ?? 60),
    dashboardLiveSims: Number(env.DASHBOARD_LIVE_SIMS ?? 50_000),
    dashboardSnapshotSeconds: Number(env.DASHBOARD_SNAPSHOT_SECONDS ?? 300),
    schemasDir: env.SCHEMAS_DIR ? path.resolve(env.SCHEMAS_DIR) : undefined,
    ...overrides,
  };
  if (config.production && config.verificationCode) {
    throw new Error('VERIFICATION_CODE is a test contract and is refused when NODE_ENV=production.');
  }
  if (config.sentryDsn) parseDsn(config.sentryDsn);
  return config;
}
