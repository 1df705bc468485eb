import { defineConfig } from '@playwright/test';
import { E2E_JWT_SECRET } from './tests/e2e/helpers';

const PORT = Number(process.env.E2E_PORT ?? 8181);
const DATA_DIR = process.env.E2E_DATA_DIR ?? '.tmp/e2e-data';
/** A second server for the fixture proof of docs/schemas.md: a made-up resource from tests/fixtures/schemas. */
const FIXTURE_PORT = PORT + 1;
const FIXTURE_DATA_DIR = `${DATA_DIR}-fixture`;
// Every spec drives one server from 127.0.0.1, loading the sign-in page (a challenge each time) and signing in far more
// often in a minute than one person: the request limits are set out of its way (tests/api/rate-limit.test.ts proves them).
const RATE_LIMITS = {
  RATE_LIMIT_PER_MINUTE: '100000',
  RATE_LIMIT_SIGN_IN_PER_MINUTE: '10000',
  RATE_LIMIT_CAPTCHA_PER_MINUTE: '10000',
  RATE_LIMIT_PASSWORD_RESET_PER_MINUTE: '10000',
  RATE_LIMIT_TELEMETRY_PER_MINUTE: '10000',
};
// The seeded activation in progress (tests/e2e/task-center.spec.ts) ends as "issues" once the network's answer is overdue:
// the run outlasts the demo's 10 minutes, so the answer is given longer here.
const env = { VERIFICATION_CODE: '246810', SIMULATOR: 'off', LOG_LEVEL: 'warn', NODE_ENV: 'test', JWT_SECRET: E2E_JWT_SECRET, LIVE_POLL_MS: '200', ACTIVATION_ANSWER_MINUTES: '240', ...RATE_LIMITS };

export default defineConfig({
  testDir: 'tests/e2e',
  workers: 1,
  retries: 0,
  timeout: 60_000,
  reporter: [['list']],
  use: {
    baseURL: `http://localhost:${PORT}`,
    locale: 'en-US',
    launchOptions: {
      executablePath: '/usr/bin/chromium',
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    },
  },
  webServer: [
    {
      // The real server on a fresh embedded database; the console must be built first (npm run build).
      command: `rm -rf ${DATA_DIR} && tsx server/main.ts`,
      url: `http://localhost:${PORT}/api/health`,
      timeout: 120_000,
      reuseExistingServer: false,
      // JWT_SECRET is known to the specs so they can hand the browser an expired access token.
      env: { ...env, PORT: String(PORT), DATA_DIR },
    },
    {
      // The same server with SCHEMAS_DIR, on a database to which the test adds the fixture resource's table; also the
      // dashboard of a large fleet (DASHBOARD_LIVE_SIMS=0: every organisation's top 10 and heatmap are snapshots).
      command: `rm -rf ${FIXTURE_DATA_DIR} && tsx tests/e2e/fixture-db.ts && tsx server/main.ts`,
      url: `http://localhost:${FIXTURE_PORT}/api/health`,
      timeout: 120_000,
      reuseExistingServer: false,
      env: { ...env, PORT: String(FIXTURE_PORT), DATA_DIR: FIXTURE_DATA_DIR, SCHEMAS_DIR: 'tests/fixtures/schemas', DASHBOARD_LIVE_SIMS: '0' },
    },
  ],
});
