import { defineConfig } from '@playwright/test';
import { E2E_JWT_SECRET } from './tests/e2e/helpers';

const PORT = Number(process.env.E2E_PORT ?? 8181);
const DATA_DIR = process.env.E2E_DATA_DIR ?? '.tmp/e2e-data';

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
  webServer: {
    // The real server on a fresh embedded database; the console must be built first (npm run build).
    command: `rm -rf ${DATA_DIR} && tsx server/main.ts`,
    url: `http://localhost:${PORT}/api/health`,
    timeout: 120_000,
    reuseExistingServer: false,
    // JWT_SECRET is known to the specs so they can hand the browser an expired access token.
    env: { PORT: String(PORT), DATA_DIR, VERIFICATION_CODE: '246810', SIMULATOR: 'off', LOG_LEVEL: 'warn', NODE_ENV: 'test', JWT_SECRET: E2E_JWT_SECRET, LIVE_POLL_MS: '200' },
  },
});
