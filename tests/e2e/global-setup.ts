/** Seeds the template database once per run (about 15 s); every worker's server starts from a copy of it. */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { trustTestTls } from '../test-tls';
import { SERVER_ENV, TEMPLATE_DIR } from './e2e-env';

/** Returns the teardown: the run's certificate directory is removed when the run ends. */
export default function globalSetup(): () => void {
  // A certificate for the specs' own HTTPS receivers (webhooks), trusted by every server the workers start after this.
  const tls = trustTestTls('.tmp/e2e-tls');
  fs.rmSync(TEMPLATE_DIR, { recursive: true, force: true });
  execFileSync(process.execPath, ['--import', 'tsx', 'tests/e2e/seed-db.ts'], {
    env: { ...process.env, ...SERVER_ENV, DATA_DIR: TEMPLATE_DIR },
    stdio: 'inherit',
  });
  return tls.remove;
}
