/**
 * Spreadsheet uploads and templates (SPEC.md section 8, Transfer and upload): .xls, .xlsx or .csv, a file name under
 * 40 characters, at most 1 MB and 100,000 rows. Read with SheetJS (the maintained 0.20 line, published on npm as
 * @e965/xlsx: docs/decisions.md); the file's bytes must match its extension, a compressed workbook may not unpack to
 * more than UNPACKED_MAX, and reading stops after the row limit, so a hostile file costs little.
 */
import * as XLSX from '@e965/xlsx';
import { unzipSync } from 'fflate';
import { LIMITS } from '../../common/limits.js';
import { invalid } from '../http/api-error.js';

export const UPLOAD_TYPES = {
  csv: 'text/csv; charset=utf-8',
  xls: 'application/vnd.ms-excel',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
} as const;
export type UploadType = keyof typeof UPLOAD_TYPES;

/** A workbook of 1 MB that unpacks to more than this is refused rather than read. */
const UNPACKED_MAX = 64 * 1024 * 1024;

const CFB_SIGNATURE = [0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1];
const ZIP_SIGNATURE = [0x50, 0x4b, 0x03, 0x04];
const startsWith = (bytes: Uint8Array, sig: number[]) => sig.every((b, i) => bytes[i] === b);

/** The type of an upload from its name, or a 400 naming the file and the rule. */
export function uploadTypeOf(name: string): UploadType {
  const base = name.replace(/^.*[\\/]/, '');
  // "Under 40 characters": the whole name as the person sees it, extension included.
  if (base.length >= LIMITS.uploadFileNameLength) throw invalid('file', 'fileNameLength', { limit: LIMITS.uploadFileNameLength });
  const ext = /\.([A-Za-z]+)$/.exec(base)?.[1]?.toLowerCase();
  if (!ext || !(ext in UPLOAD_TYPES) || base.length === ext.length + 1) throw invalid('file', 'fileType', { types: '.xls, .xlsx, .csv' });
  return ext as UploadType;
}

/** The bytes must be what the extension says: a renamed picture is not a spreadsheet. */
function checkContent(type: UploadType, bytes: Uint8Array): void {
  const ok =
    type === 'xlsx' ? startsWith(bytes, ZIP_SIGNATURE)
    : type === 'xls' ? startsWith(bytes, CFB_SIGNATURE)
    : !bytes.includes(0) && isUtf8(bytes);
  if (!ok) throw invalid('file', 'fileContent', { type: `.${type}` });
  if (type === 'xlsx') {
    let unpacked = 0;
    try {
      unzipSync(bytes, {
        filter: (f) => {
          unpacked += f.originalSize;
          return false;
        },
      });
    } catch {
      throw invalid('file', 'fileUnreadable');
    }
    if (unpacked > UNPACKED_MAX) throw invalid('file', 'fileUnreadable');
  }
}

function isUtf8(bytes: Uint8Array): boolean {
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    return true;
  } catch {
    return false;
  }
}

/** One data row: its number as a spreadsheet shows it (the header is row 1) and its cells. */
export interface SheetRow {
  row: number;
  cells: (string | number | null)[];
}

/**
 * The data rows of an upload's first sheet under its header row. Text stays text (CSV cells are never turned into
 * numbers, so a 20-digit ICCID keeps its digits); a cell Excel stored as a number stays a number, so the caller can
 * say that its digits were lost. Blank rows are skipped. Refuses a file over the size or row limits, one that cannot
 * be read, one with no data rows, or one whose header does not start with the expected column (unless its first cell
 * matches opts.headerless: a plain list, whose first row is data).
 */
export function readUpload(name: string, bytes: Uint8Array, firstColumn: string, opts: { headerless?: RegExp } = {}): SheetRow[] {
  const type = uploadTypeOf(name);
  if (bytes.length > LIMITS.uploadBytes) throw invalid('file', 'maximum', { limit: '1 MB' });
  checkContent(type, bytes);
  let sheet: XLSX.WorkSheet | undefined;
  try {
    const book = XLSX.read(type === 'csv' ? new TextDecoder().decode(bytes).replace(/^\uFEFF/, '') : bytes, {
      type: type === 'csv' ? 'string' : 'array',
      raw: true,
      dense: true,
      cellDates: false,
      cellFormula: false,
      cellHTML: false,
      cellStyles: false,
      // The header, the limit, and one more row to know the limit was passed.
      sheetRows: LIMITS.uploadRows + 2,
    });
    sheet = book.Sheets[book.SheetNames[0]];
  } catch {
    throw invalid('file', 'fileUnreadable');
  }
  if (!sheet) throw invalid('file', 'fileUnreadable');
  const grid = XLSX.utils.sheet_to_json<(string | number | boolean | null)[]>(sheet, { header: 1, raw: true, defval: null, blankrows: true });
  const headerAt = grid.findIndex((r) => r.some((c) => c !== null && String(c).trim() !== ''));
  if (headerAt < 0) throw invalid('file', 'fileNoRows');
  const header = String(grid[headerAt][0] ?? '').trim().toLowerCase();
  // A list without the header (a text file of ICCIDs): its first row is data when it looks like data.
  const headerless = !!opts.headerless?.test(header);
  if (!headerless && !header.startsWith(firstColumn.toLowerCase())) throw invalid('file', 'fileHeader', { column: firstColumn });
  const rows: SheetRow[] = [];
  for (let i = headerless ? headerAt : headerAt + 1; i < grid.length; i++) {
    const cells = grid[i].map((c) => (c === null || c === undefined ? null : typeof c === 'number' ? c : String(c).trim() || null));
    if (cells.every((c) => c === null)) continue;
    rows.push({ row: i + 1, cells });
    if (rows.length > LIMITS.uploadRows) throw invalid('file', 'fileRows', { limit: LIMITS.uploadRows.toLocaleString('en-US') });
  }
  if (rows.length === 0) throw invalid('file', 'fileNoRows');
  return rows;
}

/**
 * A template: a header row and example rows, every cell stored as text (so that Excel keeps an ICCID's 20 digits
 * instead of turning it into 8.9E+19), in the asked format.
 */
export function templateFile(type: UploadType, header: string[], examples: string[][]): Buffer {
  const rows = [header, ...examples];
  if (type === 'csv') {
    const quote = (v: string) => (/[",\n\r]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v);
    return Buffer.from(`\uFEFF${rows.map((r) => r.map(quote).join(',')).join('\r\n')}\r\n`, 'utf8');
  }
  const sheet = XLSX.utils.aoa_to_sheet(rows);
  for (const key of Object.keys(sheet)) {
    if (key.startsWith('!')) continue;
    const cell = sheet[key] as XLSX.CellObject;
    cell.t = 's';
    cell.z = '@';
  }
  sheet['!cols'] = header.map((h, i) => ({ wch: Math.max(h.length, ...examples.map((e) => (e[i] ?? '').length), 12) + 2 }));
  const book = XLSX.utils.book_new();
  XLSX.utils.book_append_sheet(book, sheet, 'Sheet1');
  return XLSX.write(book, { type: 'buffer', bookType: type === 'xls' ? 'biff8' : 'xlsx', compression: true }) as Buffer;
}
