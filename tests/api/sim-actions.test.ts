/**
 * SIM actions through the API: activate, suspend, resume and reset, SIM by SIM, with SPEC.md section 8's refusals,
 * the rights of each role, the count limits, and two activations of one SIM at once.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_SIMS, OTHER_SIM_ICCID, SPECIAL_SIMS } from '../../server/db/seed-fleet.js';
import { buildTestApp, call, countRows, DB_KINDS, DEMO, signIn, type Session, type TestApp } from '../helper.js';

describe.each(DB_KINDS)('SIM actions on %s', (kind) => {
  let t: TestApp;
  let admin: Session;
  let operator: Session;
  let user: Session;
  beforeAll(async () => {
    t = await buildTestApp({ kind });
    admin = await signIn(t.app, DEMO.admin);
    operator = await signIn(t.app, DEMO.operator);
    user = await signIn(t.app, DEMO.user);
  });
  afterAll(() => t.close());

  const act = (s: Session, path: string, iccids: string[]) => call(t.app, s, { method: 'POST', url: `/api/main${path}`, payload: { iccids } });
  const state = async (iccid: string) => (await t.db.query<{ status: string; sub_status: string }>('SELECT status, sub_status FROM sims WHERE iccid = $1', [iccid])).rows[0];
  const events = (iccid: string) => countRows(t.db, 'sim_events', 'iccid = $1', [iccid]);

  it('an operator suspends an active SIM and resumes it; each change is an event and an audit row', async () => {
    const iccid = DEMO_SIMS.active;
    const before = await events(iccid);
    const audits = await countRows(t.db, 'audit_log', "action IN ('suspend', 'resume')");
    const s = await act(operator, '/sim/suspend', [iccid]);
    expect(s.statusCode).toBe(200);
    expect(s.json().data).toEqual({ results: [{ iccid, ok: true, status: 'paused', subStatus: 'paused' }], accepted: 1, refused: 0 });
    expect(await state(iccid)).toEqual({ status: 'paused', sub_status: 'paused' });
    const r = await act(operator, '/sim/resume', [iccid]);
    expect(r.json().data.results[0]).toMatchObject({ ok: true, status: 'active', subStatus: 'active_live' });
    expect(await events(iccid)).toBe(before + 2);
    expect(await countRows(t.db, 'audit_log', "action IN ('suspend', 'resume')")).toBe(audits + 2);
    const last = (await t.db.query<{ from_status: string; to_status: string; source: string }>('SELECT from_status, to_status, source FROM sim_events WHERE iccid = $1 ORDER BY id DESC LIMIT 1', [iccid])).rows[0];
    expect(last).toEqual({ from_status: 'paused', to_status: 'active', source: 'console' });
  });

  it('answers SIM by SIM: one suspended, the others refused with their reasons, nothing else changed', async () => {
    const res = await act(operator, '/sim/suspend', [DEMO_SIMS.active, DEMO_SIMS.paused, DEMO_SIMS.terminated, OTHER_SIM_ICCID, '8949000000000000000']);
    const by = Object.fromEntries(res.json().data.results.map((r: { iccid: string }) => [r.iccid, r]));
    expect(by[DEMO_SIMS.active]).toMatchObject({ ok: true, status: 'paused' });
    expect(by[DEMO_SIMS.paused]).toMatchObject({ ok: false, message: 'Only active SIMs can be suspended.' });
    expect(by[DEMO_SIMS.terminated]).toMatchObject({ ok: false, reason: 'onlyActive' });
    // Another organisation's SIM is as unknown as one that does not exist.
    expect(by[OTHER_SIM_ICCID]).toMatchObject({ ok: false, message: 'The SIM does not exist.' });
    expect(by['8949000000000000000']).toMatchObject({ ok: false, reason: 'notExist' });
    expect(res.json().data).toMatchObject({ accepted: 1, refused: 4 });
    expect(await state(DEMO_SIMS.paused)).toEqual({ status: 'paused', sub_status: 'paused' });
    expect((await t.db.query<{ status: string }>('SELECT status FROM sims WHERE iccid = $1', [OTHER_SIM_ICCID])).rows[0].status).toBe('active');
    await act(operator, '/sim/resume', [DEMO_SIMS.active]);
  });

  it('activation refuses each case of SPEC.md section 8 with its own message, and activates the one that may', async () => {
    const res = await act(admin, '/sim/active', [
      SPECIAL_SIMS.preActivatedOta, SPECIAL_SIMS.preActivatedMultiImsi, SPECIAL_SIMS.preActivatedNoBundle, SPECIAL_SIMS.operationInProgress,
      DEMO_SIMS.expired, DEMO_SIMS.inactive, DEMO_SIMS.active, SPECIAL_SIMS.activatable,
    ]);
    const messages = Object.fromEntries(res.json().data.results.map((r: { iccid: string; message?: string; ok: boolean }) => [r.iccid, r.ok ? 'ok' : r.message]));
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
    expect(await state(SPECIAL_SIMS.activatable)).toEqual({ status: 'active', sub_status: 'active_ready' });
    expect((await t.db.query<{ activated_at: Date | null }>('SELECT activated_at FROM sims WHERE iccid = $1', [SPECIAL_SIMS.activatable])).rows[0].activated_at).not.toBeNull();
    // A request while another operation holds a SIM: "last request still processing".
    const busy = await act(operator, '/sim/suspend', [SPECIAL_SIMS.operationInProgress]);
    expect(busy.json().data.results[0].message).toBe('Last request still processing: no concurrent operations on a SIM.');
  });

  it('in Spanish', async () => {
    const res = await call(t.app, operator, { method: 'POST', url: '/api/main/sim/resume', payload: { iccids: [DEMO_SIMS.inactive] }, headers: { language: 'es-ES' } });
    expect(res.json().data.results[0].message).toBe('Solo se pueden reanudar SIM suspendidas.');
  });

  it('needs one SIM at least and 1000 at most (1000 answered, 1001 refused)', async () => {
    expect((await act(operator, '/device/reset', [])).json().status.message).toBe('Select at least one SIM.');
    const many = (n: number) => Array.from({ length: n }, (_, i) => `8949${String(i).padStart(15, '0')}`);
    const thousand = await act(operator, '/device/reset', many(1000));
    expect(thousand.statusCode).toBe(200);
    expect(thousand.json().data.results).toHaveLength(1000);
    const over = await act(operator, '/device/reset', many(1001));
    expect(over.statusCode).toBe(400);
    expect(over.json().status.message).toBe('At most 1000 SIMs at a time.');
    expect((await act(operator, '/device/reset', ['12345'])).statusCode).toBe(400);
  });

  it('a reset keeps the state and is recorded; rights follow the roles', async () => {
    const before = await events(DEMO_SIMS.paused);
    const res = await act(operator, '/device/reset', [DEMO_SIMS.paused]);
    expect(res.json().data.results[0]).toMatchObject({ ok: true, status: 'paused', subStatus: 'paused' });
    expect(await events(DEMO_SIMS.paused)).toBe(before + 1);
    expect((await act(user, '/sim/suspend', [DEMO_SIMS.active])).statusCode).toBe(403);
    expect((await act(operator, '/sim/active', [DEMO_SIMS.pre_activated])).statusCode).toBe(403);
  });

  it('two activation requests for one SIM at once: exactly one proceeds', async () => {
    await t.db.query("UPDATE sims SET status = 'pre_activated', sub_status = 'quiet', activated_at = NULL WHERE iccid = $1", [SPECIAL_SIMS.activatable]);
    const [a, b] = await Promise.all([act(admin, '/sim/active', [SPECIAL_SIMS.activatable]), act(admin, '/sim/active', [SPECIAL_SIMS.activatable])]);
    const oks = [a, b].map((r) => r.json().data.results[0].ok);
    expect(oks.filter(Boolean)).toHaveLength(1);
    const loser = [a, b].find((r) => !r.json().data.results[0].ok)!;
    expect(loser.json().data.results[0].reason).toBe('onlyPreActivated');
    expect(await countRows(t.db, 'sim_events', "iccid = $1 AND to_status = 'active' AND detail->>'action' = 'activate'", [SPECIAL_SIMS.activatable])).toBe(2);
  });
});
