/**
 * SMS of the main API (SPEC.md section 7): the All SMS list with its reply threads, instant send, reply to a device's
 * message, the organisation's quota balance, the send template and the list's download through the task center.
 * Users read; operators, admins and superadmins send and reply (SPEC.md section 6: the `sendSms` right on `sim`).
 */
import type { FastifyRequest } from 'fastify';
import { CODES } from '../../common/errors.js';
import { LIMITS } from '../../common/limits.js';
import { checkMsisdn } from '../../common/msisdn.js';
import { SMS_TYPES, type SmsType } from '../../common/sms.js';
import { listPage } from '../db/listing.js';
import { newId } from '../db/ids.js';
import { ApiError, invalid, notFound } from '../http/api-error.js';
import { audit } from '../http/audit.js';
import { readMultipart } from '../http/multipart.js';
import { pageResponse } from '../http/page-response.js';
import { defineRoutes } from '../http/route.js';
import { arrayOf, ID_PARAMS, ID_TEXT, NO_FIELDS, obj, outObj, pagedQuery, subjectRoutes, TASK_ANSWER, typed } from '../http/shapes.js';
import { publishLive } from '../live/hub.js';
import { readUpload, type UploadType } from '../job/sheet-files.js';
import { insertTask } from '../job/task-repo.js';
import { batchAnswer } from '../sim/sim-action-routes.js';
import { STR, TIME } from '../sim/sim-detail-routes.js';
import { formatQuery, iccidTemplate } from '../sim/sim-upload-routes.js';
import { smsQuotaOf } from './quota.js';
import { repliesTo, simsByMsisdn, SMS_LIST_SPEC, smsRecordHead, SORTABLE, type SmsRow as Row } from './sms-repo.js';
import { refusalMessage, sendSmsBatch, type SmsSendResult } from './send.js';
import { taskReference } from '../job/task-reference.js';

export const SMS_DIRECTIONS = ['MT', 'MO'] as const;
export const SMS_STATUSES = ['pending', 'sent', 'delivered', 'failed', 'received'] as const;

const recordSchema = typed({
  id: 'string',
  createdAt: { type: 'string', format: 'date-time' },
  iccid: 'string',
  msisdn: STR,
  direction: { type: 'string', enum: [...SMS_DIRECTIONS] },
  content: 'string',
  smsType: { type: 'string', enum: [...SMS_TYPES] },
  status: { type: 'string', enum: [...SMS_STATUSES] },
  error: STR,
  sentAt: TIME,
  deliveredAt: TIME,
  replyToId: STR,
  accountId: STR,
  accountName: STR,
  scheduleId: STR,
  scheduleName: STR,
});

/** The filters of the list and of its download. */
const filterProps = {
  direction: { type: 'string', enum: [...SMS_DIRECTIONS] },
  status: { type: 'string', enum: [...SMS_STATUSES] },
  createdAtFrom: { type: 'string', format: 'date-time' },
  createdAtTo: { type: 'string', format: 'date-time' },
  // The whole ICCID or MSISDN, or its trailing digits (more than one: SPEC.md section 5).
  search: {
    type: 'object',
    required: ['field', 'value'],
    additionalProperties: false,
    properties: { field: { type: 'string', enum: ['iccid', 'msisdn'] }, value: { type: 'string', pattern: '^[0-9]{2,20}$' } },
  },
  content: { type: 'string', minLength: 1, maxLength: 280 },
  sort: { type: 'string', enum: [...SORTABLE] },
  order: { type: 'string', enum: ['asc', 'desc'] },
};

export type SmsListBody = {
  direction?: string;
  status?: string;
  createdAtFrom?: string;
  createdAtTo?: string;
  search?: { field: 'iccid' | 'msisdn'; value: string };
  content?: string;
  sort?: string;
  order?: 'asc' | 'desc';
  page?: number;
  pageSize?: number;
  cursor?: string;
};

/** The list helper's filters of a list body. */
export function smsFilters(body: SmsListBody): Record<string, unknown> {
  if (body.createdAtFrom && body.createdAtTo && Date.parse(body.createdAtTo) < Date.parse(body.createdAtFrom)) throw invalid('createdAtTo', 'notBefore');
  return {
    direction: body.direction,
    status: body.status,
    createdAt: body.createdAtFrom || body.createdAtTo ? [body.createdAtFrom ?? null, body.createdAtTo ?? null] : undefined,
    [`${body.search?.field ?? 'iccid'}Suffix`]: body.search?.value,
    content: body.content,
  };
}

/** How deep a thread is followed: a reply to a reply to a reply… (each within 24 hours of what it answers). */
const THREAD_DEPTH = 4;

/**
 * The thread under each listed message: its replies within 24 hours, the replies to those, and so on, oldest first
 * (an MO answering an MT, the operator's answer to that MO, …).
 */
async function threadsOf(req: FastifyRequest, orgId: string, heads: string[]): Promise<Map<string, Row[]>> {
  const by = new Map<string, Row[]>();
  const headOf = new Map(heads.map((id) => [id, id]));
  let parents = heads;
  for (let depth = 0; depth < THREAD_DEPTH && parents.length; depth++) {
    const rows = await repliesTo(req.server.db, orgId, parents);
    parents = [];
    for (const r of rows) {
      const head = headOf.get(String(r.replyToId));
      if (!head || headOf.has(r.id)) continue;
      headOf.set(r.id, head);
      parents.push(r.id);
      by.set(head, [...(by.get(head) ?? []), r]);
    }
  }
  for (const list of by.values()) list.sort((a, b) => new Date(a.createdAt as string).getTime() - new Date(b.createdAt as string).getTime());
  return by;
}

/** The organisation's SMS quota (quota.ts SmsQuota). */
const QUOTA = typed({ quota: 'integer', used: 'integer', remaining: 'integer' });

const resultSchema = batchAnswer(
  { iccid: STR, msisdn: STR, ok: 'boolean', smsId: 'string', status: 'string', reason: 'string', message: 'string' },
  { quota: QUOTA },
);

const sendProps = {
  smsType: { type: 'string', enum: [...SMS_TYPES], default: 'text' },
  // Checked by the content rules (common/sms.ts) with SPEC.md's message; this bound only limits what is parsed.
  content: { type: 'string', maxLength: 1000 },
  iccids: { type: 'array', maxItems: 10 * LIMITS.iccidList, items: { type: 'string', minLength: 1, maxLength: 30 } },
  msisdns: { type: 'array', maxItems: 10 * LIMITS.iccidList, items: { type: 'string', minLength: 1, maxLength: 30 } },
};

interface SendInput {
  smsType: SmsType;
  content: string;
  iccids: string[];
  msisdns: string[];
}

/** Lines of a pasted list: one entry per line (commas, semicolons and blanks separate too). */
const linesOf = (text: string | undefined): string[] =>
  (text ?? '')
    .split(/[\s,;]+/)
    .map((s) => s.trim())
    .filter(Boolean);

/**
 * The send request, as JSON (the public API) or multipart (the console, SPEC.md section 7): type, content, ICCIDs
 * (picked or pasted, one per line), numbers, and a file made from the send template whose first column is ICCID.
 */
async function sendInput(req: FastifyRequest): Promise<SendInput> {
  if (!req.isMultipart()) {
    const b = (req.body ?? {}) as Partial<SendInput>;
    if (typeof b.content !== 'string') throw invalid('content', 'required');
    return { smsType: b.smsType ?? 'text', content: b.content, iccids: b.iccids ?? [], msisdns: b.msisdns ?? [] };
  }
  const form = await readMultipart(req);
  const fields: Record<string, string> = {};
  for (const f of form.fields) fields[f.name] = f.value;
  const file = form.file?.field === 'file' && form.file.name ? form.file : null;
  const smsType = (fields.smsType ?? 'text') as SmsType;
  if (!SMS_TYPES.includes(smsType)) throw invalid('smsType', 'enum', { values: SMS_TYPES.join(', ') });
  if (fields.content === undefined) throw invalid('content', 'required');
  const iccids = linesOf(fields.iccids);
  if (file) {
    // A number cell lost an ICCID's last digits in a spreadsheet: it is kept as written, and refused as not existing.
    for (const r of readUpload(file.name, file.bytes, 'ICCID')) if (r.cells[0] !== null) iccids.push(String(r.cells[0]));
  }
  return { smsType, content: fields.content, iccids, msisdns: linesOf(fields.msisdns) };
}

/** What the route answers about one target: its ICCID and, for a number, the number. */
type Result = SmsSendResult & { msisdn?: string | null };

/** The routes of SMS (the main service, under the `sim` subject). */
const route = subjectRoutes('main', 'sim');

export const smsRoutes = defineRoutes([
  route('POST', '/sms/list', 'read', {
    summary: 'List SMS sent and received, with the replies to each within 24 hours',
    schema: {
      body: pagedQuery({ ...filterProps, cursor: { type: 'string', maxLength: 400 } }),
      response: pageResponse(outObj({ ...recordSchema.properties, replies: arrayOf(recordSchema) }), { totalCapped: { type: 'boolean' }, nextCursor: STR }),
    },
    handler: async (req) => {
      const auth = req.requireAuth();
      const body = (req.body ?? {}) as SmsListBody;
      const page = await listPage<Row>(req.server.db, SMS_LIST_SPEC, auth.orgId, {
        page: body.page ?? 1,
        pageSize: body.pageSize ?? 20,
        cursor: body.cursor,
        sort: body.sort,
        order: body.order,
        filters: smsFilters(body),
      });
      const replies = await threadsOf(
        req,
        auth.orgId,
        page.items.map((r) => r.id),
      );
      return { ...page, items: page.items.map((r) => ({ ...r, replies: replies.get(r.id) ?? [] })) };
    },
  }),
  route('POST', '/sms/send', 'sendSms', {
    summary: 'Send an SMS to SIMs by ICCID or by number (at most 1000); each refused SIM says why',
    schema: {
      // JSON here; the console sends the same fields as multipart (with a template file), read by the handler.
      body: { type: ['object', 'null'], additionalProperties: false, required: ['content'], properties: sendProps },
      response: resultSchema,
    },
    handler: async (req) => {
      const auth = req.requireAuth();
      const input = await sendInput(req);
      for (const m of input.msisdns) {
        const c = checkMsisdn(m);
        if (!c.ok) throw invalid('msisdns', `msisdn.${c.rule}`, { value: m });
      }
      const msisdns = [...new Set(input.msisdns)];
      const targets = new Set(input.iccids).size + msisdns.length;
      if (targets === 0) throw new ApiError(400, CODES.validation, { field: 'iccids' }, 'errors.sms.noTargets', { field: 'iccids', rule: 'required' });
      if (targets > LIMITS.iccidList)
        throw new ApiError(400, CODES.validation, { field: 'iccids', max: LIMITS.iccidList }, 'errors.sms.tooManyTargets', {
          field: 'iccids',
          rule: 'maxItems',
        });
      const { db, network } = req.server;
      // Numbers name the organisation's SIMs; one that names none is refused on its own.
      const byMsisdn = new Map(msisdns.length ? (await simsByMsisdn(db, auth.orgId, msisdns)).map((r) => [r.msisdn, r.iccid]) : []);
      const iccids = [...new Set([...input.iccids, ...msisdns.map((m) => byMsisdn.get(m)).filter((i): i is string => !!i)])];
      const sent = await sendSmsBatch(db, network, {
        orgId: auth.orgId,
        accountId: auth.accountId,
        iccids,
        content: input.content,
        smsType: input.smsType,
        lang: req.lang,
      });
      const byIccid = new Map(sent.results.map((r) => [r.iccid, r]));
      const direct = new Set(input.iccids);
      const results: Result[] = [
        ...[...direct].map((i) => byIccid.get(i)!),
        ...msisdns.map((m): Result => {
          const iccid = byMsisdn.get(m);
          if (!iccid) return { iccid: '', msisdn: m, ok: false, reason: 'notExistMsisdn', message: refusalMessage(req.lang, 'notExistMsisdn') };
          if (direct.has(iccid)) return { iccid, msisdn: m, ok: false, reason: 'duplicate', message: refusalMessage(req.lang, 'duplicate') };
          return { ...byIccid.get(iccid)!, msisdn: m };
        }),
      ];
      await db.tx((q) =>
        audit(q, req, {
          action: 'sendSms',
          entity: 'sim',
          entityId: iccids.length === 1 ? iccids[0] : null,
          after: {
            smsType: input.smsType,
            accepted: sent.accepted,
            refused: results.filter((r) => !r.ok).map((r) => ({ iccid: r.iccid || r.msisdn, reason: r.reason })),
          },
        }),
      );
      return { results, accepted: sent.accepted, refused: results.length - sent.accepted, quota: sent.quota };
    },
  }),
  route('POST', '/sms/reply', 'sendSms', {
    summary: 'Answer an SMS received from a device',
    schema: {
      body: obj({ id: ID_TEXT, smsType: sendProps.smsType, content: sendProps.content }, ['id', 'content']),
      response: resultSchema,
    },
    handler: async (req) => {
      const auth = req.requireAuth();
      const body = req.body as { id: string; smsType?: SmsType; content: string };
      const { db, network } = req.server;
      const mo = await smsRecordHead(db, auth.orgId, body.id);
      if (!mo) throw notFound('sms', body.id);
      if (mo.direction !== 'MO') throw new ApiError(400, CODES.validation, { field: 'id' }, 'errors.sms.replyNotMo', { field: 'id', rule: 'replyNotMo' });
      const sent = await sendSmsBatch(db, network, {
        orgId: auth.orgId,
        accountId: auth.accountId,
        replyToId: body.id,
        iccids: [mo.iccid],
        content: body.content,
        smsType: body.smsType ?? 'text',
        lang: req.lang,
      });
      await db.tx((q) =>
        audit(q, req, {
          action: 'replySms',
          entity: 'sim',
          entityId: mo.iccid,
          after: { replyTo: body.id, accepted: sent.accepted, reason: sent.results[0]?.reason },
        }),
      );
      return sent;
    },
  }),
  route('GET', '/sms/org/remain_usage', 'read', {
    schema: { response: QUOTA },
    handler: async (req) => smsQuotaOf(req.server.db, req.requireAuth().orgId),
  }),
  // Whether the organisation can send SMS at all (an SMS quota was issued to it), e.g. before an automation rule
  // offers "send an SMS" as its action. Only the organisation one is working in: any other id is not found.
  route('GET', '/sms/auto/config/has_sms_config/:id', 'read', {
    schema: { params: ID_PARAMS, response: typed({ hasSmsConfig: 'boolean', quota: 'integer', remaining: 'integer' }) },
    handler: async (req) => {
      const { id } = req.params as { id: string };
      const orgId = req.requireAuth().orgId;
      if (id !== orgId) throw notFound('organisation', id);
      const quota = await smsQuotaOf(req.server.db, orgId);
      return { hasSmsConfig: quota.quota > 0, quota: quota.quota, remaining: quota.remaining };
    },
  }),
  route('GET', '/sms/sendTemplate', 'sendSms', {
    raw: true,
    schema: { querystring: formatQuery('xlsx'), response: NO_FIELDS },
    handler: async (req, reply) => iccidTemplate(reply, 'sms-send-template', (req.query as { format: UploadType }).format),
  }),
  route('POST', '/sms/list/download', 'export', {
    schema: {
      body: obj({ ...filterProps, format: { type: 'string', enum: ['csv', 'xlsx'] } }, ['format']),
      response: TASK_ANSWER,
    },
    // The filtered list as a file made by the task center (server/sms/sms-export.ts), at most 100,000 rows.
    handler: async (req) => {
      const auth = req.requireAuth();
      const { format, ...query } = req.body as SmsListBody & { format: 'csv' | 'xlsx' };
      const count = await listPage(req.server.db, { ...SMS_LIST_SPEC, where: undefined }, auth.orgId, {
        pageSize: 1,
        filters: smsFilters(query),
        totalCap: LIMITS.exportMax + 1,
      });
      if (count.total === 0) throw new ApiError(400, CODES.badRequest, {}, 'errors.exportNoData');
      if (count.total > LIMITS.exportMax) throw new ApiError(400, CODES.badRequest, { max: LIMITS.exportMax.toLocaleString(req.lang) }, 'errors.exportTooMany');
      const taskId = newId();
      const referenceId = taskReference('sms_export', new Date());
      await req.server.db.tx(async (tx) => {
        await insertTask(tx, {
          orgId: auth.orgId,
          id: taskId,
          accountId: auth.accountId,
          referenceId,
          kind: 'sms_export',
          quantity: count.total,
          remark: format.toUpperCase(),
          payload: { query, format, lang: req.lang },
        });
        await audit(tx, req, { action: 'export', entity: 'sms', entityId: taskId, after: { format, quantity: count.total } });
        await publishLive(tx, { type: 'task', orgId: auth.orgId, accountId: auth.accountId, data: { id: taskId, status: 'processing', progress: 0 } });
      });
      return { taskId, referenceId, quantity: count.total };
    },
  }),
]);
