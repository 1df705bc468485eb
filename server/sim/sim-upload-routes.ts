/**
 * SIM transfer and batch info upload (SPEC.md sections 7 and 8): templates, a check of a file before it is submitted
 * (".../parse": what each row would do, nothing changed), and the submission, which stores the file and hands it to
 * the task center (server/sim/sim-upload-jobs.ts). The file as a whole is refused at once, naming the rule: type, name
 * under 40 characters, 1 MB, 100,000 rows, a readable sheet whose first column is ICCID; so are a receiving
 * organisation where the person is not an admin and a missing acknowledgement. Rows are judged one by one.
 */
import fs from 'node:fs';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { translate } from '../../common/i18n.js';
import { newId } from '../db/ids.js';
import { invalid } from '../http/api-error.js';
import { sendAttachment } from '../http/attachment.js';
import { audit } from '../http/audit.js';
import { ownOrg } from '../http/own-org.js';
import { defineRoutes, pathParams, type RouteDef } from '../http/route.js';
import { arrayOf, ID_PARAMS, NO_FIELDS, obj, subjectRoutes, TASK_ANSWER, typed } from '../http/shapes.js';
import { publishLive } from '../live/hub.js';
import { orgIdOf } from '../org/org-repo.js';
import { insertUploadTask } from './upload-repo.js';
import { readMultipart } from '../http/multipart.js';
import { readUpload, templateFile, UPLOAD_TYPES, type UploadType } from '../job/sheet-files.js';
import { INFO_TYPES, previewInfo, previewTransfer, summarise, type InfoType } from './sim-upload-jobs.js';
import { taskReference } from '../job/task-reference.js';

/** A multipart request's one file (in the field "file") and its text fields, each part within its limit. */
export async function readForm(req: FastifyRequest): Promise<{ file: { name: string; bytes: Uint8Array } | null; fields: Record<string, string> }> {
  if (!req.isMultipart()) throw invalid('file', 'required');
  const form = await readMultipart(req);
  const fields: Record<string, string> = {};
  for (const f of form.fields) fields[f.name] = f.value;
  return { file: form.file?.field === 'file' ? { name: form.file.name, bytes: form.file.bytes } : null, fields };
}

export const requireFile = (form: Awaited<ReturnType<typeof readForm>>) => {
  if (!form.file || !form.file.name) throw invalid('file', 'required');
  return form.file;
};

/**
 * The receiving organisation (its id or code): common/permissions.ts allows another one where the person is an active
 * admin (SPEC.md section 5); any other, someone else's or none, is refused alike.
 */
async function receivingOrg(req: FastifyRequest, idOrCode: string | undefined): Promise<string> {
  if (!idOrCode) throw invalid('targetOrgId', 'required');
  const id = await orgIdOf(req.server.db, idOrCode);
  req.authorize('transfer', 'sim', { receivingOrgId: id });
  return id!;
}

/** The path's organisation must be the current one (an id or a code). */
const currentOrg = (req: FastifyRequest) => ownOrg(req, (req.params as { code: string }).code);

const previewSchema = typed({
  rows: 'integer',
  ok: 'integer',
  failed: 'integer',
  byReason: { type: 'object', additionalProperties: { type: 'integer' } },
  errors: arrayOf(typed({ row: 'integer', iccid: 'string', reason: 'string', message: 'string' })),
});

/** Keep the submitted file where any instance's worker can read it, and queue the task. */
async function submit(
  req: FastifyRequest,
  kind: 'sim_transfer' | 'sim_info_upload',
  file: { name: string; bytes: Uint8Array },
  rows: number,
  payload: Record<string, unknown>,
  after: Record<string, unknown>,
) {
  const auth = req.requireAuth();
  const taskId = newId();
  const key = `${auth.orgId}/uploads/${taskId}/${file.name.replace(/[^\w.\- ]/g, '_')}`;
  const draft = req.server.files.draft(key);
  await fs.promises.writeFile(draft, file.bytes);
  const size = await req.server.files.publish(key);
  const referenceId = taskReference(kind, new Date());
  const ext = file.name.slice(file.name.lastIndexOf('.') + 1).toLowerCase() as UploadType;
  await req.server.db.tx(async (q) => {
    await insertUploadTask(q, {
      orgId: auth.orgId,
      taskId,
      accountId: auth.accountId,
      referenceId,
      kind,
      quantity: rows,
      storageKey: key,
      fileName: file.name,
      contentType: UPLOAD_TYPES[ext],
      size,
      payload: { ...payload, lang: req.lang },
    });
    await audit(q, req, {
      action: kind === 'sim_transfer' ? 'transfer' : 'uploadInfo',
      entity: 'sim',
      entityId: taskId,
      after: { file: file.name, rows, ...after },
    });
    await publishLive(q, { type: 'task', orgId: auth.orgId, accountId: auth.accountId, data: { id: taskId, status: 'processing', progress: 0 } });
  });
  return { taskId, referenceId, quantity: rows };
}

/** A template in the asked format, its header labelled in the person's language. */
function sendTemplate(reply: FastifyReply, base: string, format: UploadType, header: string[], examples: string[][]) {
  return sendAttachment(reply, UPLOAD_TYPES[format], `${base}.${format}`, templateFile(format, header, examples));
}

const formatParam = { type: 'string', enum: Object.keys(UPLOAD_TYPES) };
const infoType = { type: 'string', enum: [...INFO_TYPES] };
const infoColumn = (lang: FastifyRequest['lang'], type: InfoType) => translate(lang, `upload.column.${type}`);
const INFO_EXAMPLES: Record<InfoType, string> = { deviceName: 'Meter 0042', notes: 'Roof unit, block B', tags: 'north; meters' };
const EXAMPLE_ICCID = '89490200001234567890';

/** The query of a template: its format, `fallback` when none is asked. */
export const formatQuery = (fallback: UploadType) => obj({ format: { ...formatParam, default: fallback } });

/** A template whose one column is ICCID (the SIMs an action or a schedule is for), with an example row. */
export const iccidTemplate = (reply: FastifyReply, base: string, format: UploadType) => sendTemplate(reply, base, format, ['ICCID'], [[EXAMPLE_ICCID]]);

/** The routes of SIM transfer and info upload (the main service, the `sim` subject). */
const route = subjectRoutes('main', 'sim');

function parseInfoType(fields: Record<string, string>): InfoType {
  const type = fields.type as InfoType;
  if (!INFO_TYPES.includes(type)) throw invalid('type', 'enum', { values: INFO_TYPES.join(', ') });
  return type;
}

const routes: RouteDef[] = [
  route('GET', '/sim/transfer/template/:id', 'transfer', {
    raw: true,
    schema: { params: obj({ id: formatParam }, ['id']), response: NO_FIELDS },
    handler: async (req, reply) => iccidTemplate(reply, 'sim-transfer-template', (req.params as { id: UploadType }).id),
  }),
  route('POST', '/sim/transfer/parse/:id', 'transfer', {
    schema: { params: ID_PARAMS, response: previewSchema },
    handler: async (req) => {
      const auth = req.requireAuth();
      await receivingOrg(req, (req.params as { id: string }).id);
      const file = requireFile(await readForm(req));
      const rows = readUpload(file.name, file.bytes, 'ICCID');
      return summarise(await previewTransfer(req.server.db, auth.orgId, rows), req.lang);
    },
  }),
  route('POST', '/sim/transfer', 'transfer', {
    schema: { response: TASK_ANSWER },
    handler: async (req) => {
      const form = await readForm(req);
      const targetOrgId = await receivingOrg(req, form.fields.targetOrgId);
      // SPEC.md section 5: the person confirms they understand the SIMs leave this organisation.
      if (form.fields.acknowledged !== 'true') throw invalid('acknowledged', 'acknowledge');
      const file = requireFile(form);
      const rows = readUpload(file.name, file.bytes, 'ICCID');
      return submit(req, 'sim_transfer', file, rows.length, { targetOrgId }, { to: targetOrgId });
    },
  }),
  route('GET', '/sim/uploadInfo/template/:type', 'uploadInfo', {
    raw: true,
    schema: { params: obj({ type: infoType }, ['type']), querystring: formatQuery('xlsx'), response: NO_FIELDS },
    handler: async (req, reply) => {
      const type = (req.params as { type: InfoType }).type;
      return sendTemplate(
        reply,
        `sim-${type}-template`,
        (req.query as { format: UploadType }).format,
        ['ICCID', infoColumn(req.lang, type)],
        [[EXAMPLE_ICCID, INFO_EXAMPLES[type]]],
      );
    },
  }),
  route('POST', '/sim/organizationCode/:code/batchUpdateInfo/parse', 'uploadInfo', {
    schema: { params: pathParams('code'), response: previewSchema },
    handler: async (req) => {
      const auth = req.requireAuth();
      currentOrg(req);
      const form = await readForm(req);
      const type = parseInfoType(form.fields);
      const file = requireFile(form);
      const rows = readUpload(file.name, file.bytes, 'ICCID');
      return summarise(await previewInfo(req.server.db, auth.orgId, type, rows), req.lang);
    },
  }),
  route('POST', '/sim/organizationCode/:code/batchUpdateInfo', 'uploadInfo', {
    schema: { params: pathParams('code'), response: TASK_ANSWER },
    handler: async (req) => {
      currentOrg(req);
      const form = await readForm(req);
      const type = parseInfoType(form.fields);
      const file = requireFile(form);
      const rows = readUpload(file.name, file.bytes, 'ICCID');
      return submit(req, 'sim_info_upload', file, rows.length, { type }, { field: type });
    },
  }),
];

export const simUploadRoutes = defineRoutes(routes);
