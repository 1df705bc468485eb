/**
 * Usage per cycle and per bundle, and the coverage of the organisation's bundles (docs/decisions.md "The last bundle
 * calls"), each with its export through the task center (CSV or XLSX, at most 100,000 rows, worded
 * in the requester's language):
 *
 * - POST /device/cycle {iccid, bundleId?}: the cycles of one SIM's bundle, newest first and paged: number (from 1, the
 *   cycle its activation falls in), bounds, usage (the sum of the SIM's CDRs that started in it, so it always equals
 *   them), limit and overage. The bundle is the one whose cycle the SIM counts now, else its last data bundle.
 * - POST /device/bundle {status?, search?}: the organisation's bundles, one row per product (SKU): how many SIMs hold
 *   it, how many orders are in use, pending, expired or cancelled, this cycle's use of those in use, and how many of
 *   their SIMs have reached their allowance or have data slowed or stopped. The bundle orders list shows it.
 * - POST /device/coverCountry/export {sku?}: each product's coverage, one row per country (a product that lists none
 *   covers everywhere), with its out-of-coverage policy and how many SIMs use it now.
 */
import type { FastifyRequest } from 'fastify';
import { CODES } from '../../common/errors.js';
import { translate } from '../../common/i18n.js';
import { LIMITS, PAGING_PROPERTIES, type Language } from '../../common/limits.js';
import { RESOURCES } from '../../common/resource-registry.js';
import type { Queryable } from '../db/db.js';
import { newId } from '../db/ids.js';
import { ApiError, notFound } from '../http/api-error.js';
import { audit } from '../http/audit.js';
import { fieldLabels } from '../http/labels.js';
import { defineRoutes, type RouteDef } from '../http/route.js';
import { publishLive } from '../live/hub.js';
import { csvWriter, xlsxWriter, type Cell } from '../job/table-writers.js';
import type { JobHandler } from '../job/worker.js';
import { PAGE_NUMBERS, pageResponse } from '../http/page-response.js';
import { insertTask } from '../job/task-repo.js';
import {
  bundleSummary,
  bundleSummaryPage,
  countRows,
  coverageRows,
  cycleBundleOf,
  cycleRows,
  cyclesOf,
  eachBatch,
  simIdByIccid,
  type BundleFilter,
  type CycleBundle,
  type RowQuery,
} from './device-usage-repo.js';
import { taskReference } from '../job/task-reference.js';

const sims = RESOURCES.sims;
const NUM = { type: ['number', 'null'] } as const;
const FORMATS = { csv: 'text/csv; charset=utf-8', xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet' } as const;
type Format = keyof typeof FORMATS;
const FORMAT = { type: 'string', enum: Object.keys(FORMATS) };
const BUNDLE_ID = { type: 'string', pattern: '^[A-Za-z0-9]{18,22}$', maxLength: 22 };
const STATUS = { type: 'string', enum: ['PENDING', 'IN_USE', 'EXPIRED', 'CANCELLED'] };
const SKU = { type: 'string', minLength: 1, maxLength: 64 };
const TASK = { type: 'object', properties: { taskId: { type: 'string' }, referenceId: { type: 'string' }, quantity: { type: 'integer' } } };
const LABELS = fieldLabels(sims);

// ---------------------------------------------------------------------------------------------------------------
// A SIM's cycles.

interface CycleBody {
  iccid: string;
  bundleId?: string;
}

/**
 * The SIM's bundle whose cycles are asked for: the one named (any of its data bundles that has started), else the one
 * whose cycle it counts now, else its data bundle activated last; null when it has none. 404 for another
 * organisation's SIM or another SIM's bundle.
 */
async function cycleBundle(q: Queryable, orgId: string, { iccid, bundleId }: CycleBody): Promise<CycleBundle | null> {
  const simId = await simIdByIccid(q, orgId, iccid);
  if (!simId) throw notFound('sim', iccid);
  const b = await cycleBundleOf(q, orgId, simId, bundleId ?? null);
  if (!b && bundleId) throw notFound('record', bundleId);
  return b ?? null;
}

const overageOf = (r: { usageKb: number; limitKb: number | null }) => (r.limitKb === null ? null : Math.max(0, r.usageKb - r.limitKb));

// The organisation's bundles by product.

const SUMMARY = {
  type: 'object',
  properties: {
    sku: { type: 'string' },
    name: { type: 'string' },
    resetCycle: { type: 'string' },
    quotaKb: NUM,
    outOfCoverage: { type: 'string' },
    overagePolicies: { type: 'array', items: { type: 'string' } },
    sims: { type: 'integer' },
    inUse: { type: 'integer' },
    pending: { type: 'integer' },
    expired: { type: 'integer' },
    cancelled: { type: 'integer' },
    cycleUsedKb: { type: 'number' },
    overAllowance: { type: 'integer' },
    controlled: { type: 'integer' },
  },
};

// ---------------------------------------------------------------------------------------------------------------
// Exports: the task, then the job.

type DeviceExport = 'cycle_export' | 'device_bundle_export' | 'coverage_export';

/** Count, refuse none or too many, then queue the task (with its audit row and live notice) in one transaction. */
async function queueExport(
  req: FastifyRequest,
  kind: DeviceExport,
  count: number,
  payload: Record<string, unknown>,
  entity: string,
): Promise<{ taskId: string; referenceId: string; quantity: number }> {
  const auth = req.requireAuth();
  if (count === 0) throw new ApiError(400, CODES.badRequest, {}, 'errors.exportNoData');
  if (count > LIMITS.exportMax) throw new ApiError(400, CODES.badRequest, { max: LIMITS.exportMax.toLocaleString(req.lang) }, 'errors.exportTooMany');
  const taskId = newId();
  const referenceId = taskReference(kind, new Date());
  const format = payload.format as Format;
  await req.server.db.tx(async (tx) => {
    await insertTask(tx, {
      orgId: auth.orgId,
      id: taskId,
      accountId: auth.accountId,
      referenceId,
      kind,
      quantity: count,
      remark: format.toUpperCase(),
      payload: { ...payload, lang: req.lang },
    });
    await audit(tx, req, { action: 'export', entity, entityId: taskId, after: { format, quantity: count } });
    await publishLive(tx, { type: 'task', orgId: auth.orgId, accountId: auth.accountId, data: { id: taskId, status: 'processing', progress: 0 } });
  });
  return { taskId, referenceId, quantity: count };
}

/** A job writing a query's rows as cells under a header worded in the requester's language. */
function tableJob(
  file: string,
  columns: readonly string[],
  query: (db: Queryable, orgId: string, payload: Record<string, unknown>) => Promise<RowQuery> | RowQuery,
  cells: (row: Record<string, unknown>, lang: Language) => Cell[],
): JobHandler {
  return async ({ store, db, task, progress }) => {
    const payload = task.payload as Record<string, unknown> & { format: Format; lang: Language };
    const stamp = new Date().toISOString().slice(0, 16).replace(/[-:]/g, '').replace('T', '-');
    const name = `${file}-${stamp}.${payload.format}`;
    const folder = `${task.org_id}/exports/${task.id}`;
    await store.discardDrafts(folder);
    const key = `${folder}/${name}`;
    const writer = payload.format === 'xlsx' ? xlsxWriter(store.draft(key)) : csvWriter(store.draft(key));
    await writer.header(columns.map((c) => translate(payload.lang, `usageExport.columns.${c}`)));
    let written = 0;
    await eachBatch(db, await query(db, task.org_id, payload), 1000, async (rows) => {
      await writer.rows(rows.map((r) => cells(r, payload.lang)));
      written += rows.length;
      await progress(task.quantity ? (written / task.quantity) * 100 : 50);
    });
    await writer.end();
    return { file: { key, name, contentType: FORMATS[payload.format] }, result: { rows: written } };
  };
}

const iso = (v: unknown) => (v instanceof Date ? v.toISOString() : v === null || v === undefined ? null : String(v));
const enumWord = (lang: Language, group: string, v: unknown) => (v === null || v === undefined ? null : translate(lang, `usageExport.${group}.${String(v)}`));

const CYCLE_COLUMNS = ['iccid', 'bundle', 'number', 'start', 'end', 'usageKb', 'limitKb', 'overageKb'] as const;
const BUNDLE_COLUMNS = [
  'sku',
  'name',
  'resetCycle',
  'quotaKb',
  'sims',
  'inUse',
  'pending',
  'expired',
  'cancelled',
  'cycleUsedKb',
  'overAllowance',
  'controlled',
] as const;
const COVERAGE_COLUMNS = ['sku', 'name', 'country', 'countryName', 'outOfCoverage', 'sims'] as const;

export const DEVICE_EXPORT_JOBS: Record<DeviceExport, JobHandler> = {
  cycle_export: tableJob(
    'cycles',
    CYCLE_COLUMNS,
    async (db, orgId, p) => {
      // The SIM's cycles as they are when the job runs (a new cycle may have begun since the request).
      const b = await cycleBundle(db, orgId, p as unknown as CycleBody);
      if (!b) throw new Error('the SIM has no data bundle any more');
      return cycleRows(orgId, b, b.cycles, 1);
    },
    (r) => [
      String(r.iccid),
      String(r.bundle),
      Number(r.number),
      iso(r.start),
      iso(r.end),
      Number(r.usageKb),
      r.limitKb === null ? null : Number(r.limitKb),
      overageOf(r as never),
    ],
  ),
  device_bundle_export: tableJob(
    'bundles',
    BUNDLE_COLUMNS,
    (_db, orgId, p) => bundleSummary(orgId, p as BundleFilter),
    (r, lang) => BUNDLE_COLUMNS.map((c) => (c === 'resetCycle' ? enumWord(lang, 'resetCycle', r[c]) : (r[c] as Cell))),
  ),
  coverage_export: tableJob(
    'coverage',
    COVERAGE_COLUMNS,
    (_db, orgId, p) => coverageRows(orgId, (p as { sku?: string }).sku),
    (r, lang) => {
      const country = r.country as string | null;
      const name = country ? (new Intl.DisplayNames([lang], { type: 'region' }).of(country) ?? country) : translate(lang, 'usageExport.everywhere');
      return [String(r.sku), String(r.name), country, name, enumWord(lang, 'outOfCoverage', r.policy), Number(r.sims)];
    },
  ),
};

// ---------------------------------------------------------------------------------------------------------------

const cycleBody = (extra: Record<string, object> = {}, required: string[] = []) => ({
  type: 'object',
  required: ['iccid', ...required],
  additionalProperties: false,
  properties: { iccid: sims.properties.iccid, bundleId: BUNDLE_ID, ...extra },
});
const bundleFilter = { status: STATUS, search: { type: 'string', minLength: 1, maxLength: 64 } };

export const deviceUsageRoutes: RouteDef[] = defineRoutes([
  {
    service: 'main',
    method: 'POST',
    path: '/device/cycle',
    permission: { action: 'read', subject: 'sim' },
    labels: LABELS,
    schema: {
      body: cycleBody(PAGING_PROPERTIES),
      response: {
        type: 'object',
        properties: {
          iccid: { type: 'string' },
          bundleId: { type: ['string', 'null'] },
          bundleName: { type: ['string', 'null'] },
          resetCycle: { type: ['string', 'null'] },
          items: {
            type: 'array',
            items: {
              type: 'object',
              properties: {
                number: { type: 'integer' },
                start: { type: 'string', format: 'date-time' },
                end: { type: 'string', format: 'date-time' },
                current: { type: 'boolean' },
                usageKb: { type: 'number' },
                limitKb: NUM,
                overageKb: NUM,
              },
            },
          },
          total: { type: 'integer' },
          page: { type: 'integer' },
          pageSize: { type: 'integer' },
        },
      },
    },
    handler: async (req) => {
      const auth = req.requireAuth();
      const body = req.body as CycleBody & { page?: number; pageSize?: number };
      const page = body.page ?? 1;
      const pageSize = body.pageSize ?? 20;
      const b = await cycleBundle(req.server.db, auth.orgId, body);
      if (!b || b.cycles === 0)
        return {
          iccid: body.iccid,
          bundleId: b?.id ?? null,
          bundleName: b?.name ?? null,
          resetCycle: b?.reset_cycle ?? null,
          items: [],
          total: 0,
          page,
          pageSize,
        };
      const from = b.cycles - (page - 1) * pageSize;
      const to = Math.max(1, from - pageSize + 1);
      const rows = from < 1 ? [] : await cyclesOf(req.server.db, auth.orgId, b, from, to);
      return {
        iccid: b.iccid,
        bundleId: b.id,
        bundleName: b.name,
        resetCycle: b.reset_cycle,
        items: rows.map((r) => ({ ...r, overageKb: overageOf(r) })),
        total: b.cycles,
        page,
        pageSize,
      };
    },
  },
  {
    service: 'main',
    method: 'POST',
    path: '/device/cycle/export',
    permission: { action: 'export', subject: 'sim' },
    labels: LABELS,
    schema: { body: cycleBody({ format: FORMAT }, ['format']), response: TASK },
    handler: async (req) => {
      const auth = req.requireAuth();
      const body = req.body as CycleBody & { format: Format };
      const b = await cycleBundle(req.server.db, auth.orgId, body);
      return queueExport(req, 'cycle_export', b?.cycles ?? 0, { iccid: body.iccid, bundleId: b?.id, format: body.format }, 'sim');
    },
  },
  {
    service: 'main',
    method: 'POST',
    path: '/device/bundle',
    permission: { action: 'read', subject: 'sim' },
    labels: LABELS,
    schema: {
      body: { type: 'object', additionalProperties: false, properties: { ...bundleFilter, ...PAGING_PROPERTIES } },
      response: pageResponse(SUMMARY, PAGE_NUMBERS),
    },
    handler: async (req) => {
      const auth = req.requireAuth();
      const body = (req.body ?? {}) as BundleFilter & { page?: number; pageSize?: number };
      const page = body.page ?? 1;
      const pageSize = body.pageSize ?? 20;
      return { ...(await bundleSummaryPage(req.server.db, auth.orgId, body, page, pageSize)), page, pageSize };
    },
  },
  {
    service: 'main',
    method: 'POST',
    path: '/device/bundle/export',
    permission: { action: 'export', subject: 'sim' },
    labels: LABELS,
    schema: { body: { type: 'object', required: ['format'], additionalProperties: false, properties: { ...bundleFilter, format: FORMAT } }, response: TASK },
    handler: async (req) => {
      const auth = req.requireAuth();
      const body = req.body as BundleFilter & { format: Format };
      const n = await countRows(req.server.db, bundleSummary(auth.orgId, body));
      return queueExport(req, 'device_bundle_export', n, { status: body.status, search: body.search, format: body.format }, 'bundle_order');
    },
  },
  {
    service: 'main',
    method: 'POST',
    path: '/device/coverCountry/export',
    permission: { action: 'export', subject: 'sim' },
    labels: LABELS,
    schema: { body: { type: 'object', required: ['format'], additionalProperties: false, properties: { sku: SKU, format: FORMAT } }, response: TASK },
    handler: async (req) => {
      const auth = req.requireAuth();
      const body = req.body as { sku?: string; format: Format };
      const n = await countRows(req.server.db, coverageRows(auth.orgId, body.sku));
      return queueExport(req, 'coverage_export', n, { sku: body.sku, format: body.format }, 'bundle_order');
    },
  },
]);
