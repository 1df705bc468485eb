/**
 * Vitest global set-up: the tests' HTTPS receivers get a certificate the test workers trust (tests/test-tls.ts), and
 * the run keeps the databases its suites start from (tests/db-template.ts) in a folder of its own. The teardown removes
 * both, and the run's template databases on PostgreSQL.
 */
import fs from 'node:fs';
import path from 'node:path';
import { newId } from '../server/db/ids.js';
import { dropPostgresTemplates } from './db-template.js';
import { trustTestTls } from './test-tls.js';

export default function setup(): () => Promise<void> {
  const tls = trustTestTls('.tmp/test-tls');
  // A run that was killed left its folder: gone after a day (a run lasts well under one).
  for (const old of fs.readdirSync('.tmp').filter((n) => n.startsWith('db-templates-'))) {
    const full = path.resolve('.tmp', old);
    if (Date.now() - fs.statSync(full).mtimeMs > 86_400_000) fs.rmSync(full, { recursive: true, force: true });
  }
  const templates = fs.mkdtempSync(path.resolve('.tmp/db-templates-'));
  process.env.TEST_TEMPLATE_DIR = templates;
  process.env.TEST_TEMPLATE_RUN = newId(8)
    .toLowerCase()
    .replace(/[^a-z0-9]/g, 'x');
  return async () => {
    tls.remove();
    fs.rmSync(templates, { recursive: true, force: true });
    await dropPostgresTemplates();
  };
}
