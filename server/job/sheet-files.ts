/**
 * Spreadsheet uploads and templates (SPEC.md section 8, Transfer and upload): .xls, .xlsx or .csv, a file name under
 * 40 characters, at most 1 MB and 100,000 rows. Read with SheetJS (the maintained 0.20 line, published on npm as
 * @e965/xlsx: docs/decisions.md); the file's bytes must match its extension, and reading stops after the row limit.
 * An .xlsx is a zip: SheetJS inflates each entry by its local header until the compressed stream ends, whatever the
 * headers say, so a 1 MB file can unpack to a gigabyte. We unpack it ourselves first (unpackWorkbook), each entry
 * inflated only up to the size both its headers declare and all of them together to at most UNPACKED_MAX, and hand
 * SheetJS a stored (uncompressed) copy of what fitted; a file whose headers disagree, or that unpacks to more, is refused.
 */
import * as XLSX from '@e965/xlsx';
import { Inflate, zipSync } from 'fflate';
import { LIMITS } from '../../common/limits.js';
import { invalid } from '../http/api-error.js';

export const UPLOAD_TYPES = {
  csv: 'text/csv; charset=utf-8',
  xls: 'application/vnd.ms-excel',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
} as const;
export type UploadType = keyof typeof UPLOAD_TYPES;

/**
 * A workbook that unpacks to more than this is refused rather than read. A 1 MB workbook of 100,000 ICCIDs unpacks to
 * about 14 MB; SheetJS needs about 0.6 s for 32 MB of sheet and 2 s for 60 MB, time in which the server answers nobody.
 */
export const UNPACKED_MAX = 32 * 1024 * 1024;

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
  const ok = type === 'xlsx' ? startsWith(bytes, ZIP_SIGNATURE) : type === 'xls' ? startsWith(bytes, CFB_SIGNATURE) : !bytes.includes(0) && isUtf8(bytes);
  if (!ok) throw invalid('file', 'fileContent', { type: `.${type}` });
}

/** A workbook refused while unpacking: its headers disagree (or it is no zip at all), or it unpacks to too much. */
class Unpack extends Error {
  constructor(readonly rule: 'fileZipHeaders' | 'fileUnpacked' | 'fileUnreadable') {
    super(rule);
  }
}

/** Compressed bytes handed to the inflater at a time: one push can then produce at most about 1 MB (deflate's 1:1032). */
const INFLATE_STEP = 1024;

/** Inflate raw deflate data to exactly `size` bytes, stopping as soon as the output passes it. */
function inflateCapped(data: Uint8Array, size: number): Uint8Array {
  const out = new Uint8Array(size);
  let at = 0;
  let ended = false;
  const inflater = new Inflate((chunk, final) => {
    if (at + chunk.length > size) throw new Unpack('fileZipHeaders');
    out.set(chunk, at);
    at += chunk.length;
    if (final) ended = true;
  });
  try {
    for (let i = 0; i < data.length && !ended; i += INFLATE_STEP) inflater.push(data.subarray(i, i + INFLATE_STEP), i + INFLATE_STEP >= data.length);
    if (data.length === 0) inflater.push(data, true);
  } catch (e) {
    if (e instanceof Unpack) throw e;
    throw new Unpack('fileUnreadable');
  }
  // A stream that ends early, or never, is not the entry its headers describe.
  if (!ended || at !== size) throw new Unpack('fileZipHeaders');
  return out;
}

/**
 * The entries of an .xlsx, read from its central directory and checked against each local header (method, name and,
 * unless a data descriptor follows the data, CRC and sizes), each inflated to its declared size at most, all of them
 * to UNPACKED_MAX at most; returned as a stored zip, whose headers are ours and true, for SheetJS to read.
 */
export function unpackWorkbook(bytes: Uint8Array): Uint8Array {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const u16 = (at: number) => view.getUint16(at, true);
  const u32 = (at: number) => view.getUint32(at, true);
  const inside = (from: number, length: number) => from >= 0 && length >= 0 && from + length <= bytes.length;
  // The end of central directory record: the last one, within its 64 KB comment of the end (as SheetJS finds it).
  let end = -1;
  for (let i = bytes.length - 22; i >= Math.max(0, bytes.length - 22 - 0xffff); i--) {
    if (u32(i) === 0x06054b50) {
      end = i;
      break;
    }
  }
  if (end < 0) throw new Unpack('fileUnreadable');
  const count = u16(end + 10);
  const cdSize = u32(end + 12);
  const cdAt = u32(end + 16);
  // One disk, no ZIP64 (a 1 MB workbook never needs it), the directory inside the file.
  if (u16(end + 4) !== 0 || u16(end + 6) !== 0 || u16(end + 8) !== count || !inside(cdAt, cdSize) || cdAt + cdSize > end) throw new Unpack('fileZipHeaders');
  const names = new TextDecoder();
  const entries: { name: string; method: number; size: number; data: Uint8Array }[] = [];
  let declared = 0;
  let at = cdAt;
  for (let n = 0; n < count; n++) {
    if (!inside(at, 46) || u32(at) !== 0x02014b50) throw new Unpack('fileZipHeaders');
    const flags = u16(at + 8);
    const method = u16(at + 10);
    const crc = u32(at + 16);
    const packed = u32(at + 20);
    const size = u32(at + 24);
    const nameLength = u16(at + 28);
    const localAt = u32(at + 42);
    const nameBytes = bytes.subarray(at + 46, at + 46 + nameLength);
    at += 46 + nameLength + u16(at + 30) + u16(at + 32);
    if (at > cdAt + cdSize) throw new Unpack('fileZipHeaders');
    if (flags & 0x41) throw new Unpack('fileUnreadable'); // encrypted
    if (method !== 0 && method !== 8) throw new Unpack('fileUnreadable');
    if (packed === 0xffffffff || size === 0xffffffff) throw new Unpack('fileZipHeaders');
    // The local header says the same: SheetJS reads that one.
    if (!inside(localAt, 30) || u32(localAt) !== 0x04034b50) throw new Unpack('fileZipHeaders');
    const localFlags = u16(localAt + 6);
    const localName = bytes.subarray(localAt + 30, localAt + 30 + u16(localAt + 26));
    const sameOrLater = (local: number, central: number) => local === central || ((localFlags & 8) !== 0 && local === 0);
    if (
      u16(localAt + 8) !== method ||
      (localFlags & 8) !== (flags & 8) ||
      !sameOrLater(u32(localAt + 14), crc) ||
      !sameOrLater(u32(localAt + 18), packed) ||
      !sameOrLater(u32(localAt + 22), size) ||
      localName.length !== nameBytes.length ||
      !localName.every((b, i) => b === nameBytes[i])
    ) {
      throw new Unpack('fileZipHeaders');
    }
    const dataAt = localAt + 30 + localName.length + u16(localAt + 28);
    if (!inside(dataAt, packed) || (method === 0 && packed !== size)) throw new Unpack('fileZipHeaders');
    declared += size;
    if (declared > UNPACKED_MAX) throw new Unpack('fileUnpacked');
    entries.push({ name: names.decode(nameBytes), method, size, data: bytes.subarray(dataAt, dataAt + packed) });
  }
  const files: Record<string, Uint8Array> = {};
  for (const e of entries) {
    if (e.name.endsWith('/')) continue;
    if (Object.hasOwn(files, e.name)) throw new Unpack('fileZipHeaders');
    files[e.name] = e.method === 0 ? e.data : inflateCapped(e.data, e.size);
  }
  return zipSync(files, { level: 0 });
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
  let content = bytes;
  if (type === 'xlsx') {
    try {
      content = unpackWorkbook(bytes);
    } catch (e) {
      if (!(e instanceof Unpack)) throw e;
      throw e.rule === 'fileUnpacked' ? invalid('file', 'fileUnpacked', { limit: `${UNPACKED_MAX / (1024 * 1024)} MB` }) : invalid('file', e.rule);
    }
  }
  let sheet: XLSX.WorkSheet | undefined;
  try {
    const book = XLSX.read(type === 'csv' ? new TextDecoder().decode(bytes).replace(/^\uFEFF/, '') : content, {
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
  const header = String(grid[headerAt][0] ?? '')
    .trim()
    .toLowerCase();
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
