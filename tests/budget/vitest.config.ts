import path from 'node:path';
import { defineConfig } from 'vitest/config';

// The bundle budget (npm run budget) runs apart from `npm test` while the build is over budget (issue 15).
export default defineConfig({
  root: path.resolve(import.meta.dirname, '../..'),
  test: {
    name: 'budget',
    include: ['tests/budget/**/*.test.ts'],
    environment: 'node',
    testTimeout: 120_000,
  },
});
