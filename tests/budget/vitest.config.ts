import path from 'node:path';
import { defineConfig } from 'vitest/config';

// The bundle budget: `npm run budget` builds and checks every route; `npm test` checks the sign-in page against its
// dist/ (scripts/test-all.sh), the dashboard joining when it is under its budget.
export default defineConfig({
  root: path.resolve(import.meta.dirname, '../..'),
  test: {
    name: 'budget',
    include: ['tests/budget/**/*.test.ts'],
    environment: 'node',
    testTimeout: 120_000,
    // Measuring every route (gzip 9 and brotli 11 of some 90 files) takes over 10 s on a busy machine.
    hookTimeout: 120_000,
  },
});
