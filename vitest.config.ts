import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // A certificate the workers trust, and the databases suites start from (tests/global-setup.ts).
    globalSetup: ['tests/global-setup.ts'],
    // PGlite is one WASM Postgres per file: two files at a time fits two cores.
    maxWorkers: 2,
    projects: [
      {
        test: {
          name: 'unit',
          include: ['tests/unit/**/*.test.{ts,tsx}'],
          environment: 'node',
          sequence: { groupOrder: 0 },
        },
      },
      {
        test: {
          name: 'api',
          include: ['tests/api/**/*.test.ts'],
          environment: 'node',
          testTimeout: 60_000,
          hookTimeout: 120_000,
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
