/**
 * The `test` every spec imports: one real server per Playwright worker, on a copy of the seeded template database
 * (tests/e2e/global-setup.ts), so workers run side by side without sharing data. A spec's `baseURL` (and with it
 * page.goto('/…') and `request`) is its worker's server; `test.use({ baseURL: FIXTURE_BASE })` still points a spec at
 * the fixture server of playwright.config.ts. The config sets no baseURL, so a spec that imported Playwright's own
 * `test` would fail on its first relative address instead of quietly sharing a server.
 */
import { test as base, expect } from '@playwright/test';
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { deleteStream, NATS_URL, natsAnswers } from '../nats';
import { SERVER_ENV, TEMPLATE_DIR, workerDataDir, workerPort } from './e2e-env';

export { expect };

interface WorkerServer {
  url: string;
}

async function healthy(url: string): Promise<boolean> {
  try {
    return (await fetch(`${url}/api/health`)).ok;
  } catch {
    return false;
  }
}

/** Resolves when the server answers its health call; rejects with its log when it exits first or takes too long. */
async function waitUntilUp(child: ChildProcess, url: string, logFile: string): Promise<void> {
  let exited = false;
  child.once('exit', () => (exited = true));
  const deadline = Date.now() + 120_000;
  while (!(await healthy(url))) {
    if (exited || Date.now() > deadline) {
      const log = fs.existsSync(logFile) ? fs.readFileSync(logFile, 'utf8').slice(-4000) : '';
      throw new Error(`The e2e server at ${url} did not start${exited ? ` (exit code ${child.exitCode})` : ''}:\n${log}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
}

export const test = base.extend<object, { workerServer: WorkerServer; serverTls: boolean }>({
  /**
   * `test.use({ serverTls: true })`: the worker's server is given the suites' certificate (tests/e2e/global-setup.ts)
   * and speaks HTTPS, HTTP/2 to the browser. Such a spec gets a worker (and server) of its own.
   */
  serverTls: [false, { option: true, scope: 'worker' }],
  workerServer: [
    async ({ serverTls }, use, workerInfo) => {
      const port = workerPort(workerInfo.parallelIndex);
      const dataDir = workerDataDir(workerInfo.parallelIndex);
      fs.rmSync(dataDir, { recursive: true, force: true });
      fs.cpSync(TEMPLATE_DIR, dataDir, { recursive: true });
      const logFile = `${dataDir}.log`;
      const log = fs.openSync(logFile, 'w');
      const tlsDir = process.env.TEST_TLS_DIR;
      if (serverTls && !tlsDir) throw new Error('serverTls needs the certificate of tests/e2e/global-setup.ts (TEST_TLS_DIR)');
      const tls = serverTls && tlsDir ? { TLS_CERT_FILE: path.join(tlsDir, 'cert.pem'), TLS_KEY_FILE: path.join(tlsDir, 'key.pem') } : {};
      // Where NATS answers (every machine of this project, CI's included) the worker's server reads its event stream
      // there, on a stream of its own, as a production instance with NATS_URL does; elsewhere from the database.
      const stream = `E2E_W${workerInfo.parallelIndex}_${process.pid}`;
      const nats = natsAnswers ? { NATS_URL, NATS_STREAM: stream } : {};
      const child = spawn(process.execPath, ['--import', 'tsx', 'server/main.ts'], {
        env: { ...process.env, ...SERVER_ENV, ...tls, ...nats, PORT: String(port), DATA_DIR: dataDir, SEED: 'false' },
        stdio: ['ignore', log, log],
      });
      const url = `${serverTls ? 'https' : 'http'}://localhost:${port}`;
      try {
        await waitUntilUp(child, url, logFile);
        await use({ url });
      } finally {
        const exited = new Promise((r) => child.once('exit', r));
        if (child.exitCode === null) child.kill('SIGTERM');
        await Promise.race([exited, new Promise((r) => setTimeout(r, 10_000))]);
        if (child.exitCode === null) child.kill('SIGKILL');
        fs.closeSync(log);
        if (natsAnswers) await deleteStream(stream);
      }
    },
    { scope: 'worker', timeout: 150_000 },
  ],
  baseURL: async ({ workerServer }, use) => {
    await use(workerServer.url);
  },
});
