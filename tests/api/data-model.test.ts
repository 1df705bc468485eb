import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isValidIccid, isValidImei, isValidImsi, isValidMsisdn, makeIccid } from '../../common/iccid.js';
import { migrate, type Db, type Queryable } from '../../server/db/db.js';
import { seedDemo } from '../../server/db/seed.js';
import { filesIn } from '../../server/job/storage.js';
import {
  BUSY_TASK_ID,
  DEMO_API_KEY_ID,
  DEMO_NOTIFICATION_KEY_ID,
  DEMO_POOL_ID,
  DEMO_RULE_ID,
  DEMO_RULE_NAME,
  DEMO_SCHEDULE_ID,
  DEMO_SIMS,
  DEMO_SIM_IDS,
  DEMO_TASK_ID,
  EXECUTING_SCHEDULE_ID,
  FLEET_SIZES,
  NORTH_SIM_ICCID,
  OTHER_SIM_ICCID,
  SIM_STATUSES,
  SIM_TECHNOLOGIES,
  SOUTH_SIM_ICCID,
  SPECIAL_SIMS,
} from '../../server/db/seed-fleet.js';
import { countRows, DB_KINDS, freshDb } from '../helper.js';

const CHECK = { code: '23514' };
const UNIQUE = { code: '23505' };

describe.each(DB_KINDS)('data model on %s', (kind) => {
  let db: Db;
  let drop: () => Promise<void>;
  let seq = 0;
  const newIccid = () => makeIccid('894999', 9_000_000 + seq++, 20);
  const newId = () => `T${String(Date.now()).slice(-8)}${String(seq++).padStart(11, '0')}`;

  beforeAll(async () => {
    ({ db, drop } = await freshDb(kind));
    // The files the seed lists (reports, finished exports) go to a folder of this file's own.
    await seedDemo(db, { size: 'small', files: filesIn(fs.mkdtempSync(path.join(os.tmpdir(), 'iot-seed-'))) });
  });
  afterAll(() => drop());

  describe('migrations', () => {
    it('apply the fleet migration on a fresh database and then have nothing left to do', async () => {
      const names = (await db.query<{ name: string }>('SELECT name FROM schema_migrations ORDER BY name')).rows.map((r) => r.name);
      expect(names).toEqual(expect.arrayContaining(['001_core.sql', '002_fleet.sql']));
      expect(await migrate(db)).toEqual([]);
    });

    it('create every fleet table', async () => {
      const tables = [
        'sims',
        'sim_events',
        'bundle_orders',
        'cdrs',
        'usage_daily',
        'usage_hourly',
        'shared_pools',
        'pool_members',
        'pool_events',
        'autoflow_rules',
        'autoflow_runs',
        'sms_schedules',
        'sms_schedule_runs',
        'sms_records',
        'api_keys',
        'notification_keys',
        'api_logs',
        'notification_logs',
        'invoices',
        'invoice_lines',
        'reports',
        'report_preferences',
        'tasks',
        'files',
      ];
      const r = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM pg_tables WHERE schemaname = current_schema() AND tablename = ANY($1)', [tables]);
      // cdrs itself is partitioned, so pg_tables lists it as well on PostgreSQL 15 and 18.
      expect(r.rows[0].n).toBe(tables.length);
    });

    it('partition cdrs by month with a default partition', async () => {
      const r = await db.query<{ name: string }>(
        "SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = 'cdrs'::regclass",
      );
      const names = r.rows.map((x) => x.name);
      expect(names).toContain('cdrs_default');
      expect(names).toContain('cdrs_y2026m01');
      expect(names).toContain('cdrs_y2027m12');
    });

    it('lead the SIM indexes with org_id, including the reversed suffix-search ones', async () => {
      const r = await db.query<{ def: string }>("SELECT indexdef AS def FROM pg_indexes WHERE tablename = 'sims'");
      const defs = r.rows.map((x) => x.def);
      for (const col of [
        'reverse(iccid) text_pattern_ops',
        'reverse(imei) text_pattern_ops',
        'reverse(msisdn) text_pattern_ops',
        'reverse(lower(device_name)) text_pattern_ops',
      ]) {
        expect(defs.some((d) => d.includes(`(org_id, ${col})`))).toBe(true);
      }
      expect(defs.some((d) => d.includes('(org_id, status, iccid)'))).toBe(true);
    });
  });

  describe('small seed', () => {
    it('gives each organisation its number of SIMs', async () => {
      for (const [org, n] of Object.entries(FLEET_SIZES.small)) expect(await countRows(db, 'sims', 'org_id = $1', [org])).toBe(n);
    });

    it('spreads org-demo over every lifecycle status and technology', async () => {
      const statuses = (await db.query<{ s: string }>("SELECT DISTINCT status AS s FROM sims WHERE org_id = 'org-demo'")).rows.map((r) => r.s);
      expect(statuses.sort()).toEqual([...SIM_STATUSES].sort());
      const techs = (await db.query<{ t: string }>("SELECT DISTINCT technology AS t FROM sims WHERE org_id = 'org-demo'")).rows.map((r) => r.t);
      expect(techs.sort()).toEqual([...SIM_TECHNOLOGIES].sort());
    });

    it('puts each DEMO_SIMS fixture in org-demo with its status and id', async () => {
      for (const status of SIM_STATUSES) {
        const r = await db.query<{ id: string; org_id: string; status: string }>('SELECT id, org_id, status FROM sims WHERE iccid = $1', [DEMO_SIMS[status]]);
        expect(r.rows[0]).toEqual({ id: DEMO_SIM_IDS[status], org_id: 'org-demo', status });
      }
    });

    it('places the other fixtures where their names say', async () => {
      const org = async (iccid: string) => (await db.query<{ org_id: string }>('SELECT org_id FROM sims WHERE iccid = $1', [iccid])).rows[0]?.org_id;
      expect(await org(OTHER_SIM_ICCID)).toBe('org-other');
      expect(await org(NORTH_SIM_ICCID)).toBe('org-demo-north');
      expect(await org(SOUTH_SIM_ICCID)).toBe('org-demo-south');
      const special = await db.query<{ iccid: string; technology: string; operation: string | null; pool_id: string | null; available: number }>(
        `SELECT iccid, technology, operation, pool_id,
                (SELECT count(*)::int FROM bundle_orders b WHERE b.sim_id = s.id AND b.status IN ('PENDING', 'IN_USE') AND b.type <> 'BEFORE_TEST') AS available
         FROM sims s WHERE iccid = ANY($1)`,
        [Object.values(SPECIAL_SIMS)],
      );
      const by = Object.fromEntries(special.rows.map((r) => [r.iccid, r]));
      expect(by[SPECIAL_SIMS.activatable]).toMatchObject({ technology: 'ONE_IMSI', operation: null });
      expect(by[SPECIAL_SIMS.activatable].available).toBeGreaterThan(0);
      expect(by[SPECIAL_SIMS.preActivatedOta].technology).toBe('OTA');
      expect(by[SPECIAL_SIMS.preActivatedMultiImsi].technology).toBe('MULTI_IMSI');
      expect(by[SPECIAL_SIMS.preActivatedNoBundle].available).toBe(0);
      expect(by[SPECIAL_SIMS.operationInProgress].operation).toBe('activate');
      expect(by[SPECIAL_SIMS.inSharedPool].pool_id).toBe(DEMO_POOL_ID);
    });

    it('stores only valid ICCIDs, IMSIs, IMEIs and MSISDNs', async () => {
      const r = await db.query<{ iccid: string; imsi: string; imei: string | null; msisdn: string }>('SELECT iccid, imsi, imei, msisdn FROM sims');
      for (const s of r.rows) {
        expect(isValidIccid(s.iccid)).toBe(true);
        expect(isValidImsi(s.imsi)).toBe(true);
        expect(isValidMsisdn(s.msisdn)).toBe(true);
        if (s.imei !== null) expect(isValidImei(s.imei)).toBe(true);
      }
    });

    it('writes a few hundred CDRs whose daily and hourly rollups add up', async () => {
      expect(await countRows(db, 'cdrs')).toBeGreaterThanOrEqual(150);
      const sums = await db.query<{ cdr: number; daily: number; hourly: number; daily_rows: number; hourly_rows: number }>(`
        SELECT (SELECT sum(volume_kb)::int FROM cdrs) AS cdr, (SELECT sum(volume_kb)::int FROM usage_daily) AS daily,
               (SELECT sum(volume_kb)::int FROM usage_hourly) AS hourly,
               (SELECT sum(cdr_count)::int FROM usage_daily) AS daily_rows, (SELECT sum(cdr_count)::int FROM usage_hourly) AS hourly_rows`);
      const s = sums.rows[0];
      expect(s.daily).toBe(s.cdr);
      expect(s.hourly).toBe(s.cdr);
      expect(s.daily_rows).toBe(await countRows(db, 'cdrs'));
      expect(s.hourly_rows).toBe(s.daily_rows);
    });

    it('fills every other fleet table', async () => {
      for (const t of [
        'sim_events',
        'bundle_orders',
        'pool_members',
        'pool_events',
        'autoflow_runs',
        'sms_schedule_runs',
        'sms_records',
        'notification_keys',
        'api_logs',
        'notification_logs',
        'invoice_lines',
        'reports',
        'report_preferences',
        'files',
      ]) {
        expect(await countRows(db, t), t).toBeGreaterThan(0);
      }
      expect(await countRows(db, 'shared_pools', 'id = $1', [DEMO_POOL_ID])).toBe(1);
      expect(await countRows(db, 'autoflow_rules', "id = $1 AND name = $2 AND status = 'enabled'", [DEMO_RULE_ID, DEMO_RULE_NAME])).toBe(1);
      expect(await countRows(db, 'sms_schedules', "id = $1 AND mode = 'repeated'", [DEMO_SCHEDULE_ID])).toBe(1);
      expect(await countRows(db, 'sms_schedules', "id = $1 AND mode = 'once' AND executing", [EXECUTING_SCHEDULE_ID])).toBe(1);
      // Last month's invoice of every organisation with bundles, made by the monthly job (server/db/seed/invoices.ts).
      expect(
        await countRows(
          db,
          'invoices',
          "origin = 'job' AND type = 'post_payment' AND billing_cycle = to_char(date_trunc('month', now()) - interval '1 month', 'YYYY-MM')",
        ),
      ).toBe(4);
      expect(await countRows(db, 'api_keys', "id = $1 AND org_id = 'org-demo'", [DEMO_API_KEY_ID])).toBe(1);
      expect(await countRows(db, 'notification_keys', "id = $1 AND webhook_url LIKE 'https://%'", [DEMO_NOTIFICATION_KEY_ID])).toBe(1);
      expect(await countRows(db, 'tasks', "id = $1 AND status = 'done' AND result_file_id IS NOT NULL", [DEMO_TASK_ID])).toBe(1);
      expect(await countRows(db, 'tasks', "id = $1 AND status = 'processing'", [BUSY_TASK_ID])).toBe(1);
    });

    it('keeps invoice totals equal to the sum of their lines', async () => {
      const r = await db.query<{ excl: string; lines: string }>(
        "SELECT i.amount_excl_tax::text AS excl, (SELECT round(sum(amount), 2)::text FROM invoice_lines l WHERE l.invoice_id = i.id) AS lines FROM invoices i WHERE i.origin = 'job'",
      );
      expect(r.rows.length).toBeGreaterThan(0);
      for (const row of r.rows) expect(row.excl).toBe(row.lines);
    });
  });

  describe('limits held by the database', () => {
    const setSim = (col: string, value: unknown) => db.query(`UPDATE sims SET ${col} = $1 WHERE iccid = $2`, [value, DEMO_SIMS.inactive]);

    it('accepts a device name of 40 characters and refuses 41', async () => {
      await expect(setSim('device_name', 'd'.repeat(40))).resolves.toBeTruthy();
      await expect(setSim('device_name', 'd'.repeat(41))).rejects.toMatchObject(CHECK);
    });

    it('accepts notes of 140 characters and refuses 141', async () => {
      await expect(setSim('notes', 'n'.repeat(140))).resolves.toBeTruthy();
      await expect(setSim('notes', 'n'.repeat(141))).rejects.toMatchObject(CHECK);
    });

    it('accepts 10 tags and refuses 11', async () => {
      const tags = Array.from({ length: 11 }, (_, i) => `tag${i}`);
      await expect(setSim('tags', tags.slice(0, 10))).resolves.toBeTruthy();
      await expect(setSim('tags', tags)).rejects.toMatchObject(CHECK);
    });

    it('accepts a tag of 10 characters and refuses 11 or an empty tag', async () => {
      await expect(setSim('tags', ['t'.repeat(10)])).resolves.toBeTruthy();
      await expect(setSim('tags', ['t'.repeat(11)])).rejects.toMatchObject(CHECK);
      await expect(setSim('tags', [''])).rejects.toMatchObject(CHECK);
    });

    it('refuses an ICCID with a wrong check digit and a status that disagrees with its sub-status', async () => {
      const good = newIccid();
      const bad = good.slice(0, -1) + String((Number(good.at(-1)) + 1) % 10);
      const insert = (iccid: string, status = 'inactive', sub = 'inactive') =>
        db.query("INSERT INTO sims (org_id, id, iccid, technology, status, sub_status) VALUES ('org-demo', $1, $2, 'ONE_IMSI', $3, $4)", [
          newId(),
          iccid,
          status,
          sub,
        ]);
      await expect(insert(bad)).rejects.toMatchObject(CHECK);
      await expect(insert(newIccid(), 'active', 'quiet')).rejects.toMatchObject(CHECK);
      await expect(insert(good, 'pre_activated', 'test')).resolves.toBeTruthy();
      await expect(insert(good)).rejects.toMatchObject(UNIQUE);
    });

    it('accepts SMS content of 140 characters and refuses 141', async () => {
      const sms = (content: string) =>
        db.query("INSERT INTO sms_records (org_id, id, iccid, direction, content, status) VALUES ('org-demo', $1, $2, 'MT', $3, 'pending')", [
          newId(),
          DEMO_SIMS.active,
          content,
        ]);
      await expect(sms('s'.repeat(140))).resolves.toBeTruthy();
      await expect(sms('s'.repeat(141))).rejects.toMatchObject(CHECK);
    });

    it('accepts scheduled SMS names of 1 and 50 characters and refuses 0 and 51', async () => {
      const schedule = (name: string) =>
        db.query("INSERT INTO sms_schedules (org_id, id, name, content, mode, start_at) VALUES ('org-demo', $1, $2, 'PING', 'once', now())", [newId(), name]);
      await expect(schedule('a')).resolves.toBeTruthy();
      await expect(schedule('b'.repeat(50))).resolves.toBeTruthy();
      await expect(schedule('')).rejects.toMatchObject(CHECK);
      await expect(schedule('c'.repeat(51))).rejects.toMatchObject(CHECK);
    });

    it('refuses scheduled SMS content over 140 characters', async () => {
      await expect(
        db.query("INSERT INTO sms_schedules (org_id, id, name, content, mode, start_at) VALUES ('org-demo', $1, 'Too long', $2, 'once', now())", [
          newId(),
          'x'.repeat(141),
        ]),
      ).rejects.toMatchObject(CHECK);
    });

    it('accepts an autoflow name of 100 characters and refuses 101', async () => {
      const rule = (name: string) =>
        db.query(`INSERT INTO autoflow_rules (org_id, id, name, trigger, actions) VALUES ('org-demo', $1, $2, 'data_usage', '[{"type":"webhook"}]')`, [
          newId(),
          name,
        ]);
      await expect(rule('r'.repeat(100))).resolves.toBeTruthy();
      await expect(rule('r'.repeat(101))).rejects.toMatchObject(CHECK);
      await expect(rule('')).rejects.toMatchObject(CHECK);
    });

    it('refuses a duplicate autoflow name in one organisation but not in another, nor after deletion', async () => {
      const rule = (org: string, name: string) =>
        db.query(`INSERT INTO autoflow_rules (org_id, id, name, trigger, actions) VALUES ($1, $2, $3, 'data_usage', '[{"type":"webhook"}]')`, [
          org,
          newId(),
          name,
        ]);
      await expect(rule('org-demo', DEMO_RULE_NAME)).rejects.toMatchObject(UNIQUE);
      await expect(rule('org-other', DEMO_RULE_NAME)).resolves.toBeTruthy();
      await db.query("UPDATE autoflow_rules SET status = 'deleted', deleted_at = now() WHERE org_id = 'org-other' AND name = $1", [DEMO_RULE_NAME]);
      await expect(rule('org-other', DEMO_RULE_NAME)).resolves.toBeTruthy();
    });

    it('accepts an API key name of 60 characters or none and refuses 61 or empty', async () => {
      const key = (name: string | null) =>
        db.query("INSERT INTO api_keys (org_id, id, account_id, name, key_id, public_key) VALUES ('org-demo', $1, 'acc-admin', $2, $3, 'PEM')", [
          newId(),
          name,
          newId(),
        ]);
      await expect(key('k'.repeat(60))).resolves.toBeTruthy();
      await expect(key(null)).resolves.toBeTruthy();
      await expect(key('k'.repeat(61))).rejects.toMatchObject(CHECK);
      await expect(key('')).rejects.toMatchObject(CHECK);
    });

    it('accepts an https:// webhook URL and refuses http://', async () => {
      const hook = (url: string) => db.query('UPDATE notification_keys SET webhook_url = $1 WHERE id = $2', [url, DEMO_NOTIFICATION_KEY_ID]);
      await expect(hook('https://hooks.example.com/x?y=1')).resolves.toBeTruthy();
      await expect(hook('http://hooks.example.com/x')).rejects.toMatchObject(CHECK);
      await expect(hook('https://')).rejects.toMatchObject(CHECK);
    });

    it('allows one notification key per developer', async () => {
      await expect(
        db.query("INSERT INTO notification_keys (org_id, id, account_id, key_id, secret) VALUES ('org-demo', $1, 'acc-admin', $2, 's')", [newId(), newId()]),
      ).rejects.toMatchObject(UNIQUE);
    });

    it('refuses an unknown bundle type and a task outside its states', async () => {
      await expect(db.query("UPDATE bundle_orders SET type = 'AFTER_SOMETHING' WHERE org_id = 'org-demo'")).rejects.toMatchObject(CHECK);
      await expect(db.query("UPDATE tasks SET status = 'queued' WHERE id = $1", [DEMO_TASK_ID])).rejects.toMatchObject(CHECK);
    });
  });

  describe('CDR partitions', () => {
    const insertCdr = async (start: string, q: Queryable = db) => {
      const r = await q.query<{ part: string }>(
        `INSERT INTO cdrs (org_id, sim_id, iccid, network, direction, rat, volume_kb, start_at, end_at, duration_s)
         VALUES ('org-demo', $1, $2, 'Vodafone DE 262-02', 'uplink', 'LTE', 12, $3::timestamptz, $3::timestamptz + interval '5 minutes', 300)
         RETURNING tableoid::regclass::text AS part`,
        [DEMO_SIM_IDS.active, DEMO_SIMS.active, start],
      );
      return r.rows[0].part;
    };

    it('puts a CDR in the partition of its month', async () => {
      expect(await insertCdr('2026-03-15T10:00:00Z')).toBe('cdrs_y2026m03');
    });

    it('cuts months at UTC midnight whatever the session time zone', async () => {
      const parts = await db.tx(async (q) => {
        await q.query("SET LOCAL TimeZone = 'Asia/Shanghai'");
        return [await insertCdr('2026-03-31T23:59:59Z', q), await insertCdr('2026-04-01T00:00:00Z', q)];
      });
      expect(parts).toEqual(['cdrs_y2026m03', 'cdrs_y2026m04']);
    });

    it('sends a CDR outside every monthly partition to the default one', async () => {
      expect(await insertCdr('2031-01-02T00:00:00Z')).toBe('cdrs_default');
    });

    it('creates a missing month with ensure_month_partition', async () => {
      const r = await db.query<{ part: string }>("SELECT ensure_month_partition('cdrs', '2029-05-17') AS part");
      expect(r.rows[0].part).toBe('cdrs_y2029m05');
      expect(await insertCdr('2029-05-20T08:00:00Z')).toBe('cdrs_y2029m05');
    });
  });
});
