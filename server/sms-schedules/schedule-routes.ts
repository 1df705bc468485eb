/**
 * Scheduled SMS (SPEC.md section 7, SMS on the customer API; sections 3, 4, 5 and 9; issue 17): the list, create,
 * edit, enable and disable, delete, details with the execution history, a run's records, and the operation log of
 * who changed what. Users read; operators, admins and superadmins manage (common/permissions.ts). A once-only
 * schedule that is executing cannot be edited or deleted ("scheduled SMS in progress cannot be deleted or edited").
 */
import type { FastifyRequest } from 'fastify';
import { CODES } from '../../common/errors.js';
import { EMAIL_PATTERN, LIMITS, PAGING_PROPERTIES } from '../../common/limits.js';
import type { Queryable } from '../db/db.js';
import { newId } from '../db/ids.js';
import { ApiError, notFound } from '../http/api-error.js';
import { audit } from '../http/audit.js';
import { defineRoutes, pathParams } from '../http/route.js';
import { checkSchedule, checkTargets, type ScheduleInput, type ScheduleValues } from './schedule-rules.js';
import { firstOccurrence, recurrenceOf, type ScheduleRow } from './scheduler.js';
import { nextOccurrences } from './recurrence.js';
import { templateFile, UPLOAD_TYPES, type UploadType } from '../job/sheet-files.js';
import { readForm, requireFile } from '../main/sim-upload-routes.js';
import { readTargetFile } from './targets-file.js';
import { pageResponse } from '../http/page-response.js';

const KEY = 'cube-schedule-sms' as const;
const ID = { type: 'string', minLength: 1, maxLength: 40 } as const;

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
  notifyEmails: { type: 'array', maxItems: LIMITS.emailsPerGroup, items: { type: 'string', maxLength: LIMITS.email, pattern: EMAIL_PATTERN, 'x-rule': 'email' } },
} as const;
const REQUIRED = ['name', 'content', 'smsType', 'mode', 'startAt', 'iccids'];

const scheduleItem = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    name: { type: 'string' },
    content: { type: 'string' },
    smsType: { type: 'string' },
    mode: { type: 'string' },
    weekdays: { type: 'array', items: { type: 'integer' } },
    sendTime: { type: 'string' },
    timezone: { type: 'string' },
    startAt: { type: 'string' },
    endAt: { type: ['string', 'null'] },
    neverEnds: { type: 'boolean' },
    targetCount: { type: 'integer' },
    emailNotify: { type: 'boolean' },
    notifyEmails: { type: 'array', items: { type: 'string' } },
    status: { type: 'string' },
    executing: { type: 'boolean' },
    locked: { type: 'boolean' },
    nextRunAt: { type: ['string', 'null'] },
    lastRunAt: { type: ['string', 'null'] },
    creator: { type: ['string', 'null'] },
    createdAt: { type: 'string' },
    updatedAt: { type: 'string' },
  },
} as const;

const iso = (v: unknown) => (v === null || v === undefined ? null : v instanceof Date ? v.toISOString() : new Date(String(v)).toISOString());

type Row = ScheduleRow & { created_at: Date | string; updated_at: Date | string; last_run_at: Date | string | null; creator?: string | null };

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
    nextRunAt: iso(r.next_run_at),
    lastRunAt: iso(r.last_run_at),
    creator: r.creator ?? null,
    createdAt: iso(r.created_at)!,
    updatedAt: iso(r.updated_at)!,
  };
}

const isLocked = (r: Pick<ScheduleRow, 'mode' | 'executing'>) => r.mode === 'once' && r.executing;

/** What the operation log keeps of a schedule (the API's names, the whole target list). */
const auditShape = (r: Row) => {
  const { targetCount: _t, executing: _e, locked: _l, nextRunAt: _n, lastRunAt: _r, creator: _c, createdAt: _ca, updatedAt: _u, id: _i, ...rest } = itemOf(r);
  return { ...rest, iccids: r.target_iccids };
};

const SELECT = `SELECT s.*, nullif(trim(a.first_name || ' ' || a.last_name), '') AS creator
                  FROM sms_schedules s LEFT JOIN accounts a ON a.id = s.created_by`;

const now = (req: FastifyRequest) => req.server.config.clock?.() ?? new Date();

/** The schedule of the organisation, locked for a change; 404 when it is not the organisation's. */
async function lockSchedule(q: Queryable, orgId: string, id: string): Promise<Row> {
  const r = (await q.query<Row>(`${SELECT} WHERE s.org_id = $1 AND s.id = $2 FOR UPDATE OF s`, [orgId, id])).rows[0];
  if (!r) throw notFound('scheduledSms', id);
  return r;
}

const inProgress = () => new ApiError(409, CODES.conflict, {}, 'errors.scheduleInProgress');

/** The next run of values saved now: none when disabled, else the first occurrence from now. */
function nextRunOf(v: Pick<ScheduleRow, 'mode' | 'weekdays' | 'send_time' | 'timezone' | 'start_at' | 'end_at' | 'never_ends'>, enabled: boolean, at: Date): string | null {
  return enabled ? (firstOccurrence(v, at)?.toISOString() ?? null) : null;
}

const stored = (v: ScheduleValues) => ({ mode: v.mode, weekdays: v.weekdays, send_time: v.sendTime, timezone: v.timezone, start_at: v.startAt, end_at: v.endAt, never_ends: v.neverEnds });

export const scheduleRoutes = defineRoutes([
  // The file of target SIMs a schedule's form reads: one ICCID a line under the header.
  {
    service: 'customer',
    method: 'GET',
    path: '/sms/sendTemplate',
    permission: { action: 'read', subject: KEY },
    raw: true,
    schema: { querystring: { type: 'object', additionalProperties: false, properties: { format: { type: 'string', enum: Object.keys(UPLOAD_TYPES), default: 'csv' } } }, response: {} },
    handler: async (req, reply) => {
      const format = ((req.query as { format?: UploadType }).format ?? 'csv') as UploadType;
      return reply
        .type(UPLOAD_TYPES[format])
        .header('content-disposition', `attachment; filename="scheduled-sms-targets.${format}"`)
        .header('cache-control', 'no-store')
        .send(templateFile(format, ['ICCID'], [['89490200001234567890']]));
    },
  },
  {
    service: 'customer',
    method: 'POST',
    path: '/sms/task/list',
    permission: { action: 'read', subject: KEY },
    schema: {
      body: {
        type: 'object',
        additionalProperties: false,
        properties: { ...PAGING_PROPERTIES, name: { type: 'string', maxLength: LIMITS.scheduledSmsName.max }, status: { type: 'string', enum: ['enabled', 'disabled'] }, mode: { type: 'string', enum: ['once', 'repeated'] } },
      },
      response: pageResponse(scheduleItem),
    },
    handler: async (req) => {
      const auth = req.requireAuth();
      const b = (req.body ?? {}) as { page?: number; pageSize?: number; name?: string; status?: string; mode?: string };
      const page = b.page ?? 1;
      const size = b.pageSize ?? 20;
      const where = ['s.org_id = $1'];
      const params: unknown[] = [auth.orgId];
      if (b.name?.trim()) {
        params.push(`%${b.name.trim().replace(/[\\%_]/g, (c) => `\\${c}`)}%`);
        where.push(`s.name ILIKE $${params.length}`);
      }
      if (b.status) {
        params.push(b.status);
        where.push(`s.status = $${params.length}`);
      }
      if (b.mode) {
        params.push(b.mode);
        where.push(`s.mode = $${params.length}`);
      }
      const { db } = req.server;
      const total = (await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM sms_schedules s WHERE ${where.join(' AND ')}`, params)).rows[0].n;
      const rows = (await db.query<Row>(`${SELECT} WHERE ${where.join(' AND ')} ORDER BY s.created_at DESC, s.id LIMIT ${size} OFFSET ${(page - 1) * size}`, params)).rows;
      return { items: rows.map(itemOf), total };
    },
  },
  // A target file read on the server (the console carries no spreadsheet library): its ICCIDs, or the offenders.
  {
    service: 'customer',
    method: 'POST',
    path: '/sms/task/targets/parse',
    permission: { action: 'create', subject: KEY },
    summary: 'Read the target SIMs of a scheduled SMS from a file (.xlsx, .xls, .csv or .txt, ICCID first, at most 1000 rows)',
    schema: { response: { type: 'object', properties: { iccids: { type: 'array', items: { type: 'string' } } } } },
    handler: async (req) => {
      const auth = req.requireAuth();
      const file = requireFile(await readForm(req));
      return readTargetFile(req.server.db, auth.orgId, file);
    },
  },
  {
    service: 'customer',
    method: 'POST',
    path: '/sms/task',
    permission: { action: 'create', subject: KEY },
    schema: { body: { type: 'object', additionalProperties: false, required: REQUIRED, properties: INPUT_PROPERTIES }, response: scheduleItem },
    handler: async (req) => {
      const auth = req.requireAuth();
      const at = now(req);
      const v = checkSchedule(req.body as ScheduleInput, at);
      return req.server.db.tx(async (q) => {
        await checkTargets(q, auth.orgId, v.iccids);
        const id = newId();
        await q.query(
          `INSERT INTO sms_schedules (org_id, id, name, content, sms_type, mode, weekdays, send_time, timezone, start_at, end_at, never_ends,
                                      target_iccids, email_notify, notify_emails, status, next_run_at, created_by)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, 'enabled', $16, $17)`,
          [auth.orgId, id, v.name, v.content, v.smsType, v.mode, v.weekdays, v.sendTime, v.timezone, v.startAt.toISOString(), v.endAt?.toISOString() ?? null, v.neverEnds,
            v.iccids, v.emailNotify, v.notifyEmails, nextRunOf(stored(v), true, at), auth.accountId],
        );
        const row = (await q.query<Row>(`${SELECT} WHERE s.org_id = $1 AND s.id = $2`, [auth.orgId, id])).rows[0];
        await audit(q, req, { action: 'create', entity: 'sms_schedule', entityId: id, after: auditShape(row) });
        return itemOf(row);
      });
    },
  },
  {
    service: 'customer',
    method: 'POST',
    path: '/sms/task/update',
    permission: { action: 'update', subject: KEY },
    schema: { body: { type: 'object', additionalProperties: false, required: ['id', ...REQUIRED], properties: { id: ID, ...INPUT_PROPERTIES } }, response: scheduleItem },
    handler: async (req) => {
      const auth = req.requireAuth();
      const at = now(req);
      const { id, ...input } = req.body as ScheduleInput & { id: string };
      return req.server.db.tx(async (q) => {
        const before = await lockSchedule(q, auth.orgId, id);
        if (isLocked(before)) throw inProgress();
        const v = checkSchedule(input, at);
        await checkTargets(q, auth.orgId, v.iccids);
        await q.query(
          `UPDATE sms_schedules SET name = $3, content = $4, sms_type = $5, mode = $6, weekdays = $7, send_time = $8, timezone = $9, start_at = $10, end_at = $11,
                  never_ends = $12, target_iccids = $13, email_notify = $14, notify_emails = $15, next_run_at = $16, updated_at = now()
            WHERE org_id = $1 AND id = $2`,
          [auth.orgId, id, v.name, v.content, v.smsType, v.mode, v.weekdays, v.sendTime, v.timezone, v.startAt.toISOString(), v.endAt?.toISOString() ?? null, v.neverEnds,
            v.iccids, v.emailNotify, v.notifyEmails, nextRunOf(stored(v), before.status === 'enabled', at)],
        );
        const row = (await q.query<Row>(`${SELECT} WHERE s.org_id = $1 AND s.id = $2`, [auth.orgId, id])).rows[0];
        await audit(q, req, { action: 'update', entity: 'sms_schedule', entityId: id, before: auditShape(before), after: auditShape(row) });
        return itemOf(row);
      });
    },
  },
  {
    service: 'customer',
    method: 'PUT',
    path: '/sms/task/status',
    permission: { action: 'update', subject: KEY },
    schema: {
      body: { type: 'object', additionalProperties: false, required: ['id', 'status'], properties: { id: ID, status: { type: 'string', enum: ['enabled', 'disabled'] } } },
      response: scheduleItem,
    },
    handler: async (req) => {
      const auth = req.requireAuth();
      const { id, status } = req.body as { id: string; status: 'enabled' | 'disabled' };
      return req.server.db.tx(async (q) => {
        const before = await lockSchedule(q, auth.orgId, id);
        if (isLocked(before)) throw inProgress();
        if (before.status === status) return itemOf(before);
        // Enabled again: from now on; the occurrences while it was disabled are not runs at all.
        await q.query(`UPDATE sms_schedules SET status = $3, next_run_at = $4, updated_at = now() WHERE org_id = $1 AND id = $2`, [auth.orgId, id, status, nextRunOf(before, status === 'enabled', now(req))]);
        const row = (await q.query<Row>(`${SELECT} WHERE s.org_id = $1 AND s.id = $2`, [auth.orgId, id])).rows[0];
        await audit(q, req, { action: status === 'enabled' ? 'enable' : 'disable', entity: 'sms_schedule', entityId: id, before: { status: before.status }, after: { status } });
        return itemOf(row);
      });
    },
  },
  {
    service: 'customer',
    method: 'DELETE',
    path: '/sms/task',
    permission: { action: 'delete', subject: KEY },
    schema: { querystring: { type: 'object', additionalProperties: false, required: ['id'], properties: { id: ID } }, response: { type: 'object', properties: { id: { type: 'string' } } } },
    handler: async (req) => {
      const auth = req.requireAuth();
      const { id } = req.query as { id: string };
      return req.server.db.tx(async (q) => {
        const before = await lockSchedule(q, auth.orgId, id);
        if (isLocked(before)) throw inProgress();
        await q.query('DELETE FROM sms_schedules WHERE org_id = $1 AND id = $2', [auth.orgId, id]);
        await audit(q, req, { action: 'delete', entity: 'sms_schedule', entityId: id, before: auditShape(before) });
        return { id };
      });
    },
  },
  {
    service: 'customer',
    method: 'GET',
    path: '/sms/task/detail/:id',
    permission: { action: 'read', subject: KEY },
    schema: {
      params: pathParams('id'),
      response: {
        type: 'object',
        properties: {
          ...scheduleItem.properties,
          iccids: { type: 'array', items: { type: 'string' } },
          upcoming: { type: 'array', items: { type: 'string' } },
          runs: {
            type: 'array',
            items: {
              type: 'object',
              properties: {
                id: { type: 'string' },
                occurrenceAt: { type: 'string' },
                at: { type: 'string' },
                endedAt: { type: ['string', 'null'] },
                status: { type: 'string' },
                targets: { type: 'integer' },
                sent: { type: 'integer' },
                failed: { type: 'integer' },
              },
            },
          },
        },
      },
    },
    handler: async (req) => {
      const auth = req.requireAuth();
      const { id } = req.params as { id: string };
      const { db } = req.server;
      const row = (await db.query<Row>(`${SELECT} WHERE s.org_id = $1 AND s.id = $2`, [auth.orgId, id])).rows[0];
      if (!row) throw notFound('scheduledSms', id);
      const runs = (
        await db.query<{ id: string; occurrence_at: Date; at: Date; ended_at: Date | null; status: string; targets: number; sent: number; failed: number }>(
          `SELECT id::text AS id, occurrence_at, at, ended_at, status, targets, sent, failed FROM sms_schedule_runs
            WHERE org_id = $1 AND schedule_id = $2 ORDER BY occurrence_at DESC LIMIT 100`,
          [auth.orgId, id],
        )
      ).rows;
      // The coming occurrences, so a person sees the times (and a daylight-saving change) before they happen.
      const upcoming = row.status === 'enabled' && row.next_run_at ? [iso(row.next_run_at)!, ...nextOccurrences(recurrenceOf(row), new Date(iso(row.next_run_at)!), 4).map((d) => d.toISOString())] : [];
      return {
        ...itemOf(row),
        iccids: row.target_iccids,
        upcoming,
        runs: runs.map((r) => ({ id: r.id, occurrenceAt: iso(r.occurrence_at)!, at: iso(r.at)!, endedAt: iso(r.ended_at), status: r.status, targets: r.targets, sent: r.sent, failed: r.failed })),
      };
    },
  },
  {
    service: 'customer',
    method: 'POST',
    path: '/sms/detail/list',
    permission: { action: 'read', subject: KEY },
    schema: {
      body: {
        type: 'object',
        additionalProperties: false,
        required: ['taskId'],
        properties: {
          ...PAGING_PROPERTIES,
          taskId: ID,
          runId: { type: 'string', maxLength: 20, pattern: '^[0-9]{1,18}$' },
          status: { type: 'string', enum: ['pending', 'sent', 'delivered', 'failed'] },
        },
      },
      response: {
        type: 'object',
        properties: {
          items: {
            type: 'array',
            items: {
              type: 'object',
              properties: {
                id: { type: 'string' },
                runId: { type: ['string', 'null'] },
                iccid: { type: 'string' },
                msisdn: { type: ['string', 'null'] },
                content: { type: 'string' },
                smsType: { type: 'string' },
                status: { type: 'string' },
                error: { type: ['string', 'null'] },
                createdAt: { type: 'string' },
                sentAt: { type: ['string', 'null'] },
                deliveredAt: { type: ['string', 'null'] },
              },
            },
          },
          total: { type: 'integer' },
        },
      },
    },
    handler: async (req) => {
      const auth = req.requireAuth();
      const b = req.body as { taskId: string; runId?: string; status?: string; page?: number; pageSize?: number };
      const { db } = req.server;
      const exists = await db.query('SELECT 1 FROM sms_schedules WHERE org_id = $1 AND id = $2', [auth.orgId, b.taskId]);
      if (!exists.rows.length) throw notFound('scheduledSms', b.taskId);
      const where = [`org_id = $1`, `schedule_id = $2`, `direction = 'MT'`];
      const params: unknown[] = [auth.orgId, b.taskId];
      if (b.runId) {
        params.push(b.runId);
        where.push(`run_id = $${params.length}::bigint`);
      }
      if (b.status) {
        params.push(b.status);
        where.push(`status = $${params.length}`);
      }
      const page = b.page ?? 1;
      const size = b.pageSize ?? 20;
      const total = (await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM sms_records WHERE ${where.join(' AND ')}`, params)).rows[0].n;
      const rows = (
        await db.query<Record<string, unknown>>(
          `SELECT id, run_id::text AS "runId", iccid, msisdn, content, sms_type AS "smsType", status, error, created_at AS "createdAt", sent_at AS "sentAt", delivered_at AS "deliveredAt"
             FROM sms_records WHERE ${where.join(' AND ')} ORDER BY created_at DESC, iccid LIMIT ${size} OFFSET ${(page - 1) * size}`,
          params,
        )
      ).rows;
      return { items: rows.map((r) => ({ ...r, createdAt: iso(r.createdAt), sentAt: iso(r.sentAt), deliveredAt: iso(r.deliveredAt) })), total };
    },
  },
  {
    service: 'customer',
    method: 'POST',
    path: '/operation/log/list',
    permission: { action: 'read', subject: KEY },
    schema: {
      body: { type: 'object', additionalProperties: false, required: ['id'], properties: { ...PAGING_PROPERTIES, id: ID } },
      response: {
        type: 'object',
        properties: {
          items: {
            type: 'array',
            items: {
              type: 'object',
              properties: {
                id: { type: 'string' },
                at: { type: 'string' },
                action: { type: 'string' },
                actor: { type: ['string', 'null'] },
                actorEmail: { type: ['string', 'null'] },
                changes: { type: 'array', items: { type: 'object', properties: { field: { type: 'string' }, before: {}, after: {} } } },
              },
            },
          },
          total: { type: 'integer' },
        },
      },
    },
    handler: async (req) => {
      const auth = req.requireAuth();
      const b = req.body as { id: string; page?: number; pageSize?: number };
      const page = b.page ?? 1;
      const size = b.pageSize ?? 20;
      const { db } = req.server;
      const params = [auth.orgId, b.id];
      const where = `l.org_id = $1 AND l.entity = 'sms_schedule' AND l.entity_id = $2`;
      const total = (await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM audit_log l WHERE ${where}`, params)).rows[0].n;
      const rows = (
        await db.query<{ id: string; at: Date; action: string; before: Record<string, unknown> | null; after: Record<string, unknown> | null; actor: string | null; email: string | null }>(
          `SELECT l.id::text AS id, l.at, l.action, l.before, l.after, nullif(trim(a.first_name || ' ' || a.last_name), '') AS actor, a.email
             FROM audit_log l LEFT JOIN accounts a ON a.id = l.account_id WHERE ${where} ORDER BY l.at DESC, l.id DESC LIMIT ${size} OFFSET ${(page - 1) * size}`,
          params,
        )
      ).rows;
      return { items: rows.map((r) => ({ id: r.id, at: iso(r.at)!, action: r.action, actor: r.actor, actorEmail: r.email, changes: changesOf(r.before, r.after) })), total };
    },
  },
]);

/** The fields that differ between two recorded states (a creation lists every field it set). */
export function changesOf(before: Record<string, unknown> | null, after: Record<string, unknown> | null): Array<{ field: string; before: unknown; after: unknown }> {
  const keys = [...new Set([...Object.keys(before ?? {}), ...Object.keys(after ?? {})])];
  return keys
    .filter((k) => JSON.stringify(before?.[k] ?? null) !== JSON.stringify(after?.[k] ?? null))
    .map((k) => ({ field: k, before: before?.[k] ?? null, after: after?.[k] ?? null }));
}
