import { defineConfig } from '@playwright/test';
import { E2E_JWT_SECRET } from './tests/e2e/helpers';

const PORT = Number(process.env.E2E_PORT ?? 8181);
const DATA_DIR = process.env.E2E_DATA_DIR ?? '.tmp/e2e-data';
/** A second server for the fixture proof of docs/schemas.md: a made-up resource from tests/fixtures/schemas. */
const FIXTURE_PORT = PORT + 1;
const FIXTURE_DATA_DIR = `${DATA_DIR}-fixture`;
const env = { VERIFICATION_CODE: '246810', SIMULATOR: 'off', LOG_LEVEL: 'warn', NODE_ENV: 'test', JWT_SECRET: E2E_JWT_SECRET, LIVE_POLL_MS: '200' };

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
