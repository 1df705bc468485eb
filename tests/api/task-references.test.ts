/**
 * The task center's facts agree with each other: every task's reference id has one format, whether the demo seed, an
 * export or a report made it, and references of the older formats are brought to it by their migration keeping their
 * day and number; a task's remark says what it is about, never a state its status column may contradict. On PGlite
 * and, with TEST_DATABASE_URL, PostgreSQL.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { BUSY_TASK_ID } from '../../server/db/seed/fixtures.js';
import { TASK_REFERENCE_PATTERN } from '../../server/job/task-reference.js';
import { call, DB_KINDS, DEMO, signedInSuite } from '../helper.js';

const MIGRATION = path.join(import.meta.dirname, '../../server/db/migrations/062_task_reference_format.sql');

describe.each(DB_KINDS)('task references and remarks on %s', (kind) => {
  const suite = signedInSuite(kind, { admin: DEMO.admin });
  const tasks = async () =>
    (await call(suite.t.app, suite.admin, { method: 'GET', url: '/api/job/rest/job/my?page=1&pageSize=100' })).json().data.items as Array<{
      id: string;
      referenceId: string;
      task: string;
      remark: string | null;
      status: string;
    }>;

  it('gives every task of the demo and every new export one reference format', async () => {
    const made = await call(suite.t.app, suite.admin, { method: 'POST', url: '/api/main/sim/list/export/task', payload: { format: 'csv' } });
    expect(made.statusCode).toBe(200);
    expect(made.json().data.referenceId).toMatch(TASK_REFERENCE_PATTERN);
    const all = (await suite.t.db.query<{ reference_id: string; kind: string }>('SELECT reference_id, kind FROM tasks')).rows;
    expect(all.length).toBeGreaterThan(3);
    expect(all.filter((r) => !TASK_REFERENCE_PATTERN.test(r.reference_id))).toEqual([]);
    // The prefix says what the task does: exports EXP, activations ACT, uploads UPL.
    for (const r of all) {
      const prefix = r.reference_id.slice(0, 3);
      if (r.kind.endsWith('_export')) expect(prefix).toBe('EXP');
      if (r.kind === 'sim_activate') expect(prefix).toBe('ACT');
      if (r.kind === 'sim_info_upload') expect(prefix).toBe('UPL');
    }
  });

  it('names what an activation is about in its remark, so it cannot contradict the status when the task ends with issues', async () => {
    const busy = (await tasks()).find((t) => t.id === BUSY_TASK_ID)!;
    expect(busy.task).toBe('sim_activate');
    expect(busy.remark).toMatch(/^89\d{17,18}$/);
    // Whatever a task's status, no remark claims a state of its own.
    for (const t of await tasks()) expect(t.remark ?? '').not.toMatch(/in progress|processing|done|finished/i);
  });

  it('brings references of the older formats to the one format, keeping their day and number, and clears a stated state from a remark', async () => {
    const rows = [
      { id: 'oldRefExport00000000', kind: 'sim_export', ref: 'T202611271001', remark: 'CSV', payload: {}, want: 'EXP-20261127-001001', wantRemark: 'CSV' },
      { id: 'oldRefReset000000000', kind: 'sim_reset', ref: 'T202611261023', remark: null, payload: {}, want: 'RST-20261126-001023', wantRemark: null },
      {
        id: 'oldRefReport00000000',
        kind: 'report',
        ref: 'REP-202610-AB12CD',
        remark: 'usage · 2026-10',
        payload: {},
        want: 'REP-20261105-AB12CD',
        wantRemark: 'usage · 2026-10',
      },
      {
        id: 'oldRefActivate000000',
        kind: 'sim_activate',
        ref: 'ACT-20261127-ZZ99AA',
        remark: 'Activation in progress',
        payload: { iccids: ['89490200001234567890'] },
        want: 'ACT-20261127-ZZ99AA',
        wantRemark: '89490200001234567890',
      },
    ];
    for (const r of rows) {
      await suite.t.db.query(
        `INSERT INTO tasks (org_id, id, reference_id, kind, quantity, remark, payload, status, progress, created_at, started_at, ended_at)
         VALUES ('org-demo', $1, $2, $3, 1, $4, $5, 'issues', 100, '2026-11-05T10:00:00Z', '2026-11-05T10:00:01Z', '2026-11-05T10:01:00Z')`,
        [r.id, r.ref, r.kind, r.remark, JSON.stringify(r.payload)],
      );
    }
    await suite.t.db.exec(fs.readFileSync(MIGRATION, 'utf8'));
    const after = (
      await suite.t.db.query<{ id: string; reference_id: string; remark: string | null }>(
        'SELECT id, reference_id, remark FROM tasks WHERE id LIKE $1 ORDER BY id',
        ['oldRef%'],
      )
    ).rows;
    expect(Object.fromEntries(after.map((r) => [r.id, [r.reference_id, r.remark]]))).toEqual(
      Object.fromEntries(rows.map((r) => [r.id, [r.want, r.wantRemark]])),
    );
    expect(after.every((r) => TASK_REFERENCE_PATTERN.test(r.reference_id))).toBe(true);
  });
});
