/**
 * Where the end-to-end servers live and how they are started: shared by playwright.config.ts, the global set-up that
 * seeds the template database, and the worker fixture that starts one server per Playwright worker.
 */
/** The secret the e2e servers sign with, so a spec can make an expired access token (helpers.ts). */
export const E2E_JWT_SECRET = 'e2e-only-secret-not-for-production-0123456789';

/** The fixture server listens on E2E_PORT + 1; worker N's server on E2E_PORT + 10 + N. */
export const E2E_PORT = Number(process.env.E2E_PORT ?? 8181);
export const FIXTURE_PORT = E2E_PORT + 1;
export const workerPort = (parallelIndex: number) => E2E_PORT + 10 + parallelIndex;

const DATA_DIR = process.env.E2E_DATA_DIR ?? '.tmp/e2e-data';
/** The demo database seeded once per run; each worker copies it, so no worker waits for its own seed. */
export const TEMPLATE_DIR = `${DATA_DIR}-template`;
export const FIXTURE_DATA_DIR = `${DATA_DIR}-fixture`;
/** The fixture server's SCHEMAS_DIR: tests/fixtures/schemas and docs/schemas.md's APN example, written by seed-db.ts --fixture. */
export const FIXTURE_SCHEMAS_DIR = `${DATA_DIR}-fixture-schemas`;
export const workerDataDir = (parallelIndex: number) => `${DATA_DIR}-w${parallelIndex}`;

// Every spec drives its server from 127.0.0.1, loading the sign-in page (a challenge each time) and signing in far more
// often in a minute than one person: the request limits are set out of its way (tests/api/rate-limit.test.ts proves them).
const RATE_LIMITS = {
  RATE_LIMIT_PER_MINUTE: '100000',
  RATE_LIMIT_SIGN_IN_PER_MINUTE: '10000',
  RATE_LIMIT_CAPTCHA_PER_MINUTE: '10000',
  RATE_LIMIT_PASSWORD_RESET_PER_MINUTE: '10000',
  RATE_LIMIT_TELEMETRY_PER_MINUTE: '10000',
};
/**
 * The servers' environment. The seeded activation in progress (tests/e2e/task-center.spec.ts) ends as "issues" once
 * the network's answer is overdue: the run outlasts the demo's 10 minutes, so the answer is given longer here.
 * JWT_SECRET is known to the specs so they can hand the browser an expired access token.
 */
export const SERVER_ENV: Record<string, string> = {
  VERIFICATION_CODE: '246810',
  SIMULATOR: 'off',
  // Traffic off, but an SMS handed to the network is delivered a moment later and the device always answers (sms.spec.ts).
  SIMULATOR_SMS_DELIVERY_MS: '300',
  SIMULATOR_MO_REPLY_CHANCE: '1',
  LOG_LEVEL: 'warn',
  NODE_ENV: 'test',
  JWT_SECRET: E2E_JWT_SECRET,
  LIVE_POLL_MS: '200',
  // Usage and time rules are evaluated every 2 s instead of 5 minutes, so autoflow.spec.ts sees its rule trip.
  AUTOFLOW_SCHEDULE_SECONDS: '2',
  ACTIVATION_ANSWER_MINUTES: '240',
  // The webhook spec's receiver listens on this machine's loopback: the name `localhost` may reach it, while a private
  // address written out (https://127.0.0.1/…) is still refused, as the webhook settings spec shows. Refused in production.
  WEBHOOK_ALLOW_PRIVATE: 'localhost',
  ...RATE_LIMITS,
};
