/** Who holds a task can be followed in the logs: a claim, a takeover (naming the instance it came from) and the end. */
import os from 'node:os';
import path from 'node:path';
import fs from 'node:fs';
import type { FastifyBaseLogger } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedDemo } from '../../server/db/seed.js';
import { LocalFileStore } from '../../server/job/storage.js';
import { JobWorker } from '../../server/job/worker.js';
import type { Db } from '../../server/db/db.js';
import { DB_KINDS, freshDb } from '../helper.js';

/** A logger that keeps what it is given. */
function recordingLogger(lines: Array<{ level: string; obj: Record<string, unknown>; msg: string }>): FastifyBaseLogger {
  const at = (level: string) => (obj: Record<string, unknown>, msg: string) => void lines.push({ level, obj, msg });
  const log = {
    info: at('info'),
    warn: at('warn'),
    error: at('error'),
    debug: at('debug'),
    trace: at('trace'),
    fatal: at('fatal'),
    level: 'debug',
    silent: () => undefined,
    child: () => log,
  };
  return log as unknown as FastifyBaseLogger;
}

describe.each(DB_KINDS)('job worker logs on %s', (kind) => {
  let db: Db;
  let drop: () => Promise<void>;
  beforeAll(async () => {
    ({ db, drop } = await freshDb(kind));
    await seedDemo(db, { size: 'small' });
  });
  afterAll(() => drop());

  it('logs a takeover with both instances, then the end of the task, with the worker id', async () => {
    const lines: Array<{ level: string; obj: Record<string, unknown>; msg: string }> = [];
    const store = new LocalFileStore(fs.mkdtempSync(path.join(os.tmpdir(), 'worker-log-')));
    const worker = new JobWorker(db, store, { bundle_export: async () => ({ result: { ok: true } }) }, recordingLogger(lines), 60);
    await db.query(
      `INSERT INTO tasks (org_id, id, reference_id, kind, claimed_by, claimed_at, heartbeat_at, attempts)
       VALUES ('org-demo', 'TakeoverLogTask000001', 'ref-log', 'bundle_export', 'worker-dead', now() - interval '10 minutes', now() - interval '10 minutes', 1)`,
    );
    await db.query("UPDATE tasks SET status = 'done', progress = 100, ended_at = now() WHERE status = 'processing' AND id <> 'TakeoverLogTask000001'");
    expect(await worker.runOnce()).toBe(true);
    const takeover = lines.find((l) => l.msg === 'task taken over after its lease ran out');
    expect(takeover?.obj).toMatchObject({ worker: worker.id, task: 'TakeoverLogTask000001', from: 'worker-dead', attempt: 2 });
    expect(lines.find((l) => l.msg === 'task finished')?.obj).toMatchObject({ worker: worker.id, task: 'TakeoverLogTask000001', status: 'done' });
  });
});
