/**
 * Scheduled SMS (SPEC.md section 7, SMS on the customer API; sections 3, 4, 5 and 9): the list, create,
 * edit, enable and disable, delete, details with the execution history, a run's records, and the operation log of
 * who changed what. Users read; operators schedule and manage their own, admins and superadmins every one
 * (common/permissions.ts). A once-only
 * schedule that is executing cannot be edited or deleted ("scheduled SMS in progress cannot be deleted or edited").
 */
import { CODES } from '../../common/errors.js';
import { EMAIL_PATTERN, LIMITS } from '../../common/limits.js';
import type { Queryable } from '../db/db.js';
import { newId } from '../db/ids.js';
import { ApiError, notFound } from '../http/api-error.js';
import { audit } from '../http/audit.js';
import { nowOf } from '../http/clock.js';
import { defineRoutes } from '../http/route.js';
import { arrayOf, ID_PARAMS, ID_TEXT, idsIn, NO_FIELDS, NULLABLE_TEXT, obj, outObj, pagedQuery, subjectRoutes, typed } from '../http/shapes.js';
import { checkSchedule, checkTargets, type ScheduleInput, type ScheduleValues } from './schedule-rules.js';
import { firstOccurrence, recurrenceOf, type ScheduleRow } from './scheduler.js';
import { nextOccurrences } from './recurrence.js';
import type { UploadType } from '../job/sheet-files.js';
import { formatQuery, iccidTemplate, readForm, requireFile } from '../sim/sim-upload-routes.js';
import { readTargetFile } from './targets-file.js';
import {
  deleteSchedule,
  insertSchedule,
  scheduleExists,
  scheduleLog,
  scheduleMessages,
  scheduleOf,
  schedulePage,
  scheduleRuns,
  setScheduleStatus,
  updateSchedule,
  type ScheduleRecord,
} from './schedule-repo.js';
import { pageResponse } from '../http/page-response.js';

const KEY = 'cube-schedule-sms' as const;

const INPUT_PROPERTIES = {
  name: { type: 'string', minLength: LIMITS.scheduledSmsName.min, maxLength: LIMITS.scheduledSmsName.max },
  // Binary is up to 140 octets of hex, blanks allowed between pairs; the SMS rules (server/sms/content.ts) say the rest.
  content: { type: 'string', minLength: 1, maxLength: LIMITS.smsBinaryOctets * 3 },
  smsType: { type: 'string', enum: ['text', 'binary'] },
  mode: { type: 'string', enum: ['once', 'repeated'] },
  weekdays: { type: 'array', maxItems: 7, items: { type: 'integer', minimum: 1, maximum: 7 } },
  sendTime: { type: 'string', maxLength: 5, pattern: '^([01][0-9]|2[0-3]):[0-5][0-9]$' },
  timezone: { type: 'string', minLength: 1, maxLength: 64 },
  startAt: { type: 'string', format: 'date-time', maxLength: 40 },
  endAt: { type: ['string', 'null'], format: 'date-time', maxLength: 40 },
  neverEnds: { type: 'boolean' },
  iccids: { type: 'array', minItems: 1, maxItems: LIMITS.iccidList, items: { type: 'string', minLength: 1, maxLength: 22 } },
  emailNotify: { type: 'boolean' },
  notifyEmails: {
    type: 'array',
    maxItems: LIMITS.emailsPerGroup,
    items: { type: 'string', maxLength: LIMITS.email, pattern: EMAIL_PATTERN, 'x-rule': 'email' },
  },
} as const;
const REQUIRED = ['name', 'content', 'smsType', 'mode', 'startAt', 'iccids'];

const TEXTS = arrayOf({ type: 'string' });
const scheduleItem = typed({
  id: 'string',
  name: 'string',
  content: 'string',
  smsType: 'string',
  mode: 'string',
  weekdays: arrayOf({ type: 'integer' }),
  sendTime: 'string',
  timezone: 'string',
  startAt: 'string',
  endAt: NULLABLE_TEXT,
  neverEnds: 'boolean',
  targetCount: 'integer',
  emailNotify: 'boolean',
  notifyEmails: TEXTS,
  status: 'string',
  executing: 'boolean',
  locked: 'boolean',
  finished: 'boolean',
  nextRunAt: NULLABLE_TEXT,
  lastRunAt: NULLABLE_TEXT,
  creator: NULLABLE_TEXT,
  createdBy: NULLABLE_TEXT,
  createdAt: 'string',
  updatedAt: 'string',
});

const iso = (v: unknown) => (v === null || v === undefined ? null : v instanceof Date ? v.toISOString() : new Date(String(v)).toISOString());

type Row = ScheduleRecord;

/** A stored schedule as the API shows it; `locked`: a once-only schedule executing, which cannot be edited or deleted. */
function itemOf(r: Row) {
  return {
    id: r.id,
    name: r.name,
    content: r.content,
    smsType: r.sms_type,
    mode: r.mode,
    weekdays: r.weekdays,
    sendTime: String(r.send_time).slice(0, 5),
    timezone: r.timezone,
    startAt: iso(r.start_at)!,
    endAt: iso(r.end_at),
    neverEnds: r.never_ends,
    targetCount: r.target_iccids.length,
    emailNotify: r.email_notify,
    notifyEmails: r.notify_emails,
    status: r.status,
    executing: r.executing,
    locked: isLocked(r),
    finished: isFinished(r),
    nextRunAt: iso(r.next_run_at),
    lastRunAt: iso(r.last_run_at),
    creator: r.creator ?? null,
    createdBy: r.created_by,
    createdAt: iso(r.created_at)!,
    updatedAt: iso(r.updated_at)!,
  };
}

const isLocked = (r: Pick<ScheduleRow, 'mode' | 'executing'>) => r.mode === 'once' && r.executing;
/**
 * Enabled, not executing and without a next run: a once-only schedule that has sent, or a repeated one past its end.
 * Nothing more will happen, so there is nothing to switch off, and it is not edited back to life (a new one is made).
 */
const isFinished = (r: Pick<ScheduleRow, 'status' | 'executing' | 'next_run_at'>) => r.status === 'enabled' && !r.executing && !r.next_run_at;

/** What the operation log keeps of a schedule (the API's names, the whole target list). */
const auditShape = (r: Row) => {
  const {
    targetCount: _t,
    executing: _e,
    locked: _l,
    nextRunAt: _n,
    lastRunAt: _r,
    creator: _c,
    createdBy: _cb,
    createdAt: _ca,
    updatedAt: _u,
    id: _i,
    ...rest
  } = itemOf(r);
  return { ...rest, iccids: r.target_iccids };
};

/** The schedule of the organisation (locked for a change when `lock`); 404 when it is not the organisation's. */
async function scheduleFound(q: Queryable, orgId: string, id: string, lock = false): Promise<Row> {
  const r = await scheduleOf(q, orgId, id, lock);
  if (!r) throw notFound('scheduledSms', id);
  return r;
}

/** What the permission file's conditions read about a schedule: who created it (an operator changes only their own). */
const ownerOf = (r: Row) => ({ createdBy: r.created_by });

const inProgress = () => new ApiError(409, CODES.conflict, {}, 'errors.scheduleInProgress');
const finishedError = () => new ApiError(409, CODES.conflict, {}, 'errors.scheduleFinished');

/** The next run of values saved now: none when disabled, else the first occurrence from now. */
function nextRunOf(
  v: Pick<ScheduleRow, 'mode' | 'weekdays' | 'send_time' | 'timezone' | 'start_at' | 'end_at' | 'never_ends'>,
  enabled: boolean,
  at: Date,
): string | null {
  return enabled ? (firstOccurrence(v, at)?.toISOString() ?? null) : null;
}

/** The routes of scheduled SMS (the customer service, the scheduled SMS subject). */
const route = subjectRoutes('customer', KEY);

const stored = (v: ScheduleValues) => ({
  mode: v.mode,
  weekdays: v.weekdays,
  send_time: v.sendTime,
  timezone: v.timezone,
  start_at: v.startAt,
  end_at: v.endAt,
  never_ends: v.neverEnds,
});

export const scheduleRoutes = defineRoutes([
  // The file of target SIMs a schedule's form reads: one ICCID a line under the header.
  route('GET', '/sms/sendTemplate', 'read', {
    raw: true,
    schema: { querystring: formatQuery('csv'), response: NO_FIELDS },
    handler: async (req, reply) => iccidTemplate(reply, 'scheduled-sms-targets', ((req.query as { format?: UploadType }).format ?? 'csv') as UploadType),
  }),
  route('POST', '/sms/task/list', 'read', {
    schema: {
      body: pagedQuery({
        name: { type: 'string', maxLength: LIMITS.scheduledSmsName.max },
        status: { type: 'string', enum: ['enabled', 'disabled'] },
        mode: { type: 'string', enum: ['once', 'repeated'] },
      }),
      response: pageResponse(scheduleItem),
    },
    handler: async (req) => {
      const auth = req.requireAuth();
      const b = (req.body ?? {}) as { page?: number; pageSize?: number; name?: string; status?: string; mode?: string };
      const page = b.page ?? 1;
      const size = b.pageSize ?? 20;
      const { rows, total } = await schedulePage(req.server.db, auth.orgId, { page, pageSize: size, name: b.name, status: b.status, mode: b.mode });
      return { items: rows.map(itemOf), total };
    },
  }),
  // A target file read on the server (the console carries no spreadsheet library): its ICCIDs, or the offenders.
  route('POST', '/sms/task/targets/parse', 'create', {
    summary: 'Read the target SIMs of a scheduled SMS from a file (.xlsx, .xls, .csv or .txt, ICCID first, at most 1000 rows)',
    schema: { response: outObj({ iccids: TEXTS }) },
    handler: async (req) => {
      const auth = req.requireAuth();
      const file = requireFile(await readForm(req));
      return readTargetFile(req.server.db, auth.orgId, file);
    },
  }),
  route('POST', '/sms/task', 'create', {
    schema: { body: obj(INPUT_PROPERTIES, REQUIRED), response: scheduleItem },
    handler: async (req) => {
      const auth = req.requireAuth();
      const at = nowOf(req);
      const v = checkSchedule(req.body as ScheduleInput, at);
      return req.server.db.tx(async (q) => {
        await checkTargets(q, auth.orgId, v.iccids);
        const id = newId();
        await insertSchedule(q, auth.orgId, id, v, nextRunOf(stored(v), true, at), auth.accountId);
        const row = (await scheduleOf(q, auth.orgId, id))!;
        await audit(q, req, { action: 'create', entity: 'sms_schedule', entityId: id, after: auditShape(row) });
        return itemOf(row);
      });
    },
  }),
  route('POST', '/sms/task/update', 'update', {
    schema: { body: obj({ id: ID_TEXT, ...INPUT_PROPERTIES }, ['id', ...REQUIRED]), response: scheduleItem },
    handler: async (req) => {
      const auth = req.requireAuth();
      const at = nowOf(req);
      const { id, ...input } = req.body as ScheduleInput & { id: string };
      return req.server.db.tx(async (q) => {
        const before = await scheduleFound(q, auth.orgId, id, true);
        req.authorize('update', KEY, ownerOf(before));
        if (isLocked(before)) throw inProgress();
        if (isFinished(before)) throw finishedError();
        const v = checkSchedule(input, at, { startAt: new Date(iso(before.start_at)!), endAt: before.end_at ? new Date(iso(before.end_at)!) : null });
        await checkTargets(q, auth.orgId, v.iccids);
        await updateSchedule(q, auth.orgId, id, v, nextRunOf(stored(v), before.status === 'enabled', at));
        const row = (await scheduleOf(q, auth.orgId, id))!;
        await audit(q, req, { action: 'update', entity: 'sms_schedule', entityId: id, before: auditShape(before), after: auditShape(row) });
        return itemOf(row);
      });
    },
  }),
  route('PUT', '/sms/task/status', 'update', {
    schema: { body: obj({ id: ID_TEXT, status: { type: 'string', enum: ['enabled', 'disabled'] } }, ['id', 'status']), response: scheduleItem },
    handler: async (req) => {
      const auth = req.requireAuth();
      const { id, status } = req.body as { id: string; status: 'enabled' | 'disabled' };
      return req.server.db.tx(async (q) => {
        const before = await scheduleFound(q, auth.orgId, id, true);
        req.authorize('update', KEY, ownerOf(before));
        if (isLocked(before)) throw inProgress();
        if (isFinished(before)) throw finishedError();
        if (before.status === status) return itemOf(before);
        // Enabled again: from now on; the occurrences while it was disabled are not runs at all.
        await setScheduleStatus(q, auth.orgId, id, status, nextRunOf(before, status === 'enabled', nowOf(req)));
        const row = (await scheduleOf(q, auth.orgId, id))!;
        await audit(q, req, {
          action: status === 'enabled' ? 'enable' : 'disable',
          entity: 'sms_schedule',
          entityId: id,
          before: { status: before.status },
          after: { status },
        });
        return itemOf(row);
      });
    },
  }),
  route('DELETE', '/sms/task', 'delete', {
    schema: { querystring: idsIn('id'), response: typed({ id: 'string' }) },
    handler: async (req) => {
      const auth = req.requireAuth();
      const { id } = req.query as { id: string };
      return req.server.db.tx(async (q) => {
        const before = await scheduleFound(q, auth.orgId, id, true);
        req.authorize('delete', KEY, ownerOf(before));
        if (isLocked(before)) throw inProgress();
        await deleteSchedule(q, auth.orgId, id);
        await audit(q, req, { action: 'delete', entity: 'sms_schedule', entityId: id, before: auditShape(before) });
        return { id };
      });
    },
  }),
  route('GET', '/sms/task/detail/:id', 'read', {
    schema: {
      params: ID_PARAMS,
      response: typed({
        ...scheduleItem.properties,
        iccids: TEXTS,
        upcoming: TEXTS,
        runs: arrayOf(
          typed({
            id: 'string',
            occurrenceAt: 'string',
            at: 'string',
            endedAt: NULLABLE_TEXT,
            status: 'string',
            targets: 'integer',
            sent: 'integer',
            failed: 'integer',
          }),
        ),
      }),
    },
    handler: async (req) => {
      const auth = req.requireAuth();
      const { id } = req.params as { id: string };
      const row = await scheduleFound(req.server.db, auth.orgId, id);
      const runs = await scheduleRuns(req.server.db, auth.orgId, id);
      // The coming occurrences, so a person sees the times (and a daylight-saving change) before they happen.
      const upcoming =
        row.status === 'enabled' && row.next_run_at
          ? [iso(row.next_run_at)!, ...nextOccurrences(recurrenceOf(row), new Date(iso(row.next_run_at)!), 4).map((d) => d.toISOString())]
          : [];
      return {
        ...itemOf(row),
        iccids: row.target_iccids,
        upcoming,
        runs: runs.map((r) => ({
          id: r.id,
          occurrenceAt: iso(r.occurrence_at)!,
          at: iso(r.at)!,
          endedAt: iso(r.ended_at),
          status: r.status,
          targets: r.targets,
          sent: r.sent,
          failed: r.failed,
        })),
      };
    },
  }),
  route('POST', '/sms/detail/list', 'read', {
    schema: {
      body: pagedQuery(
        {
          taskId: ID_TEXT,
          runId: { type: 'string', maxLength: 20, pattern: '^[0-9]{1,18}$' },
          status: { type: 'string', enum: ['pending', 'sent', 'delivered', 'failed'] },
        },
        ['taskId'],
      ),
      response: pageResponse(
        typed({
          id: 'string',
          runId: NULLABLE_TEXT,
          iccid: 'string',
          msisdn: NULLABLE_TEXT,
          content: 'string',
          smsType: 'string',
          status: 'string',
          error: NULLABLE_TEXT,
          createdAt: 'string',
          sentAt: NULLABLE_TEXT,
          deliveredAt: NULLABLE_TEXT,
        }),
      ),
    },
    handler: async (req) => {
      const auth = req.requireAuth();
      const b = req.body as { taskId: string; runId?: string; status?: string; page?: number; pageSize?: number };
      const { db } = req.server;
      if (!(await scheduleExists(db, auth.orgId, b.taskId))) throw notFound('scheduledSms', b.taskId);
      const { rows, total } = await scheduleMessages(db, auth.orgId, {
        scheduleId: b.taskId,
        runId: b.runId,
        status: b.status,
        page: b.page ?? 1,
        pageSize: b.pageSize ?? 20,
      });
      return { items: rows.map((r) => ({ ...r, createdAt: iso(r.createdAt), sentAt: iso(r.sentAt), deliveredAt: iso(r.deliveredAt) })), total };
    },
  }),
  route('POST', '/operation/log/list', 'read', {
    schema: {
      body: pagedQuery({ id: ID_TEXT }, ['id']),
      response: pageResponse(
        typed({
          id: 'string',
          at: 'string',
          action: 'string',
          actor: NULLABLE_TEXT,
          actorEmail: NULLABLE_TEXT,
          changes: arrayOf(typed({ field: 'string', before: {}, after: {} })),
        }),
      ),
    },
    handler: async (req) => {
      const auth = req.requireAuth();
      const b = req.body as { id: string; page?: number; pageSize?: number };
      const page = b.page ?? 1;
      const size = b.pageSize ?? 20;
      const { rows, total } = await scheduleLog(req.server.db, auth.orgId, b.id, page, size);
      return {
        items: rows.map((r) => ({ id: r.id, at: iso(r.at)!, action: r.action, actor: r.actor, actorEmail: r.email, changes: changesOf(r.before, r.after) })),
        total,
      };
    },
  }),
]);

/** The fields that differ between two recorded states (a creation lists every field it set). */
export function changesOf(
  before: Record<string, unknown> | null,
  after: Record<string, unknown> | null,
): Array<{ field: string; before: unknown; after: unknown }> {
  const keys = [...new Set([...Object.keys(before ?? {}), ...Object.keys(after ?? {})])];
  return keys
    .filter((k) => JSON.stringify(before?.[k] ?? null) !== JSON.stringify(after?.[k] ?? null))
    .map((k) => ({ field: k, before: before?.[k] ?? null, after: after?.[k] ?? null }));
}
