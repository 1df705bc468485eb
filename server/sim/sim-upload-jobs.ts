/**
 * SIM transfer and batch info upload (SPEC.md section 8, Transfer and upload) as jobs of the task center. The file was
 * checked as a whole when it was submitted (type, name, size, rows, header); here every row gets an outcome: the rows
 * that can be carried out are, in batches of BATCH rows per transaction, and the others say why not. The report (a CSV
 * in the requester's language) lists every row; the task ends "issues" when any row was refused.
 *
 * A batch is one transaction, so a stop between batches leaves whole batches done. The job then starts over and finds
 * its own earlier work by the SIM events it wrote (detail.taskId), so a row is never carried out twice or misreported.
 */
import { isValidIccid } from '../../common/iccid.js';
import { translate } from '../../common/i18n.js';
import { LIMITS, type Language } from '../../common/limits.js';
import type { Db, Queryable } from '../db/db.js';
import { audit } from '../http/audit.js';
import { readUpload, type SheetRow } from '../job/sheet-files.js';
import type { FileStore } from '../job/storage.js';
import { csvWriter } from '../job/table-writers.js';
import type { JobContext, JobHandler } from '../job/worker.js';

const BATCH = 1000;

/** Why a row was not carried out (messages under upload.outcome in common/locales). */
export type RowRefusal =
  | 'invalidIccid'
  | 'iccidAsNumber'
  | 'duplicate'
  | 'notInOrg'
  | 'inSharedPool'
  | 'requestInProgress'
  | 'deviceNameTooLong'
  | 'notesTooLong'
  | 'tooManyTags'
  | 'tagTooLong';

export interface RowOutcome {
  row: number;
  iccid: string;
  value?: string | null;
  refusal?: RowRefusal;
}

/** The info each upload type sets, with its template column and rule. */
export const INFO_TYPES = ['deviceName', 'notes', 'tags'] as const;
export type InfoType = (typeof INFO_TYPES)[number];

/** A row's ICCID as text, or the reason it cannot be one. */
function iccidOf(cell: string | number | null | undefined): { iccid: string; refusal?: RowRefusal } {
  // A number here is a cell Excel stored as a number: a 19-20 digit ICCID has lost its last digits.
  if (typeof cell === 'number') return { iccid: String(cell), refusal: 'iccidAsNumber' };
  const iccid = (cell ?? '').replace(/\s+/g, '');
  return isValidIccid(iccid) ? { iccid } : { iccid, refusal: 'invalidIccid' };
}

/** The first pass over an upload's rows: the ICCID of each, refused when invalid or repeated. */
export function checkRows(rows: SheetRow[]): RowOutcome[] {
  const seen = new Set<string>();
  return rows.map(({ row, cells }) => {
    const { iccid, refusal } = iccidOf(cells[0]);
    if (refusal) return { row, iccid, refusal };
    if (seen.has(iccid)) return { row, iccid, refusal: 'duplicate' };
    seen.add(iccid);
    return { row, iccid };
  });
}

/** An info row's value, normalised, or the rule it breaks (SPEC.md section 9: device name 40, notes 140, tags 10 of 10). */
export function infoValueOf(type: InfoType, cell: string | number | null | undefined): { value: string | string[] | null; refusal?: RowRefusal } {
  const text = cell === null || cell === undefined ? '' : String(cell).trim();
  if (type === 'tags') {
    const tags = [
      ...new Set(
        text
          .split(/[;,]/)
          .map((t) => t.trim())
          .filter(Boolean),
      ),
    ];
    if (tags.length > LIMITS.tags.count) return { value: tags, refusal: 'tooManyTags' };
    if (tags.some((t) => [...t].length > LIMITS.tags.length)) return { value: tags, refusal: 'tagTooLong' };
    return { value: tags };
  }
  const max = type === 'deviceName' ? LIMITS.deviceName : LIMITS.notes;
  if ([...text].length > max) return { value: text, refusal: type === 'deviceName' ? 'deviceNameTooLong' : 'notesTooLong' };
  // An empty cell clears the value (docs/decisions.md).
  return { value: text || null };
}

interface SimFacts {
  id: string;
  iccid: string;
  org_id: string;
  pool_id: string | null;
  operation: string | null;
  mine: boolean;
}

/** The facts of the SIMs among iccids that the organisation holds, or that this task already moved to `movedTo`. */
async function simsOf(
  q: Queryable,
  orgId: string,
  iccids: string[],
  lock: boolean,
  taskId: string | null,
  movedTo: string | null,
): Promise<Map<string, SimFacts>> {
  const rows = (
    await q.query<SimFacts>(
      `SELECT s.id, s.iccid, s.org_id, s.pool_id, s.operation,
              ($4::text IS NOT NULL AND s.org_id = $3 AND EXISTS (
                 SELECT 1 FROM sim_events e WHERE e.org_id = $3 AND e.sim_id = s.id AND e.type = 'transfer' AND e.detail->>'taskId' = $4)) AS mine
         FROM sims s
        WHERE s.iccid = ANY($2::text[]) AND (s.org_id = $1 OR ($3::text IS NOT NULL AND s.org_id = $3))
        ORDER BY s.id ${lock ? 'FOR UPDATE OF s' : ''}`,
      [orgId, iccids, movedTo, taskId],
    )
  ).rows;
  return new Map(rows.filter((r) => r.org_id === orgId || r.mine).map((r) => [r.iccid, r]));
}

/** What a transfer would do with each row, without doing it: the check the console shows before submitting. */
export async function previewTransfer(db: Db, orgId: string, rows: SheetRow[]): Promise<RowOutcome[]> {
  const outcomes = checkRows(rows);
  for (let i = 0; i < outcomes.length; i += 10 * BATCH) {
    const slice = outcomes.slice(i, i + 10 * BATCH).filter((o) => !o.refusal);
    const sims = await simsOf(
      db,
      orgId,
      slice.map((o) => o.iccid),
      false,
      null,
      null,
    );
    for (const o of slice) o.refusal = transferRefusal(sims.get(o.iccid));
  }
  return outcomes;
}

function transferRefusal(sim: SimFacts | undefined): RowRefusal | undefined {
  // Another organisation's SIM reads like one that does not exist: its existence is not ours to tell.
  if (!sim) return 'notInOrg';
  if (sim.mine) return undefined;
  if (sim.pool_id) return 'inSharedPool';
  if (sim.operation) return 'requestInProgress';
  return undefined;
}

/** What an info upload would do with each row, without doing it. */
export async function previewInfo(db: Db, orgId: string, type: InfoType, rows: SheetRow[]): Promise<RowOutcome[]> {
  const outcomes = checkRows(rows);
  for (let i = 0; i < outcomes.length; i += 10 * BATCH) {
    const end = Math.min(outcomes.length, i + 10 * BATCH);
    const sims = await simsOf(
      db,
      orgId,
      outcomes
        .slice(i, end)
        .filter((o) => !o.refusal)
        .map((o) => o.iccid),
      false,
      null,
      null,
    );
    for (let j = i; j < end; j++) {
      const o = outcomes[j];
      const v = infoValueOf(type, rows[j].cells[1]);
      o.value = Array.isArray(v.value) ? v.value.join('; ') : v.value;
      if (!o.refusal) o.refusal = !sims.has(o.iccid) ? 'notInOrg' : v.refusal;
    }
  }
  return outcomes;
}

/** The outcome counts and the first refused rows, as the console and the task's result show them. */
export function summarise(outcomes: RowOutcome[], lang: Language, shown = 100) {
  const refused = outcomes.filter((o) => o.refusal);
  const byReason: Record<string, number> = {};
  for (const o of refused) byReason[o.refusal!] = (byReason[o.refusal!] ?? 0) + 1;
  return {
    rows: outcomes.length,
    ok: outcomes.length - refused.length,
    failed: refused.length,
    byReason,
    errors: refused.slice(0, shown).map((o) => ({ row: o.row, iccid: o.iccid, reason: o.refusal!, message: translate(lang, `upload.outcome.${o.refusal}`) })),
  };
}

async function uploadBytes(store: FileStore, key: string): Promise<Uint8Array> {
  const chunks: Buffer[] = [];
  for await (const chunk of store.read(key)) chunks.push(chunk as Buffer);
  return new Uint8Array(Buffer.concat(chunks));
}

/** The report of a finished upload: every row, its ICCID, what happened, in the requester's language. */
async function writeReport(ctx: JobContext, name: string, outcomes: RowOutcome[], lang: Language, withValue: boolean) {
  const folder = `${ctx.task.org_id}/reports/${ctx.task.id}`;
  await ctx.store.discardDrafts(folder);
  const key = `${folder}/${name}`;
  const w = csvWriter(ctx.store.draft(key));
  const t = (k: string) => translate(lang, k);
  await w.header([t('upload.report.row'), 'ICCID', ...(withValue ? [t('upload.report.value')] : []), t('upload.report.outcome'), t('upload.report.message')]);
  for (const o of outcomes) {
    await w.row([
      o.row,
      o.iccid,
      ...(withValue ? [o.value ?? null] : []),
      t(o.refusal ? 'upload.report.refused' : 'upload.report.done'),
      o.refusal ? t(`upload.outcome.${o.refusal}`) : null,
    ]);
  }
  await w.end();
  return { key, name, contentType: 'text/csv; charset=utf-8', kind: 'report' as const };
}

interface UploadPayload {
  fileKey: string;
  fileName: string;
  lang: Language;
}

/** Transfer: the organisation's SIMs of the file move to the receiving organisation, with their open bundles. */
export const transferJob: JobHandler = async (ctx) => {
  const { db, task } = ctx;
  const { fileKey, fileName, lang, targetOrgId } = task.payload as unknown as UploadPayload & { targetOrgId: string };
  const rows = readUpload(fileName, await uploadBytes(ctx.store, fileKey), 'ICCID');
  const outcomes = checkRows(rows);
  const todo = outcomes.filter((o) => !o.refusal);
  let moved = 0;
  for (let i = 0; i < todo.length; i += BATCH) {
    const batch = todo.slice(i, i + BATCH);
    await db.tx(async (q) => {
      const sims = await simsOf(
        q,
        task.org_id,
        batch.map((o) => o.iccid),
        true,
        task.id,
        targetOrgId,
      );
      const move: SimFacts[] = [];
      for (const o of batch) {
        const sim = sims.get(o.iccid);
        o.refusal = transferRefusal(sim);
        if (!o.refusal && sim && !sim.mine) move.push(sim);
      }
      if (!move.length) return;
      const ids = move.map((s) => s.id);
      // The receiving organisation starts with the device's name but not the sender's tags and notes.
      await q.query(`UPDATE sims SET org_id = $2, tags = '{}', notes = NULL, updated_at = now() WHERE org_id = $1 AND id = ANY($3::text[])`, [
        task.org_id,
        targetOrgId,
        ids,
      ]);
      await q.query(`UPDATE bundle_orders SET org_id = $2 WHERE org_id = $1 AND sim_id = ANY($3::text[]) AND status IN ('PENDING', 'IN_USE')`, [
        task.org_id,
        targetOrgId,
        ids,
      ]);
      // One event in each organisation's history.
      await q.query(
        `INSERT INTO sim_events (org_id, sim_id, iccid, type, detail, account_id, source)
         SELECT o.org, s.id, s.iccid, 'transfer', jsonb_build_object('taskId', $3::text, 'from', $1::text, 'to', $2::text), $4, 'console'
           FROM sims s CROSS JOIN (VALUES ($1::text), ($2::text)) AS o(org) WHERE s.id = ANY($5::text[])`,
        [task.org_id, targetOrgId, task.id, task.account_id, ids],
      );
      moved += move.length;
    });
    await ctx.progress(((i + batch.length) / Math.max(1, todo.length)) * 95);
  }
  const summary = summarise(outcomes, lang);
  await audit(db, null, {
    accountId: task.account_id,
    orgId: task.org_id,
    action: 'transfer',
    entity: 'sim',
    entityId: task.id,
    after: { to: targetOrgId, rows: summary.rows, transferred: summary.ok, movedNow: moved, refused: summary.byReason },
  });
  const file = await writeReport(ctx, `transfer-report-${task.id}.csv`, outcomes, lang, false);
  return { file, result: summary, issues: summary.failed > 0 };
};

/** Batch info upload: one field of the organisation's SIMs, row by row. */
export const infoUploadJob: JobHandler = async (ctx) => {
  const { db, task } = ctx;
  const { fileKey, fileName, lang, type } = task.payload as unknown as UploadPayload & { type: InfoType };
  const column = { deviceName: 'device_name', notes: 'notes', tags: 'tags' }[type];
  const rows = readUpload(fileName, await uploadBytes(ctx.store, fileKey), 'ICCID');
  const outcomes = checkRows(rows);
  const values = rows.map((r) => infoValueOf(type, r.cells[1]));
  outcomes.forEach((o, i) => {
    o.value = Array.isArray(values[i].value) ? (values[i].value as string[]).join('; ') : (values[i].value as string | null);
    if (!o.refusal) o.refusal = values[i].refusal;
  });
  const todo = outcomes.map((o, i) => ({ o, v: values[i].value })).filter(({ o }) => !o.refusal);
  for (let i = 0; i < todo.length; i += BATCH) {
    const batch = todo.slice(i, i + BATCH);
    await db.tx(async (q) => {
      const sims = await simsOf(
        q,
        task.org_id,
        batch.map(({ o }) => o.iccid),
        true,
        null,
        null,
      );
      const found = batch.filter(({ o }) => {
        if (!sims.has(o.iccid)) o.refusal = 'notInOrg';
        return !o.refusal;
      });
      if (!found.length) return;
      // Setting a value twice gives the same SIM, so a job started over needs no memory of its earlier batches.
      const ids = found.map(({ o }) => sims.get(o.iccid)!.id);
      const vals = found.map(({ v }) => (Array.isArray(v) ? `{${v.map((t) => `"${t.replace(/["\\]/g, '\\$&')}"`).join(',')}}` : v));
      await q.query(
        `UPDATE sims s SET ${column} = ${type === 'tags' ? 'u.v::text[]' : 'u.v'}, updated_at = now()
           FROM unnest($2::text[], $3::text[]) AS u(id, v) WHERE s.org_id = $1 AND s.id = u.id`,
        [task.org_id, ids, vals],
      );
      await q.query(
        `INSERT INTO sim_events (org_id, sim_id, iccid, type, detail, account_id, source)
         SELECT $1, s.id, s.iccid, $2, jsonb_build_object('field', $3::text, 'taskId', $4::text), $5, 'console' FROM sims s WHERE s.id = ANY($6::text[])`,
        [task.org_id, type === 'tags' ? 'tag_change' : 'info_change', type, task.id, task.account_id, ids],
      );
    });
    await ctx.progress(((i + batch.length) / Math.max(1, todo.length)) * 95);
  }
  const summary = summarise(outcomes, lang);
  await audit(db, null, {
    accountId: task.account_id,
    orgId: task.org_id,
    action: 'uploadInfo',
    entity: 'sim',
    entityId: task.id,
    after: { field: type, rows: summary.rows, updated: summary.ok, refused: summary.byReason },
  });
  const file = await writeReport(ctx, `${type}-report-${task.id}.csv`, outcomes, lang, true);
  return { file, result: summary, issues: summary.failed > 0 };
};

export const UPLOAD_JOBS: Record<string, JobHandler> = { sim_transfer: transferJob, sim_info_upload: infoUploadJob };
