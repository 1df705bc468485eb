/**
 * Whose tasks a person sees: their own in GET /rest/job/my and on the live stream, never another member's (nor its
 * file or log); an administrator also sees the organisation's in GET /rest/job/all, each saying who started it, and
 * hears their progress on the live stream, until their rights change.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { DEMO_TASK_ID } from '../../server/db/seed-fleet.js';
import { call, DB_KINDS, DEMO, type Session, signedInSuite, signIn } from '../helper.js';
import { listenOnLoopback, openLive, taskFrames, waitUntil } from '../sse.js';

const SIM_EXPORT = '/api/main/sim/list/export/task';
type Item = { id: string; startedBy: string; mine: boolean };

describe.each(DB_KINDS)('whose tasks on %s', (kind) => {
  const suite = signedInSuite({ kind, config: { livePollMs: 50 } });
  let base: string;
  let admin: Session;
  let operator: Session;
  let user: Session;
  let other: Session;
  beforeAll(async () => {
    base = await listenOnLoopback(suite.t.app);
    admin = await signIn(suite.t.app, DEMO.admin);
    operator = await signIn(suite.t.app, DEMO.operator);
    user = await signIn(suite.t.app, DEMO.user);
    other = await signIn(suite.t.app, 'admin@other.example.com');
  });

  const get = (s: Session, url: string) => call(suite.t.app, s, { method: 'GET', url });
  const exportSims = async (s: Session) => {
    const res = await call(suite.t.app, s, { method: 'POST', url: SIM_EXPORT, payload: { format: 'csv' } });
    expect(res.statusCode).toBe(200);
    return res.json().data.taskId as string;
  };
  /** Streams are subscribed once their ready frame has come. */
  const ready = (...streams: Array<{ frames: { event: string }[] }>) =>
    waitUntil('the ready frames', () => streams.every((s) => s.frames.some((f) => f.event === 'ready')));
  const setRole = async (role: string) =>
    expect((await call(suite.t.app, admin, { method: 'PUT', url: `/api/main/accounts/${operator.accountId}`, payload: { role } })).statusCode).toBe(200);

  it('the live stream tells a member of their own tasks only, and an administrator of every member’s', async () => {
    const mine = await openLive(base, user);
    const operators = await openLive(base, operator);
    const admins = await openLive(base, admin);
    const theirs = await openLive(base, other);
    await ready(mine, operators, admins, theirs);
    const adminTask = await exportSims(admin);
    const userTask = await exportSims(user);
    // The hub hands each event to every stream in the same round: once these have come, the others had their chance.
    await waitUntil(
      'each task on its streams',
      () => taskFrames(admins.frames, adminTask).length > 0 && taskFrames(admins.frames, userTask).length > 0 && taskFrames(mine.frames, userTask).length > 0,
    );
    await Promise.all([mine.stop(), operators.stop(), admins.stop(), theirs.stop()]);
    expect(taskFrames(mine.frames, adminTask)).toEqual([]);
    expect(operators.frames.filter((f) => f.event === 'task')).toEqual([]);
    expect(theirs.frames.filter((f) => f.event === 'task')).toEqual([]);
    // A reconnecting browser's replay chooses the same way.
    const replayed = await openLive(base, user, { 'last-event-id': '0' });
    const adminReplayed = await openLive(base, admin, { 'last-event-id': '0' });
    await waitUntil('the replays', () => taskFrames(replayed.frames, userTask).length > 0 && taskFrames(adminReplayed.frames, userTask).length > 0);
    await Promise.all([replayed.stop(), adminReplayed.stop()]);
    expect(taskFrames(replayed.frames, adminTask)).toEqual([]);
    expect(taskFrames(adminReplayed.frames, adminTask).length).toBeGreaterThan(0);
  });

  it('a rights change ends the stream, so an administrator made an operator hears no other member’s task after it', async () => {
    // The promotion's own rights change must have reached the operator's streams before the promoted one opens;
    // otherwise a late delivery of it (the event log waits on older transactions) would end the new stream too.
    const before = await openLive(base, operator);
    await ready(before);
    await setRole('admin');
    try {
      await waitUntil('the promotion on the old stream', () => before.frames.some((f) => f.event === 'permissions'));
      await before.stop();
      const promoted = await openLive(base, operator);
      const mine = await openLive(base, user);
      await ready(promoted, mine);
      const earlier = await exportSims(user);
      await waitUntil('the member’s task on the administrator’s stream', () => taskFrames(promoted.frames, earlier).length > 0);
      await setRole('operator');
      // Told, then ended: the browser reconnects under its new rights.
      await waitUntil('the rights change', () => promoted.frames.some((f) => f.event === 'permissions'));
      let ended = false;
      void promoted.ended.then(() => (ended = true));
      await waitUntil('the stream’s end', () => ended);
      const demoted = await openLive(base, operator);
      await ready(demoted);
      const after = await exportSims(user);
      await waitUntil('the member’s task on their own stream', () => taskFrames(mine.frames, after).length > 0);
      await Promise.all([mine.stop(), demoted.stop()]);
      expect(taskFrames(demoted.frames, after)).toEqual([]);
    } finally {
      await setRole('operator');
    }
  });

  it('a user lists, opens, logs and downloads their own tasks only', async () => {
    const adminTask = await exportSims(admin);
    const items = (await get(user, '/api/job/rest/job/my?pageSize=100')).json().data.items as Item[];
    expect(items.map((i) => i.id)).not.toContain(adminTask);
    expect(items.map((i) => i.id)).not.toContain(DEMO_TASK_ID);
    expect((await get(user, `/api/job/rest/job/my/${adminTask}`)).statusCode).toBe(404);
    expect((await get(user, `/api/job/rest/logs/provider/result/${DEMO_TASK_ID}`)).statusCode).toBe(404);
    // The seeded admin export has its file: the link is refused to anyone else.
    expect((await get(user, `/api/job/rest/job/my/oneTimeToken?id=${DEMO_TASK_ID}`)).statusCode).toBe(404);
    expect((await get(operator, `/api/job/rest/job/my/oneTimeToken?id=${DEMO_TASK_ID}`)).statusCode).toBe(404);
    expect((await get(admin, `/api/job/rest/job/my/oneTimeToken?id=${DEMO_TASK_ID}`)).statusCode).toBe(200);
  });

  it('only administrators list the organisation’s tasks, each saying who started it', async () => {
    const userTask = await exportSims(user);
    for (const s of [user, operator]) expect((await get(s, '/api/job/rest/job/all')).statusCode).toBe(403);
    const res = await get(admin, '/api/job/rest/job/all?pageSize=100');
    expect(res.statusCode).toBe(200);
    const items = res.json().data.items as Item[];
    expect(items.find((i) => i.id === userTask)).toMatchObject({ startedBy: 'Umar User', mine: false });
    expect(items.find((i) => i.id === DEMO_TASK_ID)).toMatchObject({ startedBy: 'Adam Admin', mine: true });
    // Another organisation's administrator sees none of them.
    const theirs = (await get(other, '/api/job/rest/job/all?pageSize=100')).json().data.items as Item[];
    expect(theirs.map((i) => i.id)).not.toContain(userTask);
    // The administrator may open the member's task's log and file like their own.
    expect((await get(admin, `/api/job/rest/logs/provider/result/${userTask}`)).statusCode).toBe(200);
  });
});
