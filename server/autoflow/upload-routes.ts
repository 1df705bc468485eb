/**
 * Uploads of an autoflow rule (SPEC.md sections 5, 7 and 8): a scope file of ICCIDs and an IMEI-change
 * trigger's file of IMEIs (csv, xls or xlsx; at most 10,000 rows), each validated as a whole before a rule may name
 * it, and their templates. Every value must be valid (Luhn), unique, and (ICCIDs) a SIM of the current organisation;
 * a refusal names the offending rows as the spreadsheet numbers them. A valid file is kept under a token bound to the
 * SHA-256 of its bytes: the rule names both, so a file modified after validation must be uploaded again.
 *
 * - POST /auto_flow/cube/validation/:kind   kind scope (ICCIDs) or imei_change (IMEIs), the file in the field "file"
 * - GET  /auto_flow/cube/template/:kind     ?format=csv|xls|xlsx
 */
import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { isValidIccid, isValidImei } from '../../common/iccid.js';
import { LIMITS } from '../../common/limits.js';
import { newId } from '../db/ids.js';
import { invalid } from '../http/api-error.js';
import { defineRoutes } from '../http/route.js';
import { obj, subjectRoutes, typed } from '../http/shapes.js';
import { readUpload, templateFile, UPLOAD_TYPES, type SheetRow, type UploadType } from '../job/sheet-files.js';
import { readForm, requireFile } from '../sim/sim-upload-routes.js';
import { badLines, type Line } from './rule-checks.js';
import { ownIccids, saveScopeFile, type UploadKind } from './rule-repo.js';

const KINDS = { scope: 'iccid', imei_change: 'imei' } as const satisfies Record<string, UploadKind>;
type Kind = keyof typeof KINDS;
const COLUMN: Record<UploadKind, string> = { iccid: 'ICCID', imei: 'IMEI' };
const EXAMPLES: Record<UploadKind, string[]> = { iccid: ['89490200001234567819', '89490200001234567827'], imei: ['356938035643809', '490154203237518'] };

/** The values of the first column, or the first problem with them (by row). */
function valuesOf(rows: SheetRow[], kind: UploadKind): string[] {
  if (rows.length > LIMITS.autoflowUploadRows) throw invalid('file', 'fileRows', { limit: LIMITS.autoflowUploadRows.toLocaleString('en-US') });
  const valid = kind === 'iccid' ? isValidIccid : isValidImei;
  const lines: Line[] = rows.map((r) => ({ line: r.row, value: r.cells[0] === null ? '' : String(r.cells[0]) }));
  // A number cell lost its digits in Excel (8.9E+19): it is not the ICCID that was meant.
  const wrong = lines.filter((l, i) => typeof rows[i].cells[0] === 'number' || !valid(l.value));
  if (wrong.length) throw badLines('file', kind === 'iccid' ? 'iccidInvalid' : 'imeiInvalid', wrong);
  const seen = new Set<string>();
  const repeated = lines.filter((l) => (seen.has(l.value) ? true : (seen.add(l.value), false)));
  if (repeated.length) throw badLines('file', 'duplicateLines', repeated);
  return lines.map((l) => l.value);
}

const kindParam = obj({ kind: { type: 'string', enum: Object.keys(KINDS) } }, ['kind']);
const route = subjectRoutes('rule', 'autoflow-cube');

export const uploadRoutes = defineRoutes([
  route('POST', '/auto_flow/cube/validation/:kind', 'create', {
    schema: { params: kindParam, response: typed({ token: 'string', sha256: 'string', fileName: 'string', count: 'integer' }) },
    handler: async (req: FastifyRequest) => {
      const auth = req.requireAuth();
      const kind = KINDS[(req.params as { kind: Kind }).kind];
      const file = requireFile(await readForm(req));
      const rows = readUpload(file.name, file.bytes, COLUMN[kind]);
      const values = valuesOf(rows, kind);
      if (kind === 'iccid') {
        const own = await ownIccids(req.server.db, auth.orgId, values);
        const foreign = rows.map((r, i) => ({ line: r.row, value: values[i] })).filter((l) => !own.has(l.value));
        if (foreign.length) throw badLines('file', 'iccidForeign', foreign);
      }
      const sha256 = createHash('sha256').update(file.bytes).digest('hex');
      const token = newId(32);
      await saveScopeFile(req.server.db, auth.orgId, { token, kind, sha256, fileName: file.name, items: values, accountId: auth.accountId });
      return { token, sha256, fileName: file.name, count: values.length };
    },
  }),
  route('GET', '/auto_flow/cube/template/:kind', 'read', {
    raw: true,
    schema: {
      params: kindParam,
      querystring: obj({ format: { type: 'string', enum: Object.keys(UPLOAD_TYPES), default: 'xlsx' } }),
      response: {},
    },
    handler: async (req: FastifyRequest, reply: FastifyReply) => {
      const kind = KINDS[(req.params as { kind: Kind }).kind];
      const format = (req.query as { format: UploadType }).format;
      return reply
        .type(UPLOAD_TYPES[format])
        .header('content-disposition', `attachment; filename="autoflow-${kind}-template.${format}"`)
        .header('cache-control', 'no-store')
        .send(
          templateFile(
            format,
            [COLUMN[kind]],
            EXAMPLES[kind].map((v) => [v]),
          ),
        );
    },
  }),
]);
