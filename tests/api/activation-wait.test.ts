/**
 * An activation the network never answers: the seeded one holds no lease, waits without holding the job
 * worker, and ends as "issues" after the stated time with a report that says why; the header's count goes back to 0.
 */
import { describe, expect, it } from 'vitest';
import { BUSY_TASK_ID, SPECIAL_SIMS } from '../../server/db/seed-fleet.js';
import { ACTIVATION_ANSWER_MINUTES } from '../../server/sim/activation.js';
import { call, DB_KINDS, DEMO, signedInSuite } from '../helper.js';

describe.each(DB_KINDS)('an activation without an answer on %s', (kind) => {
  const suite = signedInSuite(kind, { admin: DEMO.admin });

  const runJobs = async () => {
    for (let i = 0; i < 100 && (await suite.t.app.jobs.runOnce()); i++);
  };
  const busy = async () =>
    (
      await suite.t.db.query<{
        status: string;
        claimed_by: string | null;
        heartbeat_at: Date | null;
        run_after: Date | null;
        result_file_id: string | null;
        attempts: number;
      }>('SELECT status, claimed_by, heartbeat_at, run_after, result_file_id, attempts FROM tasks WHERE id = $1', [BUSY_TASK_ID])
    ).rows[0];
  const slot = async () =>
    (await suite.t.db.query<{ operation: string | null }>('SELECT operation FROM sims WHERE iccid = $1', [SPECIAL_SIMS.operationInProgress])).rows[0].operation;
  const processing = async () =>
    (await call(suite.t.app, suite.admin, { method: 'GET', url: '/api/job/rest/job/my?page=1&pageSize=10' })).json().data.processing as number;

  it('the seed holds no task with a lease into the future; the activation is looked at when its answer is due', async () => {
    const leased = (
      await suite.t.db.query<{ id: string }>("SELECT id FROM tasks WHERE status = 'processing' AND (claimed_by IS NOT NULL OR heartbeat_at > now())")
    ).rows;
    expect(leased).toEqual([]);
    const task = await busy();
    expect(task.status).toBe('processing');
    const dueIn = new Date(task.run_after!).getTime() - Date.now();
    expect(dueIn).toBeGreaterThan(0);
    expect(dueIn).toBeLessThanOrEqual(ACTIVATION_ANSWER_MINUTES * 60_000);
    await runJobs();
    expect((await busy()).status).toBe('processing');
  });

  it('before the stated time a look leaves it waiting, released, and not counted as an attempt', async () => {
    // Due for a look, sent a minute ago: still within the answer time.
    await suite.t.db.query(
      `UPDATE tasks SET run_after = now() - interval '1 second', payload = payload || jsonb_build_object('sentAt', (now() - interval '1 minute')::text) WHERE id = $1`,
      [BUSY_TASK_ID],
    );
    expect(await suite.t.app.jobs.runOnce()).toBe(true);
    const task = await busy();
    expect(task).toMatchObject({ status: 'processing', claimed_by: null, heartbeat_at: null, attempts: 0 });
    expect(new Date(task.run_after!).getTime()).toBeGreaterThan(Date.now());
    // Released: the worker is free for other work at once.
    expect(await suite.t.app.jobs.runOnce()).toBe(false);
    expect(await slot()).toBe('activate');
    expect(await processing()).toBe(1);
  });

  it(`after ${ACTIVATION_ANSWER_MINUTES} minutes without an answer it ends as issues, frees the SIM, and its report says why`, async () => {
    await suite.t.db.query(
      `UPDATE tasks SET run_after = now() - interval '1 second', payload = payload || jsonb_build_object('sentAt', (now() - make_interval(mins => $2 + 1))::text) WHERE id = $1`,
      [BUSY_TASK_ID, ACTIVATION_ANSWER_MINUTES],
    );
    await runJobs();
    const task = await busy();
    expect(task.status).toBe('issues');
    expect(task.result_file_id).not.toBeNull();
    expect(await slot()).toBeNull();
    expect(await processing()).toBe(0);
    const token = await call(suite.t.app, suite.admin, { method: 'GET', url: `/api/job/rest/job/my/oneTimeToken?id=${BUSY_TASK_ID}` });
    expect(token.statusCode).toBe(200);
    const file = await suite.t.app.inject({ method: 'GET', url: token.json().data.url });
    expect(file.statusCode).toBe(200);
    const lines = file.body
      .replace(/^\uFEFF/, '')
      .trim()
      .split(/\r?\n/);
    expect(lines[0]).toBe('ICCID,Outcome,Reason');
    expect(lines[1]).toBe(`${SPECIAL_SIMS.operationInProgress},Not done,No answer from the network within ${ACTIVATION_ANSWER_MINUTES} minutes of the request`);
  });
});
