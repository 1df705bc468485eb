/**
 * Exports through the task center (SPEC.md section 8, Export): SIMs, bundle orders and CDRs as CSV or XLSX, at most
 * 100,000 rows. The request is checked and counted at once ("No data to export", "Please select the data to export",
 * over 100,000 refused with a message that asks to narrow the selection); the job then reads the rows of the same
 * query through one database cursor, 1,000 at a time, straight into the CSV or XLSX writer, with labels in the
 * requester's language (docs/decisions.md, "Exports stream from a cursor").
 */
import type { FastifyRequest } from 'fastify';
import { CODES } from '../../common/errors.js';
import { LIMITS, type Language } from '../../common/limits.js';
import type { Subject } from '../../common/permissions.js';
import { RESOURCES } from '../../common/resource-registry.js';
import { listQuerySchema, type ResourceSchema } from '../../common/resources.js';
import { readCursor } from '../db/db.js';
import { newId } from '../db/ids.js';
import { checkSpec, listPage, listSelect } from '../db/listing.js';
import { listQueryOf } from '../schema/resource-routes.js';
import { listSpecOf, snake } from '../schema/schema-repo.js';
import { ApiError, invalid, notFound } from '../http/api-error.js';
import { consoleLabel } from '../http/labels.js';
import { audit } from '../http/audit.js';
import type { RouteDef, Service } from '../http/route.js';
import { publishLive } from '../live/hub.js';
import { copyColumns, copyCsv, csvLineSelect, literal } from './export-copy.js';
import { csvWriter, xlsxWriter, type Cell } from './table-writers.js';
import type { JobHandler } from './worker.js';
import { taskReference } from './task-reference.js';
import { insertTask } from './task-repo.js';

// The console's labels of each resource's fields and values, so that an export reads like the page it came from.
const label = (lang: Language, key: string, fallback: string) => consoleLabel(lang, key) ?? fallback;

/** The export kinds and the resource each writes. */
export const EXPORTS = { sim_export: RESOURCES.sims, bundle_export: RESOURCES.bundleOrders, cdr_export: RESOURCES.cdrs } as const;
export type ExportKind = keyof typeof EXPORTS;

const FORMATS = { csv: 'text/csv; charset=utf-8', xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet' } as const;
type Format = keyof typeof FORMATS;

/** The list spec of an export: the resource's, plus "these records only" for an export of the selected rows. */
function exportSpec(r: ResourceSchema) {
  const base = listSpecOf(r);
  return checkSpec({ ...base, filters: { ...base.filters, __selected: { kind: 'in', column: `t.${snake(r['x-admin'].key)}` } } });
}

/**
 * The body of an export request: the list's filters (no paging), the format, and optionally the selected keys.
 * mode 'selected' (the format in the path): the ticked rows, at least one; mode 'all': every row of the filters.
 */
function exportBody(r: ResourceSchema, mode: ExportMode = 'any') {
  const list = listQuerySchema(r) as { properties: Record<string, unknown>; required: string[] };
  const { page: _p, pageSize: _s, cursor: _c, ...filters } = list.properties;
  const key = r.properties[r['x-admin'].key];
  // Rows ticked in the list; an empty list means the person ticked none.
  const selected = { type: 'array', maxItems: LIMITS.exportMax, items: { type: 'string', maxLength: 40, ...(key.pattern ? { pattern: key.pattern } : {}) } };
  if (mode === 'all') return { type: 'object', additionalProperties: false, required: list.required, properties: filters };
  if (mode === 'selected')
    return { type: 'object', additionalProperties: false, required: ['selected', ...list.required], properties: { ...filters, selected } };
  return {
    type: 'object',
    additionalProperties: false,
    required: ['format', ...list.required],
    properties: { ...filters, format: { type: 'string', enum: Object.keys(FORMATS) }, selected },
  };
}

/**
 * How an export route takes its request: 'any' (the format and an optional selection in the body, the organisation
 * as :id), or SPEC.md's two-segment paths /{org}/{format}/: 'selected' (the ticked rows) and 'all' (every row of the
 * filters) (docs/decisions.md "The CDR calls' path segments").
 */
export type ExportMode = 'any' | 'selected' | 'all';

/** The export request route: checked, counted, then a task for the worker. */
export function exportRoute(kind: ExportKind, service: Service, path: string, mode: ExportMode = 'any'): RouteDef {
  const resource = EXPORTS[kind];
  const spec = exportSpec(resource);
  return {
    service,
    method: 'POST',
    path,
    permission: { action: 'export', subject: resource['x-admin'].subject as Exclude<Subject, 'all'> },
    schema: {
      ...(path.includes(':id') ? { params: { type: 'object', required: ['id'], properties: { id: { type: 'string', minLength: 1, maxLength: 40 } } } } : {}),
      ...(mode !== 'any'
        ? {
            params: {
              type: 'object',
              required: ['org', 'format'],
              additionalProperties: false,
              // The format is checked by the handler, after the body: a wrong body is named before a wrong format.
              properties: { org: { type: 'string', minLength: 1, maxLength: 40 }, format: { type: 'string', minLength: 1, maxLength: 10 } },
            },
          }
        : {}),
      body: exportBody(resource, mode),
      response: { type: 'object', properties: { taskId: { type: 'string' }, referenceId: { type: 'string' }, quantity: { type: 'integer' } } },
    },
    handler: async (req: FastifyRequest) => {
      const auth = req.requireAuth();
      const params = req.params as { id?: string; org?: string; format?: Format };
      const org = params.id ?? params.org;
      if (org !== undefined && org !== auth.orgCode && org !== auth.orgId) throw notFound('organisation', org);
      const { format: bodyFormat, selected, ...query } = req.body as Record<string, unknown> & { format?: Format; selected?: string[] };
      const format = (params.format ?? bodyFormat) as Format;
      if (!Object.hasOwn(FORMATS, format)) throw invalid('format', 'enum', { values: Object.keys(FORMATS).join(', ') });
      if (selected && selected.length === 0) throw new ApiError(400, CODES.badRequest, {}, 'errors.exportNoneSelected');
      const q = listQueryOf(resource, { ...query, pageSize: 1 });
      if (selected) q.filters = { ...q.filters, __selected: selected };
      const count = await listPage(req.server.db, spec, auth.orgId, { ...q, totalCap: LIMITS.exportMax + 1 });
      if (count.total === 0) throw new ApiError(400, CODES.badRequest, {}, 'errors.exportNoData');
      if (count.total > LIMITS.exportMax) throw new ApiError(400, CODES.badRequest, { max: LIMITS.exportMax.toLocaleString(req.lang) }, 'errors.exportTooMany');
      const taskId = newId();
      const referenceId = taskReference(kind, new Date());
      await req.server.db.tx(async (tx) => {
        await insertTask(tx, {
          orgId: auth.orgId,
          id: taskId,
          accountId: auth.accountId,
          referenceId,
          kind,
          quantity: count.total,
          remark: `${format.toUpperCase()}${selected ? ` · ${selected.length}` : ''}`,
          payload: { query, selected, format, lang: req.lang },
        });
        await audit(tx, req, { action: 'export', entity: resource['x-admin'].resource, entityId: taskId, after: { format, quantity: count.total } });
        await publishLive(tx, { type: 'task', orgId: auth.orgId, accountId: auth.accountId, data: { id: taskId, status: 'processing', progress: 0 } });
      });
      return { taskId, referenceId, quantity: count.total };
    },
  };
}

/**
 * Rows fetched from the cursor at a time: a small batch is garbage soon after it is fetched, so the job's memory stays
 * flat (docs/decisions.md, "Exports stream from a cursor"). Progress (and the lease's heartbeat) every PROGRESS_ROWS.
 */
const BATCH = 1000;
const PROGRESS_ROWS = 5000;

/**
 * How each column of a resource becomes a cell, decided once per export: enum values and yes/no by label, times in
 * ISO 8601 UTC, lists joined.
 */
function cellsOf(r: ResourceSchema, columns: string[], lang: Language): (row: Record<string, unknown>) => Cell[] {
  const prefix = r['x-admin'].i18n;
  const yes = label(lang, 'resources.yes', 'true');
  const no = label(lang, 'resources.no', 'false');
  const formats = columns.map((field) => {
    const p = r.properties[field];
    const labels = new Map<string, string>();
    const enumLabel = (v: string) => {
      let l = labels.get(v);
      if (l === undefined) labels.set(v, (l = label(lang, `${prefix}.enum.${field}.${v}`, v)));
      return l;
    };
    return (value: unknown): Cell => {
      if (value === null || value === undefined) return null;
      if (p.enum) return enumLabel(String(value));
      if (typeof value === 'boolean') return value ? yes : no;
      if (value instanceof Date) return value.toISOString();
      if (Array.isArray(value)) return value.join('; ');
      if (typeof value === 'number') return value;
      return String(value);
    };
  });
  return (row) => columns.map((f, i) => formats[i](row[f]));
}

/**
 * The job of an export kind: the same query, read through a cursor into the writer, progress every PROGRESS_ROWS.
 * cells 'javascript' makes every cell in JavaScript even where the database could (tests compare the two files).
 */
export function exportJob(kind: ExportKind, { cells: cellsIn = 'database' }: { cells?: 'database' | 'javascript' } = {}): JobHandler {
  const resource = EXPORTS[kind];
  const spec = exportSpec(resource);
  const columns = resource['x-admin'].list.columns;
  return async ({ store, db, task, progress }) => {
    const { query, selected, format, lang } = task.payload as { query: Record<string, unknown>; selected?: string[]; format: Format; lang: Language };
    const stamp = new Date().toISOString().slice(0, 16).replace(/[-:]/g, '').replace('T', '-');
    const name = `${resource['x-admin'].resource}-${stamp}.${format}`;
    const folder = `${task.org_id}/exports/${task.id}`;
    // An attempt stopped by a restart left a draft under another name: it is never offered, so it goes.
    await store.discardDrafts(folder);
    const key = `${folder}/${name}`;
    const file = store.draft(key);
    const header = columns.map((f) => label(lang, `${resource['x-admin'].i18n}.fields.${f}`, f));
    const q = listQueryOf(resource, { ...query, pageSize: 1 });
    if (selected) q.filters = { ...q.filters, __selected: selected };
    // CSV made by the database when every column can be written by it exactly as the writer would: by COPY on
    // PostgreSQL, as one line per row through the cursor on PGlite.
    const copyCells = format === 'csv' && cellsIn === 'database' ? copyColumns(resource, columns, (k, fallback) => label(lang, k, fallback)) : null;
    if (copyCells && db.copyOut) {
      // Values and cells go in in one pass, so neither a value nor a label is ever read again as SQL to substitute.
      const select = listSelect(
        spec,
        task.org_id,
        q,
        LIMITS.exportMax,
        copyCells.map((_, i) => `__cell_${i}__`),
      );
      const sql = select.sql.replace(/\$(\d+)|__cell_(\d+)__/g, (_, param?: string, cell?: string) =>
        param ? literal(select.params[Number(param) - 1]) : copyCells[Number(cell)],
      );
      const rows = await copyCsv(db, sql, file, header, PROGRESS_ROWS, (n) => progress(task.quantity ? (n / task.quantity) * 100 : 50));
      return { file: { key, name, contentType: FORMATS[format] }, result: { rows } };
    }
    let written = 0;
    let reported = 0;
    const advance = async (n: number) => {
      written += n;
      if (written - reported < PROGRESS_ROWS) return;
      reported = written;
      await progress(task.quantity ? (written / task.quantity) * 100 : 50);
    };
    if (copyCells) {
      // No COPY out (PGlite): the same cells, each line made by the database, read through the cursor (one text per
      // row for JavaScript to read, not a value per cell).
      const writer = csvWriter(file);
      await writer.header(header);
      const select = listSelect(
        spec,
        task.org_id,
        q,
        LIMITS.exportMax,
        copyCells.map((_, i) => `__cell_${i}__ AS c${i}`),
      );
      const sql = csvLineSelect(
        select.sql.replace(/__cell_(\d+)__/g, (_, cell: string) => copyCells[Number(cell)]),
        copyCells.length,
      );
      await readCursor<{ line: string }>(db, sql, select.params, BATCH, async (rows) => {
        await writer.lines(rows.map((r) => r.line));
        await advance(rows.length);
      });
      await writer.end();
      return { file: { key, name, contentType: FORMATS[format] }, result: { rows: written } };
    }
    const writer = format === 'xlsx' ? xlsxWriter(file) : csvWriter(file);
    await writer.header(header);
    // The rows of the list's own query and order, never more than the export limit.
    const { sql, params } = listSelect(spec, task.org_id, q, LIMITS.exportMax);
    const cells = cellsOf(resource, columns, lang);
    await readCursor<Record<string, unknown>>(db, sql, params, BATCH, async (rows) => {
      await writer.rows(rows.map(cells));
      await advance(rows.length);
    });
    await writer.end();
    return { file: { key, name, contentType: FORMATS[format] }, result: { rows: written } };
  };
}

export const EXPORT_JOBS: Record<string, JobHandler> = Object.fromEntries((Object.keys(EXPORTS) as ExportKind[]).map((k) => [k, exportJob(k)]));
