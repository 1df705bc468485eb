import { defineConfig } from '@playwright/test';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from './scripts/chromium';
import { FIXTURE_DATA_DIR, FIXTURE_PORT, FIXTURE_SCHEMAS_DIR, SERVER_ENV } from './tests/e2e/e2e-env';

/**
 * One real server per worker (tests/e2e/fixtures.ts), each on its own copy of the demo database seeded once by the
 * global set-up; the console must be built first (npm run build). E2E_WORKERS sets how many run side by side: one by
 * default, since on two cores two browsers and two servers starved each other (a fresh-clone run with two workers
 * missed two 5-second waits on SIM actions that pass alone); 2 on a larger machine.
 */
const WORKERS = Number(process.env.E2E_WORKERS ?? 1);

export default defineConfig({
  testDir: 'tests/e2e',
  globalSetup: './tests/e2e/global-setup.ts',
  workers: WORKERS,
  retries: 0,
  timeout: 60_000,
  // A web-first assertion waits for its condition up to this long (it ends as soon as the condition holds).
  expect: { timeout: 10_000 },
  reporter: [['list']],
  use: {
    locale: 'en-US',
    launchOptions: { executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS },
  },
  webServer: [
    {
      // The fixture proof of docs/schemas.md: the server with SCHEMAS_DIR (the made-up gateways and the doc's APN
      // example, whose tables the server derives at start); also the dashboard of a large fleet (DASHBOARD_LIVE_SIMS=0: every organisation's top 10 and
      // heatmap are snapshots). One for the run: the specs that use it (test.use({ baseURL: FIXTURE_BASE })) read
      // different data.
      command: `rm -rf ${FIXTURE_DATA_DIR} && tsx tests/e2e/seed-db.ts --fixture && tsx server/main.ts`,
      url: `http://localhost:${FIXTURE_PORT}/api/health`,
      timeout: 120_000,
      reuseExistingServer: false,
      env: { ...SERVER_ENV, PORT: String(FIXTURE_PORT), DATA_DIR: FIXTURE_DATA_DIR, SCHEMAS_DIR: FIXTURE_SCHEMAS_DIR, DASHBOARD_LIVE_SIMS: '0' },
    },
  ],
});
