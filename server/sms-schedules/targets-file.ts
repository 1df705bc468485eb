/**
 * A scheduled SMS's target file, read on the server so that the console carries no spreadsheet library:
 * the send template's first column (ICCID) of an .xlsx, .xls, .csv or .txt file, with or without the header row, at
 * most LIMITS.iccidList rows. Every ICCID must be 18-22 digits written as text (a number cell has lost an ICCID's last
 * digits), once, and a SIM of the organisation; otherwise the offenders are named.
 */
import { LIMITS } from '../../common/limits.js';
import type { Queryable } from '../db/db.js';
import { invalid } from '../http/api-error.js';
import { readUpload } from '../job/sheet-files.js';
import { checkTargets, duplicatesOf, offenders } from './schedule-rules.js';

export const TARGET_FILE_TYPES = ['xlsx', 'xls', 'csv', 'txt'] as const;
const ICCID = /^\d{18,22}$/;

/** The ICCIDs of a target file, in file order, checked against the organisation's SIMs. */
export async function readTargetFile(q: Queryable, orgId: string, file: { name: string; bytes: Uint8Array }): Promise<{ iccids: string[] }> {
  const base = file.name.replace(/^.*[\\/]/, '');
  const ext = /\.([A-Za-z]+)$/.exec(base)?.[1]?.toLowerCase();
  if (!ext || !(TARGET_FILE_TYPES as readonly string[]).includes(ext) || base.length === ext.length + 1) {
    throw invalid('file', 'fileType', { types: TARGET_FILE_TYPES.map((t) => `.${t}`).join(', ') });
  }
  // A text file is read as CSV (one ICCID a line; a comma starts the next column).
  const rows = readUpload(ext === 'txt' ? base.slice(0, -3) + 'csv' : base, file.bytes, 'ICCID', { headerless: ICCID });
  if (rows.length > LIMITS.iccidList) throw invalid('file', 'fileRows', { limit: LIMITS.iccidList.toLocaleString('en-US') });
  const bad = rows.filter((r) => typeof r.cells[0] !== 'string' || !ICCID.test(r.cells[0]));
  if (bad.length)
    throw offenders(
      'file',
      'fileIccids',
      bad.map((r) => String(r.row)),
    );
  const iccids = rows.map((r) => r.cells[0] as string);
  const dup = duplicatesOf(iccids);
  if (dup.length) throw offenders('file', 'duplicateIccids', dup);
  await checkTargets(q, orgId, iccids);
  return { iccids };
}
