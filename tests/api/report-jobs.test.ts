/** Monthly reports made by durable jobs: each type's rows and sums, preference columns, the scheduler, downloads. */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { periodBounds, periodOf, REPORT_KINDS, scheduleReports } from '../../server/report/report-jobs.js';
import { answerOf, call, DB_KINDS, DEMO, type Session, sessionHeaders, signedInSuite } from '../helper.js';
import { DEMO_REPORT_ID } from '../../server/db/seed-fleet.js';
import esES from '../../common/locales/es-ES.json' with { type: 'json' };

const ES_DEVICE_NAME = esES.reportColumns.enum.columnKey.device_name;

/** A CSV file as rows of cells (RFC 4180 quoting), without the byte order mark. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  const s = text.replace(/^\uFEFF/, '');
  const endCell = () => {
    row.push(cell);
    cell = '';
  };
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (quoted && c === '"' && s[i + 1] === '"') {
      cell += '"';
      i++;
    } else if (c === '"') quoted = !quoted;
    else if (quoted) cell += c;
    else if (c === ',') endCell();
    else if (c === '\n') {
      endCell();
      rows.push(row);
      row = [];
    } else if (c !== '\r') cell += c;
  }
  if (cell || row.length) {
    endCell();
    rows.push(row);
  }
  return rows;
}

describe.each(DB_KINDS)('report jobs on %s', (kind) => {
  const suite = signedInSuite(kind, { admin: DEMO.admin, user: DEMO.user, other: 'admin@other.example.com' });
  // The seed's month (UTC+8), whose rollups the small seed filled; a report of it on request covers it so far.
  const period = periodOf(new Date());

  const runJobs = async () => {
    while (await suite.t.app.jobs.runOnce());
  };
  const generate = (s: Session, report: string, p = period, headers?: Record<string, string>) =>
    call(suite.t.app, s, { method: 'POST', url: '/api/main/report/DEMO/generate', payload: { report, period: p }, headers });
  const download = (s: Session, id: string, org = 'DEMO') => call(suite.t.app, s, { method: 'GET', url: `/api/main/report/${org}/${id}/download` });
  /** Make a report now and return its file's rows (header first). */
  const make = async (report: string, headers?: Record<string, string>) => {
    const res = await generate(suite.admin, report, period, headers);
    expect(res.statusCode).toBe(200);
    const { id } = res.json().data as { id: string };
    await runJobs();
    const row = (
      await suite.t.db.query<{ status: string; row_count: number; file_id: string }>('SELECT status, row_count, file_id FROM reports WHERE id = $1', [id])
    ).rows[0];
    expect(row.status).toBe('ready');
    const file = await download(suite.admin, id);
    expect(file.statusCode).toBe(200);
    expect(file.headers['content-type']).toContain('text/csv');
    const rows = parseCsv(file.body);
    expect(rows.length - 1).toBe(row.row_count);
    return { id, header: rows[0], rows: rows.slice(1) };
  };
  const enabledHeader = async (applies: string[]) => {
    const prefs = (
      await suite.t.db.query<{ column_key: string }>("SELECT column_key FROM report_preferences WHERE org_id = 'org-demo' AND enabled ORDER BY position")
    ).rows.map((r) => r.column_key);
    return prefs.filter((c) => applies.includes(c));
  };
  const setPref = (column: string, enabled: boolean) =>
    call(suite.t.app, suite.admin, { method: 'POST', url: '/api/main/report/config/cube', payload: { columns: [{ columnKey: column, enabled }] } });

  it('makes the monthly usage report from usage_sim_monthly: one row per SIM, the same sums', async () => {
    const { header, rows } = await make('monthly_usage');
    const cols = await enabledHeader(['iccid', 'imsi', 'msisdn', 'imei', 'device_name', 'status', 'network', 'expires_at', 'usage_kb']);
    expect(header).toHaveLength(cols.length);
    expect(header).toContain('Usage (KB)');
    const direct = (
      await suite.t.db.query<{ iccid: string; kb: string }>(
        "SELECT iccid, volume_kb::text AS kb FROM usage_sim_monthly WHERE org_id = 'org-demo' AND month = $1::date ORDER BY iccid",
        [periodBounds(period).month],
      )
    ).rows;
    expect(direct.length).toBeGreaterThan(0);
    const iccid = header.indexOf('ICCID');
    const usage = header.indexOf('Usage (KB)');
    expect(rows.map((r) => [r[iccid], r[usage]])).toEqual(direct.map((d) => [d.iccid, d.kb]));
  });

  it('makes the SIM inventory from sims: every SIM of the organisation', async () => {
    const { header, rows } = await make('sim_inventory');
    expect(header).not.toContain('Usage (KB)');
    const direct = (await suite.t.db.query<{ iccid: string }>("SELECT iccid FROM sims WHERE org_id = 'org-demo' ORDER BY iccid")).rows.map((r) => r.iccid);
    expect(rows.map((r) => r[header.indexOf('ICCID')])).toEqual(direct);
  });

  it('makes the SMS usage report from usage_daily summed over the month', async () => {
    expect((await setPref('sms_mo', true)).statusCode).toBe(200);
    const { header, rows } = await make('sms_usage');
    const b = periodBounds(period);
    const direct = (
      await suite.t.db.query<{ iccid: string; mo: string; mt: string }>(
        `SELECT iccid, sum(sms_mo)::text AS mo, sum(sms_mt)::text AS mt FROM usage_daily
          WHERE org_id = 'org-demo' AND day >= $1::date AND day < $2::date GROUP BY iccid HAVING sum(sms_mo) + sum(sms_mt) > 0 ORDER BY iccid`,
        [b.month, b.nextMonth],
      )
    ).rows;
    const [i, mo, mt] = ['ICCID', 'SMS sent (MO)', 'SMS received (MT)'].map((h) => header.indexOf(h));
    expect(mo).toBeGreaterThan(-1);
    expect(rows.map((r) => [r[i], r[mo], r[mt]])).toEqual(direct.map((d) => [d.iccid, d.mo, d.mt]));
  });

  it('makes the bundle usage report from the bundle orders in effect in the month', async () => {
    const { header, rows } = await make('bundle_usage');
    const b = periodBounds(period);
    const direct = (
      await suite.t.db.query<{ iccid: string; kb: string }>(
        `SELECT iccid, sum(used_kb)::text AS kb FROM bundle_orders
          WHERE org_id = 'org-demo' AND status <> 'CANCELLED' AND activated_at < $2::timestamptz AND (expired_at IS NULL OR expired_at >= $1::timestamptz)
          GROUP BY iccid ORDER BY iccid`,
        [b.start, b.end],
      )
    ).rows;
    expect(rows.map((r) => [r[header.indexOf('ICCID')], r[header.indexOf('Usage (KB)')]])).toEqual(direct.map((d) => [d.iccid, d.kb]));
  });

  it('makes the pool usage report: one row per pool, its members in the month and their usage', async () => {
    const { header, rows } = await make('pool_usage');
    expect(header.slice(0, 2)).toEqual(['Name', expect.any(String)]);
    expect(header).not.toContain('ICCID');
    const pools = (
      await suite.t.db.query<{ name: string }>("SELECT name FROM shared_pools WHERE org_id = 'org-demo' AND effective_from < $1::date ORDER BY id", [
        periodBounds(period).nextMonth,
      ])
    ).rows;
    expect(rows.map((r) => r[0])).toEqual(pools.map((p) => p.name));
    const usage = header.indexOf('Usage (KB)');
    const total = rows.reduce((s, r) => s + Number(r[usage]), 0);
    const b = periodBounds(period);
    const direct = (
      await suite.t.db.query<{ kb: string }>(
        `SELECT coalesce(sum(u.volume_kb), 0)::text AS kb FROM pool_members m JOIN shared_pools p ON p.id = m.pool_id AND p.effective_from < $4::date
           JOIN usage_sim_monthly u ON u.org_id = m.org_id AND u.sim_id = m.sim_id AND u.month = $3::date
          WHERE m.org_id = 'org-demo' AND m.joined_at < $2::timestamptz AND (m.left_at IS NULL OR m.left_at >= $1::timestamptz)`,
        [b.start, b.end, b.month, b.nextMonth],
      )
    ).rows[0].kb;
    expect(total).toBe(Number(direct));
  });

  it('leaves a disabled preference column out of the file, and keeps the order of the enabled ones', async () => {
    expect((await make('sim_inventory')).header).toContain('IMSI');
    expect((await setPref('imsi', false)).statusCode).toBe(200);
    const { header } = await make('sim_inventory');
    expect(header).not.toContain('IMSI');
    expect(header).toEqual(['ICCID', 'MSISDN', 'Device name', 'Lifecycle status', 'Network', 'Expiry']);
    await setPref('imsi', true);
  });

  it("writes the headers of a report made on request in the requester's language", async () => {
    const { header } = await make('sim_inventory', sessionHeaders(suite.admin.token, suite.admin.partnerCode, 'es-ES'));
    expect(header).toContain(ES_DEVICE_NAME);
    expect(header).not.toContain('Device name');
  });

  it('answers "system busy" for a report being made, and does not start it twice', async () => {
    const res = await generate(suite.admin, 'monthly_usage');
    const { id } = res.json().data;
    expect(answerOf(await download(suite.admin, id))).toMatchObject({
      statusCode: 409,
      message: 'Reports: the system is busy making this report. Please try again later.',
    });
    expect((await generate(suite.admin, 'monthly_usage')).statusCode).toBe(409);
    await runJobs();
    expect((await download(suite.admin, id)).statusCode).toBe(200);
  });

  it("answers 404 for another organisation's report, and for another organisation in the path", async () => {
    expect((await download(suite.other, DEMO_REPORT_ID, 'OTHER')).statusCode).toBe(404);
    expect((await download(suite.admin, DEMO_REPORT_ID, 'OTHER')).statusCode).toBe(404);
  });

  it('every seeded ready report downloads, with as many rows as the list says', async () => {
    const seeded = (
      await suite.t.db.query<{ org_id: string; id: string; row_count: number }>(
        "SELECT org_id, id, row_count FROM reports WHERE status = 'ready' ORDER BY org_id, id",
      )
    ).rows;
    expect(seeded.length).toBeGreaterThan(0);
    for (const r of seeded) {
      const res = await download(r.org_id === 'org-other' ? suite.other : suite.admin, r.id, r.org_id === 'org-other' ? 'OTHER' : 'DEMO');
      expect(res.statusCode).toBe(200);
      expect(parseCsv(res.body).length - 1).toBe(r.row_count);
    }
  });

  it("a report made again downloads from its own address at once, and its task counts the report's rows", async () => {
    const before = (await suite.t.db.query<{ report: string; period: string }>('SELECT report, period FROM reports WHERE id = $1', [DEMO_REPORT_ID])).rows[0];
    const res = await generate(suite.admin, before.report, before.period);
    expect(res.json().data.id).toBe(DEMO_REPORT_ID);
    await runJobs();
    const file = await download(suite.admin, DEMO_REPORT_ID);
    expect(file.statusCode).toBe(200);
    const rows = (await suite.t.db.query<{ row_count: number }>('SELECT row_count FROM reports WHERE id = $1', [DEMO_REPORT_ID])).rows[0].row_count;
    expect(parseCsv(file.body).length - 1).toBe(rows);
    // The task center's quantity is the report's rows, not the 0 it was queued with.
    const task = await call(suite.t.app, suite.admin, { method: 'GET', url: `/api/job/rest/job/my/${res.json().data.taskId}` });
    expect(task.json().data).toMatchObject({ status: 'done', quantity: rows, hasReport: true });
  });

  it('a report whose bytes are gone answers "no longer available", and no answer of a download is kept by the browser', async () => {
    const seeded = (
      await suite.t.db.query<{ id: string; storage_key: string }>(
        "SELECT r.id, f.storage_key FROM reports r JOIN files f ON f.id = r.file_id WHERE r.org_id = 'org-other' AND r.status = 'ready' LIMIT 1",
      )
    ).rows[0];
    fs.rmSync(path.join(suite.t.config.dataDir, 'files', seeded.storage_key));
    const res = await download(suite.other, seeded.id, 'OTHER');
    expect(res.statusCode).toBe(410);
    expect(res.json().status.message).toBe('The file of this task is no longer available.');
    // Chromium keeps a 410 without Cache-Control as fresh for ever: the report made again would never be fetched.
    expect(res.headers['cache-control']).toBe('no-store');
    expect((await download(suite.admin, DEMO_REPORT_ID)).headers['cache-control']).toBe('no-store');
    expect((await download(suite.other, 'nonexistent', 'OTHER')).headers['cache-control']).toBe('no-store');
  });

  it('a user may not read reports (sim-report-cube is for admins), nor make one', async () => {
    expect((await download(suite.user, DEMO_REPORT_ID)).statusCode).toBe(403);
    expect((await generate(suite.user, 'sim_inventory')).statusCode).toBe(403);
  });

  it('a job that ends in issues leaves its report failed, never pointing at a file', async () => {
    const { id } = (await generate(suite.admin, 'sms_usage')).json().data;
    // Stopped as many times as a task may be: the next claim ends it as issues.
    await suite.t.db.query("UPDATE tasks SET attempts = 3 WHERE kind = 'report' AND payload->>'reportId' = $1", [id]);
    await runJobs();
    const row = (await suite.t.db.query<{ status: string }>('SELECT status FROM reports WHERE id = $1', [id])).rows[0];
    expect(row.status).toBe('failed');
    expect(answerOf(await download(suite.admin, id))).toMatchObject({
      statusCode: 409,
      message: 'This report could not be made. An administrator can make it again.',
    });
    // Made again, it is ready.
    expect((await generate(suite.admin, 'sms_usage')).statusCode).toBe(200);
    await runJobs();
    expect((await download(suite.admin, id)).statusCode).toBe(200);
  });

  describe('the scheduler', () => {
    // 2031-03-05 00:30 in UTC+8 is 2031-03-04 16:30 UTC: the window follows UTC+8.
    const at = (utc: string) => new Date(utc);
    const count = async () => (await suite.t.db.query<{ n: number }>("SELECT count(*)::int AS n FROM reports WHERE period = '2031-02'")).rows[0].n;

    it('creates nothing on the 4th or the 9th (UTC+8)', async () => {
      expect(await scheduleReports(suite.t.db, at('2031-03-04T15:59:00Z'))).toBe(0);
      expect(await scheduleReports(suite.t.db, at('2031-03-09T01:00:00Z'))).toBe(0);
      expect(await count()).toBe(0);
    });

    it("creates last month's five reports once per organisation whose brand has reports, each with a task", async () => {
      await suite.t.db.query("UPDATE organisations SET brand_id = 'brand-terra' WHERE id = 'org-other'");
      try {
        const orgs = (await suite.t.db.query<{ id: string }>('SELECT o.id FROM organisations o JOIN brands b ON b.id = o.brand_id WHERE b.reports_enabled'))
          .rows;
        expect(await scheduleReports(suite.t.db, at('2031-03-04T16:30:00Z'))).toBe(orgs.length * REPORT_KINDS.length);
        expect(await count()).toBe(orgs.length * REPORT_KINDS.length);
        expect((await suite.t.db.query("SELECT 1 FROM reports WHERE period = '2031-02' AND org_id = 'org-other'")).rows).toHaveLength(0);
        const tasks = (
          await suite.t.db.query<{ n: number }>(
            "SELECT count(*)::int AS n FROM tasks WHERE kind = 'report' AND payload->>'period' = '2031-02' AND account_id IS NULL",
          )
        ).rows[0].n;
        expect(tasks).toBe(orgs.length * REPORT_KINDS.length);
        // A second run, and one later in the window, create nothing more.
        expect(await scheduleReports(suite.t.db, at('2031-03-04T16:31:00Z'))).toBe(0);
        expect(await scheduleReports(suite.t.db, at('2031-03-08T12:00:00Z'))).toBe(0);
        await runJobs();
        const statuses = (await suite.t.db.query<{ status: string }>("SELECT DISTINCT status FROM reports WHERE period = '2031-02'")).rows.map((r) => r.status);
        expect(statuses).toEqual(['ready']);
        // Scheduled reports are in English.
        const id = (
          await suite.t.db.query<{ id: string }>("SELECT id FROM reports WHERE period = '2031-02' AND org_id = 'org-demo' AND report = 'sim_inventory'")
        ).rows[0].id;
        expect(parseCsv((await download(suite.admin, id)).body)[0]).toContain('Device name');
      } finally {
        await suite.t.db.query("UPDATE organisations SET brand_id = 'brand-default' WHERE id = 'org-other'");
      }
    });

    it('runs concurrently without making a report twice', async () => {
      const runs = await Promise.all([scheduleReports(suite.t.db, at('2031-04-05T00:00:00Z')), scheduleReports(suite.t.db, at('2031-04-05T00:00:00Z'))]);
      const made = (await suite.t.db.query<{ n: number }>("SELECT count(*)::int AS n FROM reports WHERE period = '2031-03'")).rows[0].n;
      expect(runs[0] + runs[1]).toBe(made);
      expect(
        (await suite.t.db.query<{ n: number }>("SELECT count(*)::int AS n FROM tasks WHERE kind = 'report' AND payload->>'period' = '2031-03'")).rows[0].n,
      ).toBe(made);
    });
  });
});
