/** Generator: monthly reports, tasks of the task center and their files. */
import type { Db } from '../db.js';
import { defineAbilityFor } from '../../../common/ability.js';
import { SIM_STATUSES } from '../../../common/lifecycle.js';
import { EXPORTS, EXPORT_JOBS, type ExportKind } from '../../job/export-jobs.js';
import { REPORT_CONTENT_TYPE, type ReportKind, SCHEDULED_LANGUAGE, writeReport } from '../../report/report-jobs.js';
import { taskReference } from '../../job/task-reference.js';
import { ACTIVATION_ANSWER_MINUTES } from '../../sim/activation.js';
import { BUSY_TASK_ID, DEMO_REPORT_ID, DEMO_TASK_ID, SPECIAL_SIMS, fixedId } from './fixtures.js';
import { type Ctx, DAY, HOUR, MINUTE, type Row, insertRows, monthStart } from './rows.js';

/** Kinds of the demo's other tasks, as the task center names them; the exports among them are ones the export job makes. */
export const DEMO_TASK_KINDS = [
  'sim_export',
  'cdr_export',
  'sim_reset',
  'bundle_export',
  'sim_suspend',
  'sim_resume',
  'sim_transfer',
  'sim_export',
  'bundle_export',
  'sim_suspend',
];
/** The demo organisation's members who start them, with their roles (seed.ts). */
export const DEMO_TASK_OWNERS = ['acc-admin', 'acc-operator', 'acc-superadmin', 'acc-user'];
const ROLE_OF: Record<string, string> = { 'acc-admin': 'admin', 'acc-operator': 'operator', 'acc-superadmin': 'superadmin', 'acc-user': 'user' };
/** The right starting each kind of task needs (the routes that queue them, docs/permissions.md). */
export const TASK_RIGHTS: Record<string, [string, 'sim' | 'cdr']> = {
  sim_export: ['export', 'sim'],
  bundle_export: ['export', 'sim'],
  cdr_export: ['export', 'cdr'],
  sim_reset: ['reset', 'sim'],
  sim_suspend: ['suspend', 'sim'],
  sim_resume: ['resume', 'sim'],
  sim_transfer: ['transfer', 'sim'],
};
const mayStart = (owner: string, kind: string) => defineAbilityFor(ROLE_OF[owner]).can(...TASK_RIGHTS[kind]);

/**
 * Who owns a demo task of this kind: the member drawn if their role may start it, else the first who may. A user's
 * list holding a SIM resumption of 2,000 SIMs, which no user can start, reads as someone else's task.
 */
export function demoTaskOwner(drawn: string, kind: string): string {
  return mayStart(drawn, kind) ? drawn : DEMO_TASK_OWNERS.find((o) => mayStart(o, kind))!;
}

/**
 * Reports and the task center. Every report and finished task that offers a download has its file, made by the same
 * code as the real job from the data just seeded (the demo makes the files it lists, or lists no download).
 * Without a file store (ctx.files) there are no files: no reports, and finished tasks offer no download.
 */
export async function seedReportsAndTasks(ctx: Ctx): Promise<void> {
  const { rng, now, size, files: store } = ctx;
  const files: Row[] = [];
  /** Publish a file the seed wrote under key; its files row, and its id. */
  const publish = async (org: string, account: string | null, kind: string, key: string, name: string, contentType: string, created: Date): Promise<string> => {
    const id = fixedId(`file:${key}`);
    const size = await store!.publish(key);
    files.push({
      org_id: org,
      id,
      account_id: account,
      kind,
      storage_key: key,
      name,
      content_type: contentType,
      size_bytes: size,
      created_at: created,
      expires_at: new Date(created.getTime() + 30 * DAY),
    });
    return id;
  };

  const prefColumns = ['iccid', 'imsi', 'msisdn', 'imei', 'device_name', 'status', 'usage_kb', 'sms_mo', 'sms_mt', 'network', 'bundle', 'expires_at'];
  const prefs: Row[] = [];
  for (const org of ['org-demo', 'org-other']) {
    prefColumns.forEach((c, i) =>
      prefs.push({ org_id: org, column_key: c, enabled: !['imei', 'sms_mo', 'bundle'].includes(c), position: i, updated_by: null, updated_at: now }),
    );
  }
  // The reports are written with these preferences, as the report job would.
  await insertRows(ctx.q, 'report_preferences', prefs);

  // Reports of past months, made on the 6th (within the 5th-8th window, UTC+8), with the rows they really hold: the
  // last `reportMonths` months made by now (before the 6th, last month's is not made yet and the one before is the
  // latest), so every day of the month has them.
  const reports: Row[] = [];
  const reportMonths = size === 'small' ? 1 : 6;
  const kinds: ReportKind[] =
    size === 'small' ? ['monthly_usage', 'sim_inventory'] : ['monthly_usage', 'sim_inventory', 'sms_usage', 'bundle_usage', 'pool_usage'];
  for (const org of store ? ['org-demo', 'org-other'] : []) {
    const months = org === 'org-demo' ? reportMonths : 1;
    for (let k = 1, made = 0; made < months; k++) {
      const period = monthStart(now, -k).toISOString().slice(0, 7);
      const madeAt = new Date(monthStart(now, -k + 1).getTime() + 5 * DAY - 6 * HOUR);
      if (madeAt > now) continue;
      const latest = made++ === 0;
      for (const [i, kind] of kinds.entries()) {
        const id = org === 'org-demo' && latest && i === 0 ? DEMO_REPORT_ID : fixedId(`report:${org}:${k}:${kind}`);
        const written = await writeReport(ctx.q, store!, { orgId: org, report: kind, period, lang: SCHEDULED_LANGUAGE, folder: `${org}/reports/seed-${id}` });
        const fileId = await publish(org, null, 'report', written.key, written.name, REPORT_CONTENT_TYPE, madeAt);
        reports.push({
          org_id: org,
          id,
          report: kind,
          period,
          status: 'ready',
          file_id: fileId,
          row_count: written.rows,
          created_at: madeAt,
          updated_at: madeAt,
        });
      }
    }
  }

  // Tasks: the last 7 days show in the task center; a few older ones prove the window.
  const tasks: Row[] = [];
  /** Finished exports whose file the export job writes below. */
  const exports: Array<{ row: Row; kind: ExportKind; query: Record<string, unknown>; format: 'csv' | 'xlsx' }> = [];
  let ref = 1000;
  const simCount = (org: string) => ctx.sims.filter((x) => x.org === org).length;
  const task = (org: string, account: string, kind: string, status: 'done' | 'issues' | 'processing', created: Date, extra: Row = {}): Row => {
    // A task of SIMs counts at most the organisation's SIMs.
    const quantity = Math.min(rng.int(1, 5000), simCount(org));
    const started = new Date(created.getTime() + rng.int(1, 20) * 1000);
    const ended = status === 'processing' ? null : new Date(started.getTime() + rng.int(2, 600) * 1000);
    const row: Row = {
      org_id: org,
      id: rng.id(),
      account_id: account,
      reference_id: taskReference(kind, created, String(ref++).padStart(6, '0')),
      kind,
      quantity,
      remark: null,
      status,
      progress: status === 'done' ? 100 : status === 'issues' ? 100 : rng.int(5, 80),
      payload: { format: 'csv' },
      result: status === 'processing' ? null : { ok: quantity },
      result_file_id: null,
      error: null,
      attempts: status === 'processing' ? 0 : 1,
      claimed_by: null,
      claimed_at: null,
      heartbeat_at: null,
      started_at: started,
      ended_at: ended,
      created_at: created,
      updated_at: ended ?? now,
      ...extra,
    };
    tasks.push(row);
    return row;
  };
  /** A finished export of `kind` with this list query: its file is the export job's, its quantity the rows written. */
  const exported = (row: Row, kind: ExportKind, query: Record<string, unknown>, format: 'csv' | 'xlsx' = 'csv') => {
    row.payload = { query, format, lang: 'en-US' };
    exports.push({ row, kind, query, format });
  };
  const doneAt = new Date(now.getTime() - 2 * HOUR);
  exported(
    task('org-demo', 'acc-admin', 'sim_export', 'done', doneAt, { id: DEMO_TASK_ID, remark: 'All active SIMs' }),
    'sim_export',
    { status: 'active' },
    'xlsx',
  );
  // An activation sent to the network before the demo started, which the network never answers: a worker takes it up,
  // waits for the answer until the stated time after it was sent (ACTIVATION_ANSWER_MINUTES), then ends it as issues
  // with its report (docs/decisions.md, "The demo's activation in progress").
  // No worker holds it (no lease into the future): it is first looked at when its answer is due.
  const busyAt = new Date(now.getTime() - 2 * MINUTE);
  const sentAt = new Date(busyAt.getTime() + 5000);
  task('org-demo', 'acc-admin', 'sim_activate', 'processing', busyAt, {
    // Its remark is what an activation's is (the SIM it activates), not a state: the status column says how it stands.
    id: BUSY_TASK_ID,
    quantity: 1,
    remark: SPECIAL_SIMS.operationInProgress,
    progress: 10,
    payload: { iccids: [SPECIAL_SIMS.operationInProgress], lang: 'en-US', sentAt: sentAt.toISOString(), refused: {} },
    run_after: new Date(sentAt.getTime() + ACTIVATION_ANSWER_MINUTES * MINUTE),
  });
  task('org-demo', 'acc-admin', 'sim_info_upload', 'issues', new Date(now.getTime() - 26 * HOUR), {
    remark: 'devices.csv',
    quantity: 43,
    result: {
      ok: 41,
      failed: 2,
      errors: [
        { row: 3, message: 'Invalid ICCID' },
        { row: 17, message: 'Device name longer than 40 characters' },
      ],
    },
  });
  exported(task('org-other', 'acc-other-admin', 'sim_export', 'done', new Date(now.getTime() - 5 * HOUR)), 'sim_export', {});
  if (size === 'demo') {
    const live = ctx.sims.filter((s) => s.org === 'org-demo' && s.status === 'active');
    for (let i = 0; i < 24; i++) {
      const created = new Date(now.getTime() - rng.int(10, 7 * 24 * 60 - 10) * MINUTE);
      const status = rng.weighted([
        ['done', 85],
        ['issues', 15],
      ]) as 'done' | 'issues';
      const kind = rng.pick(DEMO_TASK_KINDS);
      const owner = demoTaskOwner(rng.pick(DEMO_TASK_OWNERS), kind);
      const row = task('org-demo', owner, kind, status, created);
      if (status !== 'done' || !(kind in EXPORTS)) continue;
      // Narrow selections, as people export them: one status, one bundle state, one SIM's last week of CDRs.
      if (kind === 'sim_export') exported(row, kind, { status: SIM_STATUSES[i % SIM_STATUSES.length] });
      else if (kind === 'bundle_export') exported(row, kind, { status: ['IN_USE', 'PENDING', 'EXPIRED'][i % 3] });
      else
        exported(row, 'cdr_export', {
          search: { field: 'iccid', value: live[i % live.length].iccid },
          startAtFrom: new Date(now.getTime() - 7 * DAY).toISOString(),
          startAtTo: now.toISOString(),
        });
    }
    for (let i = 0; i < 3; i++) exported(task('org-demo', 'acc-admin', 'sim_export', 'done', new Date(now.getTime() - (9 + i * 3) * DAY)), 'sim_export', {});
  }
  for (const e of exports) {
    if (!store) continue;
    const t = e.row;
    const job = EXPORT_JOBS[e.kind];
    const taskRow = {
      id: String(t.id),
      org_id: String(t.org_id),
      account_id: String(t.account_id),
      kind: e.kind,
      quantity: 0,
      payload: t.payload as Record<string, unknown>,
      attempts: 1,
    };
    // The job's own code over the seeded rows (it reads through the seed's transaction).
    const out = await job({ db: ctx.q as Db, store, task: taskRow, progress: async () => undefined });
    const file = out.file!;
    t.result_file_id = await publish(String(t.org_id), String(t.account_id), 'export', file.key, file.name, file.contentType, t.ended_at as Date);
    t.quantity = Number(out.result.rows);
    t.result = out.result;
  }
  await insertRows(ctx.q, 'files', files);
  await insertRows(ctx.q, 'reports', reports);
  await insertRows(ctx.q, 'tasks', tasks);
}
