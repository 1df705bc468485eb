/**
 * Exports as CSV (RFC 4180, UTF-8 with a byte-order mark so spreadsheets read accents and Chinese) or XLSX (one
 * sheet, inline strings, zipped by fflate as it is written), row by row, so 100,000 rows never sit in memory at once.
 */
import fs from 'node:fs';
import { Zip, ZipDeflate } from 'fflate';

export interface TableWriter {
  header(cells: string[]): Promise<void>;
  row(cells: Array<string | number | null>): Promise<void>;
  end(): Promise<void>;
}

/** Write to a file, waiting for the stream to drain. */
function sink(file: string) {
  const out = fs.createWriteStream(file);
  const write = (chunk: string | Uint8Array) => new Promise<void>((resolve, reject) => (out.write(chunk, (e) => (e ? reject(e) : resolve()))));
  const end = () => new Promise<void>((resolve, reject) => out.end((e?: Error | null) => (e ? reject(e) : resolve())));
  return { write, end };
}

const csvCell = (v: string | number | null) => {
  if (v === null) return '';
  const s = String(v);
  // A leading =, +, - or @ would be a formula in a spreadsheet: quote it as text.
  const safe = /^[=+\-@]/.test(s) && typeof v === 'string' ? `'${s}` : s;
  return /[",\n\r]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
};

export function csvWriter(file: string): TableWriter {
  const out = sink(file);
  let started = false;
  const line = async (cells: Array<string | number | null>) => {
    if (!started) {
      started = true;
      await out.write('\uFEFF');
    }
    await out.write(`${cells.map(csvCell).join(',')}\r\n`);
  };
  return { header: line, row: line, end: out.end };
}

// XML 1.0 has no place for control characters other than tab, newline and carriage return: they are dropped.
const isControl = (ch: string) => {
  const c = ch.charCodeAt(0);
  return c < 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d;
};
const xml = (s: string) => [...s.replace(/[<>&"]/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;' })[c]!)].filter((ch) => !isControl(ch)).join('');
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
  sheet.push(enc.encode('<?xml version="1.0" encoding="UTF-8" standalone="yes"?><worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>'));
  let r = 0;
  const line = async (cells: Array<string | number | null>) => {
    r += 1;
    const xmlCells = cells
      .map((v, i) => {
        const ref = `${column(i)}${r}`;
        if (v === null || v === '') return '';
        // Numbers stay numbers; digit strings (ICCIDs) stay text, or a spreadsheet would round them.
        return typeof v === 'number' ? `<c r="${ref}"><v>${v}</v></c>` : `<c r="${ref}" t="inlineStr"><is><t>${xml(v)}</t></is></c>`;
      })
      .join('');
    sheet.push(enc.encode(`<row r="${r}">${xmlCells}</row>`));
    if (failed) throw failed;
    await pending;
  };
  return {
    header: line,
    row: line,
    end: async () => {
      sheet.push(enc.encode('</sheetData></worksheet>'), true);
      zip.end();
      await pending;
      if (failed) throw failed;
      await out.end();
    },
  };
}
