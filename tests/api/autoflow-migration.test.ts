/**
 * Migration 020 on a database that already holds rules of the first data model (one action, the pool-usage and
 * session-start triggers, conditions in the old words): every rule comes through as a document of
 * common/autoflow-rule.ts, and the rules of kinds SPEC.md does not list are disabled rather than left to fire.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate, type Db } from '../../server/db/db.js';
import { DB_KINDS, emptyDb } from '../helper.js';

const MIGRATION = '020_autoflow_rules.sql';

describe.each(DB_KINDS)('migration 020 on %s', (kind) => {
  let db: Db;
  let drop: () => Promise<void>;
  beforeAll(async () => {
    ({ db, drop } = await emptyDb(kind));
    // Every migration but 020: it is marked done for the first run, then unmarked.
    await db.query('CREATE TABLE schema_migrations (name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())');
    await db.query('INSERT INTO schema_migrations (name) VALUES ($1)', [MIGRATION]);
    await migrate(db);
  });
  afterAll(() => drop?.());

  it('turns single actions into ordered lists, old conditions into the schema’s words, and disables retired kinds', async () => {
    await db.query("INSERT INTO brands (id, partner_code) VALUES ('brand-old', 'OLDP')");
    await db.query("INSERT INTO organisations (id, code, name, brand_id, root_id) VALUES ('org-old', 'OLD', 'Old Org Ltd', 'brand-old', 'org-old')");
    const insert = (id: string, name: string, trigger: string, condition: object, action: { type: string }, status = 'enabled') =>
      db.query(
        `INSERT INTO autoflow_rules (org_id, id, name, trigger, condition, action, action_type, status)
         VALUES ('org-old', $1, $2, $3, $4, $5, $6, $7)`,
        [id, name, trigger, JSON.stringify(condition), JSON.stringify(action), action.type, status],
      );
    await insert('R0000000000000000001', 'Usage', 'data_usage', { threshold: 50, unit: 'MB', cycle: 'MONTH' }, {
      type: 'email',
      emails: ['ops@old.example.com'],
    } as never);
    await insert('R0000000000000000002', 'Burst', 'sms_mo', { count: 20, period: 'DAY' }, { type: 'suspend' });
    await insert('R0000000000000000003', 'Pool', 'pool_usage', { percent: 80 }, { type: 'webhook' });
    await insert('R0000000000000000004', 'Session', 'session_start', { apn: 'x' }, { type: 'webhook' });
    await insert('R0000000000000000005', 'Swap', 'imei_change', {}, { type: 'suspend' }, 'disabled');
    await db.query('DELETE FROM schema_migrations WHERE name = $1', [MIGRATION]);
    expect(await migrate(db)).toEqual([MIGRATION]);
    const rows = (
      await db.query<{ id: string; trigger: string; condition: unknown; actions: unknown; status: string }>(
        'SELECT id, trigger, condition, actions, status FROM autoflow_rules ORDER BY id',
      )
    ).rows;
    expect(rows).toEqual([
      {
        id: 'R0000000000000000001',
        trigger: 'data_usage',
        condition: { threshold: 50, unit: 'MB', window: 'cycle' },
        actions: [{ type: 'email', emails: ['ops@old.example.com'] }],
        status: 'enabled',
      },
      { id: 'R0000000000000000002', trigger: 'sms_mo', condition: { count: 20, window: 'rolling_24h' }, actions: [{ type: 'suspend' }], status: 'enabled' },
      { id: 'R0000000000000000003', trigger: 'data_usage_percent', condition: { percent: 80 }, actions: [{ type: 'webhook' }], status: 'disabled' },
      { id: 'R0000000000000000004', trigger: 'network_change', condition: {}, actions: [{ type: 'webhook' }], status: 'disabled' },
      { id: 'R0000000000000000005', trigger: 'imei_change', condition: { mode: 'any' }, actions: [{ type: 'suspend' }], status: 'disabled' },
    ]);
  });
});
