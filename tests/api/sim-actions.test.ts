/**
 * SIM actions through the API: activate (a task carried out through the network adapter), suspend, resume and reset,
 * SIM by SIM, with SPEC.md section 8's refusals, the rights of each role, the count limits, and two activations of one
 * SIM at once.
 */
import { describe, expect, it } from 'vitest';
import { DEMO_SIMS, OTHER_SIM_ICCID, SPECIAL_SIMS } from '../../server/db/seed-fleet.js';
import { call, countRows, DB_KINDS, DEMO, type Session, signedInSuite } from '../helper.js';

describe.each(DB_KINDS)('SIM actions on %s', (kind) => {
  const suite = signedInSuite(kind, { admin: DEMO.admin, operator: DEMO.operator, user: DEMO.user });

  const act = (s: Session, path: string, iccids: string[]) => call(suite.t.app, s, { method: 'POST', url: `/api/main${path}`, payload: { iccids } });
  const state = async (iccid: string) =>
    (await suite.t.db.query<{ status: string; sub_status: string }>('SELECT status, sub_status FROM sims WHERE iccid = $1', [iccid])).rows[0];
  const events = (iccid: string) => countRows(suite.t.db, 'sim_events', 'iccid = $1', [iccid]);
  const statusEvents = (iccid: string) => countRows(suite.t.db, 'sim_events', "iccid = $1 AND type = 'status_change'", [iccid]);
  const slot = async (iccid: string) =>
    (
      await suite.t.db.query<{ operation: string | null; operation_task_id: string | null }>('SELECT operation, operation_task_id FROM sims WHERE iccid = $1', [
        iccid,
      ])
    ).rows[0];
  const taskOf = async (id: string) =>
    (
      await suite.t.db.query<{ kind: string; status: string; quantity: number; reference_id: string; account_id: string }>(
        'SELECT kind, status, quantity, reference_id, account_id FROM tasks WHERE id = $1',
        [id],
      )
    ).rows[0];
  /** Run the job worker until no task is left for it (the seeded activation in progress is not looked at before its answer is due). */
  const runJobs = async () => {
    while (await suite.t.app.jobs.runOnce());
  };

  it('an operator suspends an active SIM and resumes it; each change is an event and an audit row', async () => {
    const iccid = DEMO_SIMS.active;
    const before = await statusEvents(iccid);
    const audits = await countRows(suite.t.db, 'audit_log', "action IN ('suspend', 'resume')");
    const s = await act(suite.operator, '/sim/suspend', [iccid]);
    expect(s.statusCode).toBe(200);
    expect(s.json().data).toEqual({ results: [{ iccid, ok: true, status: 'paused', subStatus: 'paused' }], accepted: 1, refused: 0 });
    expect(await state(iccid)).toEqual({ status: 'paused', sub_status: 'paused' });
    const r = await act(suite.operator, '/sim/resume', [iccid]);
    expect(r.json().data.results[0]).toMatchObject({ ok: true, status: 'active', subStatus: 'active_live' });
    expect(await statusEvents(iccid)).toBe(before + 2);
    expect(await countRows(suite.t.db, 'audit_log', "action IN ('suspend', 'resume')")).toBe(audits + 2);
    // The network detached the suspended SIM, and the slot is free again.
    expect(
      (await suite.t.db.query<{ connection_status: string }>('SELECT connection_status FROM sims WHERE iccid = $1', [iccid])).rows[0].connection_status,
    ).toBe('offline');
    expect(await slot(iccid)).toEqual({ operation: null, operation_task_id: null });
    const last = (
      await suite.t.db.query<{ from_status: string; to_status: string; source: string }>(
        "SELECT from_status, to_status, source FROM sim_events WHERE iccid = $1 AND type = 'status_change' ORDER BY id DESC LIMIT 1",
        [iccid],
      )
    ).rows[0];
    expect(last).toEqual({ from_status: 'paused', to_status: 'active', source: 'console' });
  });

  it('answers SIM by SIM: one suspended, the others refused with their reasons, nothing else changed', async () => {
    const res = await act(suite.operator, '/sim/suspend', [DEMO_SIMS.active, DEMO_SIMS.paused, DEMO_SIMS.terminated, OTHER_SIM_ICCID, '8949000000000000000']);
    const by = Object.fromEntries(res.json().data.results.map((r: { iccid: string }) => [r.iccid, r]));
    expect(by[DEMO_SIMS.active]).toMatchObject({ ok: true, status: 'paused' });
    expect(by[DEMO_SIMS.paused]).toMatchObject({ ok: false, message: 'Only active SIMs can be suspended.' });
    expect(by[DEMO_SIMS.terminated]).toMatchObject({ ok: false, reason: 'onlyActive' });
    // Another organisation's SIM is as unknown as one that does not exist.
    expect(by[OTHER_SIM_ICCID]).toMatchObject({ ok: false, message: 'The SIM does not exist.' });
    expect(by['8949000000000000000']).toMatchObject({ ok: false, reason: 'notExist' });
    expect(res.json().data).toMatchObject({ accepted: 1, refused: 4 });
    expect(await state(DEMO_SIMS.paused)).toEqual({ status: 'paused', sub_status: 'paused' });
    expect((await suite.t.db.query<{ status: string }>('SELECT status FROM sims WHERE iccid = $1', [OTHER_SIM_ICCID])).rows[0].status).toBe('active');
    await act(suite.operator, '/sim/resume', [DEMO_SIMS.active]);
  });

  it('activation refuses each case of SPEC.md section 8 with its own message, and sends the one that may to the network as a task', async () => {
    const res = await act(suite.admin, '/sim/active', [
      SPECIAL_SIMS.preActivatedOta,
      SPECIAL_SIMS.preActivatedMultiImsi,
      SPECIAL_SIMS.preActivatedNoBundle,
      SPECIAL_SIMS.operationInProgress,
      DEMO_SIMS.expired,
      DEMO_SIMS.inactive,
      DEMO_SIMS.active,
      SPECIAL_SIMS.activatable,
    ]);
    const messages = Object.fromEntries(
      res.json().data.results.map((r: { iccid: string; message?: string; ok: boolean }) => [r.iccid, r.ok ? 'ok' : r.message]),
    );
    expect(messages).toEqual({
      [SPECIAL_SIMS.preActivatedOta]: 'Activation is not supported for OTA SIMs.',
      [SPECIAL_SIMS.preActivatedMultiImsi]: 'Activation is not supported for multi-IMSI SIMs.',
      [SPECIAL_SIMS.preActivatedNoBundle]: 'No available bundle for this SIM.',
      [SPECIAL_SIMS.operationInProgress]: 'Already being activated: wait for the task to finish.',
      [DEMO_SIMS.expired]: 'Expired or terminated SIMs cannot be activated.',
      [DEMO_SIMS.inactive]: 'Only pre-activated SIMs can be activated.',
      [DEMO_SIMS.active]: 'Only pre-activated SIMs can be activated.',
      [SPECIAL_SIMS.activatable]: 'ok',
    });
    const { taskId, referenceId, accepted, refused } = res.json().data;
    expect({ accepted, refused }).toEqual({ accepted: 1, refused: 7 });
    expect(res.json().data.results.find((r: { ok: boolean }) => r.ok)).toEqual({ iccid: SPECIAL_SIMS.activatable, ok: true, taskId });
    // Accepted: one sim_activate task holds the SIM's slot; the SIM is not active until the network confirms.
    expect(await taskOf(taskId)).toMatchObject({ kind: 'sim_activate', status: 'processing', quantity: 1, reference_id: referenceId });
    expect(await slot(SPECIAL_SIMS.activatable)).toEqual({ operation: 'activate', operation_task_id: taskId });
    expect(await state(SPECIAL_SIMS.activatable)).toEqual({ status: 'pre_activated', sub_status: 'quiet' });
    // A second activation, or any other operation, waits for the task.
    expect((await act(suite.admin, '/sim/active', [SPECIAL_SIMS.activatable])).json().data.results[0].reason).toBe('alreadyActivating');
    expect((await act(suite.operator, '/device/reset', [SPECIAL_SIMS.activatable])).json().data.results[0].message).toBe(
      'Last request still processing: no concurrent operations on a SIM.',
    );

    await runJobs();
    expect(await taskOf(taskId)).toMatchObject({ status: 'done' });
    expect(await state(SPECIAL_SIMS.activatable)).toEqual({ status: 'active', sub_status: 'active_ready' });
    expect(await slot(SPECIAL_SIMS.activatable)).toEqual({ operation: null, operation_task_id: null });
    const sim = (
      await suite.t.db.query<{ activated_at: Date | null; cycle_limit_kb: string | null }>('SELECT activated_at, cycle_limit_kb FROM sims WHERE iccid = $1', [
        SPECIAL_SIMS.activatable,
      ])
    ).rows[0];
    expect(sim.activated_at).not.toBeNull();
    expect(sim.cycle_limit_kb).not.toBeNull();
    const ev = (
      await suite.t.db.query<{ from_status: string; to_status: string; source: string; account_id: string; task: string }>(
        "SELECT from_status, to_status, source, account_id, detail->>'taskId' AS task FROM sim_events WHERE iccid = $1 AND type = 'status_change' ORDER BY id DESC LIMIT 1",
        [SPECIAL_SIMS.activatable],
      )
    ).rows[0];
    expect(ev).toEqual({ from_status: 'pre_activated', to_status: 'active', source: 'network', account_id: suite.admin.accountId, task: taskId });
    expect(await countRows(suite.t.db, 'audit_log', "action = 'activate' AND after->>'taskId' = $1", [taskId])).toBe(2);
    // The live events carried the task's progress to its owner.
    expect(await countRows(suite.t.db, 'live_events', "type = 'task' AND data->>'id' = $1", [taskId])).toBeGreaterThanOrEqual(3);
    // The seeded activation in progress is still processing and still holds its SIM.
    expect((await slot(SPECIAL_SIMS.operationInProgress)).operation).toBe('activate');
    // A request while another operation holds a SIM: "last request still processing".
    const busy = await act(suite.operator, '/sim/suspend', [SPECIAL_SIMS.operationInProgress]);
    expect(busy.json().data.results[0].message).toBe('Last request still processing: no concurrent operations on a SIM.');
  });

  it('in Spanish', async () => {
    const res = await call(suite.t.app, suite.operator, {
      method: 'POST',
      url: '/api/main/sim/resume',
      payload: { iccids: [DEMO_SIMS.inactive] },
      headers: { language: 'es-ES' },
    });
    expect(res.json().data.results[0].message).toBe('Solo se pueden reanudar SIM suspendidas.');
  });

  it('needs one SIM at least and 1000 at most (1000 answered, 1001 refused)', async () => {
    expect((await act(suite.operator, '/device/reset', [])).json().status.message).toBe('Select at least one SIM.');
    const many = (n: number) => Array.from({ length: n }, (_, i) => `8949${String(i).padStart(15, '0')}`);
    const thousand = await act(suite.operator, '/device/reset', many(1000));
    expect(thousand.statusCode).toBe(200);
    expect(thousand.json().data.results).toHaveLength(1000);
    const over = await act(suite.operator, '/device/reset', many(1001));
    expect(over.statusCode).toBe(400);
    expect(over.json().status.message).toBe('At most 1000 SIMs at a time.');
    expect((await act(suite.operator, '/device/reset', ['12345'])).statusCode).toBe(400);
  });

  it('a reset keeps the state and is recorded; rights follow the roles', async () => {
    const before = await events(DEMO_SIMS.paused);
    const res = await act(suite.operator, '/device/reset', [DEMO_SIMS.paused]);
    expect(res.json().data.results[0]).toMatchObject({ ok: true, status: 'paused', subStatus: 'paused' });
    expect(await events(DEMO_SIMS.paused)).toBe(before + 1);
    expect((await act(suite.user, '/sim/suspend', [DEMO_SIMS.active])).statusCode).toBe(403);
    expect((await act(suite.operator, '/sim/active', [DEMO_SIMS.pre_activated])).statusCode).toBe(403);
  });

  it('two activation requests for one SIM at once: exactly one proceeds', async () => {
    await suite.t.db.query("UPDATE sims SET status = 'pre_activated', sub_status = 'quiet', activated_at = NULL WHERE iccid = $1", [SPECIAL_SIMS.activatable]);
    const [a, b] = await Promise.all([
      act(suite.admin, '/sim/active', [SPECIAL_SIMS.activatable]),
      act(suite.admin, '/sim/active', [SPECIAL_SIMS.activatable]),
    ]);
    const oks = [a, b].map((r) => r.json().data.results[0].ok);
    expect(oks.filter(Boolean)).toHaveLength(1);
    const loser = [a, b].find((r) => !r.json().data.results[0].ok)!;
    expect(loser.json().data.results[0].reason).toBe('alreadyActivating');
    expect(loser.json().data.taskId).toBeUndefined();
    expect(await countRows(suite.t.db, 'tasks', "kind = 'sim_activate' AND payload->'iccids' ? $1 AND status = 'processing'", [SPECIAL_SIMS.activatable])).toBe(
      1,
    );
    await runJobs();
    expect(
      await countRows(suite.t.db, 'sim_events', "iccid = $1 AND to_status = 'active' AND detail->>'action' = 'activate'", [SPECIAL_SIMS.activatable]),
    ).toBe(2);
  });

  it('a SIM the network refuses keeps its state, gets its slot back, and the task ends with issues', async () => {
    await suite.t.db.query("UPDATE sims SET status = 'pre_activated', sub_status = 'quiet', activated_at = NULL, imsi = NULL WHERE iccid = $1", [
      SPECIAL_SIMS.activatable,
    ]);
    const res = await act(suite.admin, '/sim/active', [SPECIAL_SIMS.activatable]);
    const { taskId } = res.json().data;
    await runJobs();
    expect(await taskOf(taskId)).toMatchObject({ status: 'issues' });
    expect(await state(SPECIAL_SIMS.activatable)).toEqual({ status: 'pre_activated', sub_status: 'quiet' });
    expect(await slot(SPECIAL_SIMS.activatable)).toEqual({ operation: null, operation_task_id: null });
    const report = (await suite.t.db.query<{ result: { activated: number; failed: number } }>('SELECT result FROM tasks WHERE id = $1', [taskId])).rows[0]
      .result;
    expect(report).toMatchObject({ activated: 0, failed: 1 });
  });
});
