/** One SIM's basic information and an admin's edits: device name 40, notes 140, 10 tags of 10, both sides of each. */
import { describe, expect, it } from 'vitest';
import { DEMO_SIMS, OTHER_SIM_ICCID } from '../../server/db/seed-fleet.js';
import { call, countRows, DB_KINDS, DEMO, type Session, signedInSuite } from '../helper.js';

describe.each(DB_KINDS)('SIM information on %s', (kind) => {
  const suite = signedInSuite(kind, { admin: DEMO.admin, operator: DEMO.operator });
  const iccid = DEMO_SIMS.active;

  const edit = (s: Session, path: string, payload: object) => call(suite.t.app, s, { method: 'POST', url: `/api/main${path}`, payload: { iccid, ...payload } });

  it("shows a SIM of the organisation; another organisation's is not found", async () => {
    const res = await call(suite.t.app, suite.operator, { method: 'GET', url: `/api/main/sim/basic?iccid=${iccid}` });
    expect(res.json().data).toMatchObject({ iccid, status: 'active' });
    expect((await call(suite.t.app, suite.operator, { method: 'GET', url: `/api/main/sim/basic?iccid=${OTHER_SIM_ICCID}` })).statusCode).toBe(404);
    expect((await call(suite.t.app, suite.operator, { method: 'GET', url: '/api/main/sim/basic?iccid=12' })).statusCode).toBe(400);
  });

  it.each([
    ['/sim/deviceName', { deviceName: 'd'.repeat(40) }, { deviceName: 'd'.repeat(41) }, 'Device name must be at most 40 characters long'],
    ['/device/saveNote', { notes: 'n'.repeat(140) }, { notes: 'n'.repeat(141) }, 'must be at most 140 characters'],
    [
      '/device/saveTag',
      { tags: Array.from({ length: 10 }, (_, i) => `tag-${i}`) },
      { tags: Array.from({ length: 11 }, (_, i) => `tag-${i}`) },
      'Tags can have at most 10 entries',
    ],
    ['/device/saveTag', { tags: ['ten-chars!'] }, { tags: ['eleven-char'] }, 'must be at most 10 characters'],
  ])('%s takes the limit and refuses one over it', async (path, ok, over, message) => {
    const good = await edit(suite.admin, path, ok);
    expect(good.statusCode).toBe(200);
    expect(good.json().data).toMatchObject(ok);
    const events = await countRows(suite.t.db, 'sim_events', 'iccid = $1', [iccid]);
    const bad = await edit(suite.admin, path, over);
    expect(bad.statusCode).toBe(400);
    expect(bad.json().status.message).toContain(message);
    expect(await countRows(suite.t.db, 'sim_events', 'iccid = $1', [iccid])).toBe(events);
  });

  it('tags are trimmed and kept once; an empty device name clears it', async () => {
    expect((await edit(suite.admin, '/device/saveTag', { tags: [' cold ', 'cold', 'north'] })).json().data.tags).toEqual(['cold', 'north']);
    expect((await edit(suite.admin, '/device/saveTag', { tags: ['dup', 'dup'] })).json().status.message).toContain('Tags must not list the same entry twice');
    expect((await edit(suite.admin, '/sim/deviceName', { deviceName: '  ' })).json().data.deviceName).toBeNull();
  });

  it("only admins edit, only their organisation's SIMs", async () => {
    expect((await edit(suite.operator, '/sim/deviceName', { deviceName: 'Operator' })).statusCode).toBe(403);
    const theirs = await call(suite.t.app, suite.admin, {
      method: 'POST',
      url: '/api/main/sim/deviceName',
      payload: { iccid: OTHER_SIM_ICCID, deviceName: 'Not mine' },
    });
    expect(theirs.statusCode).toBe(404);
  });
});
