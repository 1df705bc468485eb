/**
 * Exports as CSV (RFC 4180, UTF-8 with a byte-order mark so spreadsheets read accents and Chinese) or XLSX (one
 * sheet, inline strings, zipped by fflate as it is written), row by row, so 100,000 rows never sit in memory at once.
 * Rows are gathered into chunks of about 64 KB, each written once; a batch of rows is made at once and its chunks
 * waited for after it: what is held at any time is one batch and its chunks, whatever the number of rows.
 */
import fs from 'node:fs';
import { Zip, ZipDeflate } from 'fflate';

export type Cell = string | number | null;

/** The table formats a download or an export offers, and each one's content type. */
export const TABLE_FORMATS = { csv: 'text/csv; charset=utf-8', xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet' } as const;
export type TableFormat = keyof typeof TABLE_FORMATS;

export interface TableWriter {
  header(cells: string[]): Promise<void>;
  row(cells: Cell[]): Promise<void>;
  /**
   * Several rows at once (a cursor's batch): all made at once, then the chunks they filled waited for, so a batch is
   * garbage as soon as it is written out rather than living on through every chunk's write.
   */
  rows(rows: Cell[][]): Promise<void>;
  end(): Promise<void>;
}

/** A CSV writer also takes lines made elsewhere (by the database): each is written as it is, ended with CRLF. */
export interface CsvWriter extends TableWriter {
  lines(lines: string[]): Promise<void>;
}

/** A writer from its way of adding one line (a promise when that filled a chunk) and its end. */
function writerOf(line: (cells: Cell[]) => Promise<void> | undefined, end: () => Promise<void>): TableWriter {
  return {
    header: async (cells) => line(cells),
    row: async (cells) => line(cells),
    async rows(rows) {
      const written: Promise<void>[] = [];
      for (const cells of rows) {
        const w = line(cells);
        if (w) written.push(w);
      }
      await Promise.all(written);
    },
    end,
  };
}

/** Text is gathered up to this many characters before it is written. */
const CHUNK_CHARS = 64 * 1024;

/** Write to a file, waiting for the stream to drain. */
function sink(file: string) {
  const out = fs.createWriteStream(file);
  const write = (chunk: string | Uint8Array) => new Promise<void>((resolve, reject) => out.write(chunk, (e) => (e ? reject(e) : resolve())));
  const end = () => new Promise<void>((resolve, reject) => out.end((e?: Error | null) => (e ? reject(e) : resolve())));
  return { write, end };
}

const FORMULA = /^[=+\-@]/;
const NEEDS_QUOTES = /[",\n\r]/;
const csvCell = (v: Cell) => {
  if (v === null) return '';
  if (typeof v === 'number') return String(v);
  // A leading =, +, - or @ would be a formula in a spreadsheet: quote it as text.
  const safe = FORMULA.test(v) ? `'${v}` : v;
  return NEEDS_QUOTES.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
};

/** Lines gathered into chunks; flush() writes what is gathered. */
function chunked(write: (text: string) => Promise<void>) {
  let buf = '';
  const flush = async () => {
    if (!buf) return;
    const text = buf;
    buf = '';
    await write(text);
  };
  /** Gather text; a promise only when a chunk is written. */
  const add = (text: string): Promise<void> | undefined => {
    buf += text;
    return buf.length >= CHUNK_CHARS ? flush() : undefined;
  };
  return { add, flush };
}

export function csvWriter(file: string): CsvWriter {
  const out = sink(file);
  const text = chunked(out.write);
  let started = false;
  const lineOf = (cells: Cell[]) => {
    let s = '';
    for (let i = 0; i < cells.length; i++) s += (i ? ',' : '') + csvCell(cells[i]);
    return `${s}\r\n`;
  };
  const add = (line: string) => {
    const prefix = started ? '' : '\uFEFF';
    started = true;
    return text.add(prefix + line);
  };
  const writer = writerOf(
    (cells) => add(lineOf(cells)),
    async () => {
      await text.flush();
      await out.end();
    },
  );
  return {
    ...writer,
    async lines(lines) {
      const written = add(`${lines.join('\r\n')}\r\n`);
      if (written) await written;
    },
  };
}

// XML 1.0 has no place for control characters other than tab, newline and carriage return: they are dropped.
const isControl = (ch: string) => {
  const c = ch.charCodeAt(0);
  return c < 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d;
};
const ESCAPED: Record<string, string> = { '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;' };
// eslint-disable-next-line no-control-regex
const CONTROL = /[\x00-\x08\x0b\x0c\x0e-\x1f]/;
const xml = (s: string) => {
  const escaped = /[<>&"]/.test(s) ? s.replace(/[<>&"]/g, (c) => ESCAPED[c]!) : s;
  return CONTROL.test(escaped) ? [...escaped].filter((ch) => !isControl(ch)).join('') : escaped;
};
const column = (i: number) => {
  let s = '';
  for (let n = i + 1; n > 0; n = Math.floor((n - 1) / 26)) s = String.fromCharCode(65 + ((n - 1) % 26)) + s;
  return s;
};

const FIXED: Record<string, string> = {
  '[Content_Types].xml':
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/><Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/></Types>',
  '_rels/.rels':
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="xl/workbook.xml"/></Relationships>',
  'xl/workbook.xml':
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?><workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets><sheet name="Export" sheetId="1" r:id="rId1"/></sheets></workbook>',
  'xl/_rels/workbook.xml.rels':
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/></Relationships>',
};

export function xlsxWriter(file: string): TableWriter {
  const out = sink(file);
  let pending: Promise<void> = Promise.resolve();
  let failed: Error | null = null;
  const zip = new Zip((err, chunk) => {
    if (err) failed = err;
    else pending = pending.then(() => out.write(chunk));
  });
  const enc = new TextEncoder();
  for (const [name, body] of Object.entries(FIXED)) {
    const f = new ZipDeflate(name, { level: 6 });
    zip.add(f);
    f.push(enc.encode(body), true);
  }
  const sheet = new ZipDeflate('xl/worksheets/sheet1.xml', { level: 6 });
  zip.add(sheet);
  sheet.push(
    enc.encode(
      '<?xml version="1.0" encoding="UTF-8" standalone="yes"?><worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>',
    ),
  );
  let r = 0;
  const text = chunked(async (chunk) => {
    sheet.push(enc.encode(chunk));
    if (failed) throw failed;
    await pending;
  });
  const letters: string[] = [];
  const line = (cells: Cell[]) => {
    r += 1;
    let xmlCells = '';
    for (let i = 0; i < cells.length; i++) {
      const v = cells[i];
      if (v === null || v === '') continue;
      const ref = `${(letters[i] ??= column(i))}${r}`;
      // Numbers stay numbers; digit strings (ICCIDs) stay text, or a spreadsheet would round them.
      xmlCells += typeof v === 'number' ? `<c r="${ref}"><v>${v}</v></c>` : `<c r="${ref}" t="inlineStr"><is><t>${xml(v)}</t></is></c>`;
    }
    return text.add(`<row r="${r}">${xmlCells}</row>`);
  };
  return writerOf(line, async () => {
    await text.flush();
    sheet.push(enc.encode('</sheetData></worksheet>'), true);
    zip.end();
    await pending;
    if (failed) throw failed;
    await out.end();
  });
}

/** The writer of a table format. */
export const tableWriter = (format: TableFormat, file: string): TableWriter => (format === 'xlsx' ? xlsxWriter(file) : csvWriter(file));
