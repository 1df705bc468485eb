/**
 * Invoices' work in the task center (docs/decisions.md "Invoices on demand and large details in the task
 * center"): `invoice_run` makes the caller's organisation's invoice of one closed month through the monthly
 * job's own run (invoice_runs and the invoices' unique key decide, so a run beside the timer still makes one invoice);
 * `invoice_export` writes a large invoice's lines as CSV or XLSX with the exports' writers.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Language } from '../../common/limits.js';
import type { Db, Queryable } from '../db/db.js';
import { invalid } from '../http/api-error.js';
import { consoleLabel } from '../http/labels.js';
import { appendTaskLog } from '../job/task-log-repo.js';
import { tableWriter, TABLE_FORMATS, type Cell, type TableFormat } from '../job/table-writers.js';
import type { JobHandler, TaskRow } from '../job/worker.js';
import { analyzeWithoutStatistics } from '../db/statistics.js';
import { INVOICE_JOB_TABLES, invoiceOrganisation, LINE_BATCH, monthOf } from './invoice-job.js';
import { DETAIL_COLUMNS, eachDetailBatch, monthInvoice, setTaskQuantity, setTaskRemark, simsToBill } from './invoice-task-repo.js';
import { taskReference } from '../job/task-reference.js';

/**
 * An invoice of more lines than this is written by the task center, not in the request (docs/decisions.md): 5,000
 * lines are about 0.5 MB of CSV, made in well under a second; above it a request could hold a connection for long.
 */
export const DETAILS_DIRECT_MAX_LINES = 5000;

/**
 * The data lines an XLSX sheet holds: 1,048,576 rows, one of them the header. A larger invoice is refused in XLSX
 * (CSV has no such bound) rather than written as a file a spreadsheet cannot open whole.
 */
export const XLSX_MAX_DATA_LINES = 1_048_575;

/** Refuse a details file of this many lines in this format when the format cannot hold them (names the format and the limit, offers CSV). */
export function checkDetailsSize(lines: number, format: TableFormat, lang: Language): void {
  if (format === 'xlsx' && lines > XLSX_MAX_DATA_LINES) {
    throw invalid('format', 'xlsxLines', { limit: XLSX_MAX_DATA_LINES.toLocaleString(lang), lines: lines.toLocaleString(lang) });
  }
}

/** How long a run waits for another instance's run of the same invoice before it looks again. */
const RUN_WAIT_MS = 30_000;
/** An on-demand run left by a stopped worker is taken over as the monthly job's would be (its lease, 10 minutes). */
const RUN_STALE_MS = 600_000;

/** The payload of an `invoice_run` task: the month, and the instant of the request (the invoice's billing day). */
export interface InvoiceRunPayload {
  month: string;
  at: string;
}

const runLog = (q: Queryable, task: TaskRow, message: string, detail: Record<string, unknown>) =>
  appendTaskLog(q, [{ orgId: task.org_id, taskId: task.id, provider: 'worker', message, detail }]);

/**
 * The run of one month for the task's organisation. The owner of the run is the task: a worker that takes the task over
 * resumes the run after its last SIM written. A run another instance holds (the monthly timer) is waited for.
 */
export const invoiceRunJob: JobHandler = async ({ db, task, progress }) => {
  const { month, at } = task.payload as unknown as InvoiceRunPayload;
  // On PGlite, statistics first, as the monthly job does: the lines' query is planned from them.
  await analyzeWithoutStatistics(db, INVOICE_JOB_TABLES);
  const existing = await monthInvoice(db, task.org_id, month);
  if (existing) {
    await runLog(db, task, 'invoiceExists', { month, billId: existing.billId });
    await setTaskRemark(db, task.id, `${month} · ${existing.billId}`);
    return { result: { month, made: false, billId: existing.billId, invoiceId: existing.id } };
  }
  const { start, end } = monthOf(month);
  const sims = await simsToBill(db, task.org_id, start, end);
  await setTaskQuantity(db, task.id, sims);
  let written = 0;
  const made = await invoiceOrganisation(db, task.org_id, month, new Date(at), `task-${task.id}`, LINE_BATCH, RUN_STALE_MS, async (n) => {
    written += n;
    await progress(sims ? (written / sims) * 100 : 50);
  });
  if (made) {
    await runLog(db, task, 'invoiceMade', { month, billId: made.billId, sims: made.sims, total: made.total });
    await setTaskRemark(db, task.id, `${month} · ${made.billId}`);
    return { result: { month, made: true, billId: made.billId, invoiceId: made.id, sims: made.sims, total: made.total } };
  }
  const after = await monthInvoice(db, task.org_id, month);
  if (after) {
    await runLog(db, task, 'invoiceExists', { month, billId: after.billId });
    await setTaskRemark(db, task.id, `${month} · ${after.billId}`);
    return { result: { month, made: false, billId: after.billId, invoiceId: after.id } };
  }
  if (sims === 0) {
    await runLog(db, task, 'invoiceNothing', { month });
    return { result: { month, made: false, billId: null } };
  }
  // Another instance is making this very invoice (the monthly timer): look again later, holding no job slot.
  await runLog(db, task, 'invoiceRunning', { month });
  return { result: {}, laterMs: RUN_WAIT_MS };
};

/** The payload of an `invoice_export` task. */
export interface DetailsPayload {
  invoiceId: string;
  billId: string;
  version: number;
  format: TableFormat;
  lang: Language;
}

const NUMERIC = new Set<string>(['bundleQuantity', 'bundlePrice', 'usageMb', 'overageMb', 'overageAmount', 'amount']);

/**
 * A line's cells. Figures go as numbers so that a spreadsheet sums them: numeric(14, 2) and bigint volumes have at most
 * 15 significant digits, which a JavaScript number holds and prints back exactly (shortest round trip), so no cent moves.
 */
const cellsOf = (row: Record<string, string | null>): Cell[] => DETAIL_COLUMNS.map((c) => (row[c] === null ? null : NUMERIC.has(c) ? Number(row[c]) : row[c]));

/** The details file's name: the bill id, its version after the first, "-details". */
export const detailsName = (p: { billId: string; version: number }, format: TableFormat) =>
  `${p.billId}${p.version > 1 ? `-v${p.version}` : ''}-details`.replace(/[^\w.-]/g, '_') + `.${format}`;

/**
 * The details file's header in the requester's language: the console's words for an invoice line's fields, and the
 * file's own for the pool and the volumes in MB (invoiceDetails.columns, words only the server says).
 */
export const detailsHeader = (lang: Language): string[] =>
  DETAIL_COLUMNS.map((c) => consoleLabel(lang, `invoiceDetails.columns.${c}`) ?? consoleLabel(lang, `invoiceLines.fields.${c}`) ?? c);

/** Write the invoice's lines to file in format, `batch` lines at a time; onRows after each batch. The lines written. */
export async function writeDetails(
  db: Db,
  orgId: string,
  invoiceId: string,
  format: TableFormat,
  lang: Language,
  file: string,
  onRows: (written: number) => Promise<void> = async () => undefined,
): Promise<number> {
  const writer = tableWriter(format, file);
  await writer.header(detailsHeader(lang));
  let written = 0;
  await eachDetailBatch(db, orgId, invoiceId, 1000, async (rows) => {
    await writer.rows(rows.map(cellsOf));
    written += rows.length;
    await onRows(written);
  });
  await writer.end();
  return written;
}

/** A small invoice's details written to a temporary file for the request to send; remove() when it is sent. */
export async function detailsNow(db: Db, orgId: string, invoiceId: string, format: TableFormat, lang: Language): Promise<{ file: string; remove: () => void }> {
  const dir = await fs.promises.mkdtemp(path.join(os.tmpdir(), 'invoice-details-'));
  const file = path.join(dir, `details.${format}`);
  const remove = () => void fs.promises.rm(dir, { recursive: true, force: true });
  try {
    await writeDetails(db, orgId, invoiceId, format, lang, file);
  } catch (err) {
    remove();
    throw err;
  }
  return { file, remove };
}

/** The job writing a large invoice's details file, offered in the task center. */
export const invoiceDetailsJob: JobHandler = async ({ db, store, task, progress }) => {
  const p = task.payload as unknown as DetailsPayload;
  const name = detailsName(p, p.format);
  const folder = `${task.org_id}/exports/${task.id}`;
  await store.discardDrafts(folder);
  const key = `${folder}/${name}`;
  let reported = 0;
  // A task queued before the header was translated carries no language: English, as it then was.
  const rows = await writeDetails(db, task.org_id, p.invoiceId, p.format, p.lang ?? 'en-US', store.draft(key), async (written) => {
    if (written - reported < 5000) return;
    reported = written;
    await progress(task.quantity ? (written / task.quantity) * 100 : 50);
  });
  return { file: { key, name, contentType: TABLE_FORMATS[p.format] }, result: { rows } };
};

/** The invoices' task kinds and their jobs (server/plugins/app/services.ts). */
export const INVOICE_JOBS: Record<string, JobHandler> = { invoice_run: invoiceRunJob, invoice_export: invoiceDetailsJob };

/** A reference id for an invoice task: RUN- (a month's run) or EXP- (a details file), the day and a random tail. */
export const invoiceTaskReference = (prefix: 'RUN' | 'EXP', now: Date) => taskReference(prefix === 'RUN' ? 'invoice_run' : 'invoice_export', now);
