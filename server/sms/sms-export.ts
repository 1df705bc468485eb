/**
 * The All SMS download (POST /sms/list/download): the filtered records, replies included, as CSV or XLSX written by
 * the task center's worker through one database cursor (like server/job/export-jobs.ts), headers and values in the
 * requester's language, at most 100,000 rows.
 */
import { LIMITS, type Language } from '../../common/limits.js';
import { readCursor } from '../db/db.js';
import { listSelect } from '../db/listing.js';
import { consoleLabel } from '../http/labels.js';
import { csvWriter, xlsxWriter, type Cell } from '../job/table-writers.js';
import type { JobHandler } from '../job/worker.js';
import { SMS_LIST_SPEC } from './sms-repo.js';
import { smsFilters, type SmsListBody } from './sms-routes.js';

const COLUMNS = [
  'createdAt',
  'iccid',
  'msisdn',
  'direction',
  'content',
  'smsType',
  'status',
  'error',
  'deliveredAt',
  'accountName',
  'scheduleName',
  'replyToId',
  'id',
] as const;
const FORMATS = { csv: 'text/csv; charset=utf-8', xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet' } as const;
const ENUMS = new Set(['direction', 'smsType', 'status']);

export const smsExportJob: JobHandler = async ({ store, db, task, progress }) => {
  const { query, format, lang } = task.payload as { query: SmsListBody; format: keyof typeof FORMATS; lang: Language };
  const label = (key: string, fallback: string) => consoleLabel(lang, key) ?? fallback;
  const stamp = new Date().toISOString().slice(0, 16).replace(/[-:]/g, '').replace('T', '-');
  const name = `sms-${stamp}.${format}`;
  const folder = `${task.org_id}/exports/${task.id}`;
  await store.discardDrafts(folder);
  const key = `${folder}/${name}`;
  const writer = format === 'xlsx' ? xlsxWriter(store.draft(key)) : csvWriter(store.draft(key));
  await writer.header(COLUMNS.map((c) => label(`sms.fields.${c}`, c)));
  const { sql, params } = listSelect(
    { ...SMS_LIST_SPEC, where: undefined },
    task.org_id,
    { sort: query.sort, order: query.order, filters: smsFilters(query) },
    LIMITS.exportMax,
  );
  let written = 0;
  await readCursor<Record<string, unknown>>(db, sql, params, 1000, async (rows) => {
    await writer.rows(
      rows.map((r) =>
        COLUMNS.map((c): Cell => {
          const v = r[c];
          if (v === null || v === undefined) return null;
          if (v instanceof Date) return v.toISOString();
          return ENUMS.has(c) ? label(`sms.${c}.${String(v)}`, String(v)) : String(v);
        }),
      ),
    );
    written += rows.length;
    await progress(task.quantity ? (written / task.quantity) * 100 : 50);
  });
  await writer.end();
  return { file: { key, name, contentType: FORMATS[format] }, result: { rows: written } };
};
