/**
 * A real server process killed (SIGKILL) in the middle of an export of 40,000 SIMs, then started again on the same
 * database and files: the task ends done with the whole file, or as issues, and a truncated file is never offered.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { strFromU8, unzipSync } from 'fflate';
import { afterAll, describe, expect, it } from 'vitest';
import { scaleSeed, SCALE_ORG } from '../../bench/scale-seed.js';
import { migrate } from '../../server/db/db.js';
import { seedDemo } from '../../server/db/seed.js';
import { freePort, until } from '../wait.js';
import { DB_KINDS, DEMO, DEMO_PASSWORD, PROCESS_ENV, processStore, TEST_CODE } from '../helper.js';

/** Enough rows that the export is caught part way by a 20 ms poll even on a quick machine, few enough for CI's time. */
const SIMS = 40_000;

describe.each(DB_KINDS)('a server killed during an export on %s', (kind) => {
  const cleanups: (() => Promise<void> | void)[] = [];
  afterAll(async () => {
    for (const c of cleanups.reverse()) await c();
  });

  it('resumes after the restart and offers only the whole file', async () => {
    const store = await processStore(kind, 'export-restart', cleanups);
    // The database with the demo and the SIMs, made before any server holds it.
    const db = await store.open();
    await migrate(db);
    await seedDemo(db, { size: 'small' });
    await scaleSeed(db, { sims: SIMS, cdrs: 0 });
    await db.close();

    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const start = (): ChildProcess => {
      const child = spawn(process.execPath, ['--import', 'tsx', 'server/main.ts'], {
        env: {
          ...process.env,
          ...PROCESS_ENV,
          PORT: String(port),
          DATA_DIR: store.dataDir,
          DATABASE_URL: store.databaseUrl ?? '',
          LOG_LEVEL: 'warn',
          JOB_POLL_MS: '100',
          JOB_LEASE_SECONDS: '2',
        },
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      cleanups.push(() => void child.kill('SIGKILL'));
      return child;
    };
    const up = () => until('the server', async () => ((await fetch(`${base}/api/health`)).ok ? true : undefined), 60_000, 200);

    let server = start();
    await up();
    const signin = await (
      await fetch(`${base}/api/identity/sso/signin/direct/cube/offline-access`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ username: DEMO.admin, password: DEMO_PASSWORD, verificationCode: TEST_CODE, agreeTerms: true }),
      })
    ).json();
    const headers = { authorization: `Bearer ${signin.data.user.token}`, partnercode: SCALE_ORG.code, 'content-type': 'application/json' };
    const started = await (await fetch(`${base}/api/main/sim/list/export/task`, { method: 'POST', headers, body: JSON.stringify({ format: 'xlsx' }) })).json();
    expect(started.data.quantity).toBe(SIMS);
    const taskId = started.data.taskId as string;
    const taskNow = async () => {
      const r = await (await fetch(`${base}/api/job/rest/job/my/${taskId}`, { headers })).json();
      return r.data as { status: string; progress: number; hasReport: boolean };
    };

    // Killed while the rows are being written.
    const midway = await until(
      'the export under way',
      async () => {
        const t = await taskNow();
        return t.status === 'processing' && t.progress > 0 ? t : undefined;
      },
      60_000,
      20,
    );
    server.kill('SIGKILL');
    await new Promise((r) => server.once('exit', r));
    expect(midway.progress).toBeLessThan(100);
    const drafts = () =>
      fs
        .readdirSync(path.join(store.dataDir, 'files'), { recursive: true })
        .map(String)
        .filter((f) => f.includes(taskId));
    expect(drafts().every((f) => !f.endsWith('.xlsx'))).toBe(true);

    // Started again: another worker takes the task over after the lease.
    server = start();
    await up();
    const end = await until(
      'the task to end',
      async () => {
        const t = await taskNow();
        return t.status === 'processing' ? undefined : t;
      },
      120_000,
      200,
    );
    expect(['done', 'issues']).toContain(end.status);
    if (end.status === 'done') {
      const link = await (await fetch(`${base}/api/job/rest/job/my/oneTimeToken?id=${taskId}`, { headers })).json();
      const file = new Uint8Array(await (await fetch(`${base}${link.data.url}`)).arrayBuffer());
      const sheet = strFromU8(unzipSync(file)['xl/worksheets/sheet1.xml']);
      // The header and exactly the SIMs, each once.
      expect(sheet.match(/<row[ >]/g)).toHaveLength(SIMS + 1);
      expect(new Set(sheet.match(/8949\d{15}/g)).size).toBe(SIMS);
      // Nothing half-written is left beside it.
      expect(drafts().filter((f) => f.endsWith('.part'))).toEqual([]);
    } else {
      expect(end.hasReport).toBe(false);
    }
    server.kill('SIGTERM');
    await new Promise((r) => server.once('exit', r));
  }, 300_000);
});
