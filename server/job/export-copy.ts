/**
 * CSV exports made by the database (docs/decisions.md, "Exports stream from a cursor" and "Exports: flat memory"):
 * it makes each cell as the CSV writer would; on PostgreSQL it sends the lines as COPY output, which go to the file as
 * they arrive, on PGlite (no streaming COPY out) it makes each row's line, read through the cursor. Used when every
 * column can be made exactly so in SQL; otherwise the export's cells are made in JavaScript.
 */
import fs from 'node:fs';
import type { ResourceSchema } from '../../common/resources.js';
import type { Db } from '../db/db.js';
import { snake } from '../schema/schema-repo.js';

/** A value as an SQL literal, for COPY, which takes no parameters (strings quoted, arrays as array literals). */
export function literal(v: unknown): string {
  if (v === null || v === undefined) return 'NULL';
  if (typeof v === 'number') {
    if (!Number.isFinite(v)) throw new Error('not a finite number');
    return String(v);
  }
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  if (Array.isArray(v)) return literal(`{${v.map((x) => `"${String(x).replace(/[\\"]/g, (c) => `\\${c}`)}"`).join(',')}}`);
  const text = String(v);
  if (text.includes('\0')) throw new Error('NUL in a value');
  // An escape string, so a backslash means the same whatever standard_conforming_strings says.
  return `E'${text.replace(/\\/g, '\\\\').replace(/'/g, "''")}'`;
}

/**
 * One SQL expression per column giving the text the writer would write: labels in the requester's language, ISO 8601
 * UTC times, lists joined with "; ", a text that starts like a formula prefixed with ', an empty text as none. Null
 * when a column cannot be made exactly so (a number that need not be whole: JavaScript and PostgreSQL may write its
 * digits differently).
 */
export function copyColumns(r: ResourceSchema, columns: string[], label: (key: string, fallback: string) => string): string[] | null {
  const prefix = r['x-admin'].i18n;
  // A text as the writer writes it: none when empty, ' before a leading =, +, - or @ (by its code: a regular
  // expression per cell costs more than the rest of the row).
  const text = (expr: string) => `CASE WHEN ascii(${expr}) IN (43, 45, 61, 64) THEN '''' || ${expr} ELSE NULLIF(${expr}, '') END`;
  // A label is a constant: made safe here, once.
  const constant = (v: string) => (v === '' ? 'NULL' : literal(/^[=+\-@]/.test(v) ? `'${v}` : v));
  const out: string[] = [];
  for (const field of columns) {
    const p = r.properties[field] as { type?: string | string[]; enum?: unknown[]; format?: string };
    const col = `t.${snake(field)}`;
    const types = ([] as string[]).concat(p.type ?? []);
    if (p.enum) {
      const cases = p.enum
        .filter((v) => v !== null)
        .map((v) => `WHEN ${literal(String(v))} THEN ${constant(label(`${prefix}.enum.${field}.${String(v)}`, String(v)))}`);
      out.push(`CASE ${col}::text ${cases.join(' ')} ELSE ${text(`${col}::text`)} END`);
    } else if (types.includes('boolean')) {
      out.push(`CASE ${col} WHEN true THEN ${constant(label('resources.yes', 'true'))} WHEN false THEN ${constant(label('resources.no', 'false'))} END`);
    } else if (p.format === 'date-time') {
      out.push(`to_char(${col} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`);
    } else if (types.includes('array')) {
      out.push(text(`array_to_string(${col}, '; ', '')`));
    } else if (types.includes('integer')) {
      // The driver reads it as a float8 and JavaScript writes a whole number's digits, as PostgreSQL writes a bigint.
      out.push(`${col}::float8::bigint::text`);
    } else if (types.includes('string')) {
      out.push(text(`${col}::text`));
    } else {
      return null;
    }
  }
  return out;
}

/** Output is gathered up to this many bytes before it is written (and waited for). */
const CHUNK_BYTES = 64 * 1024;

const CRLF = Buffer.from('\r\n');
const headerCell = (v: string) => {
  const safe = /^[=+\-@]/.test(v) ? `'${v}` : v;
  return /[",\n\r]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
};

/**
 * Write `COPY (select) TO STDOUT WITH (FORMAT csv)` to file after the byte-order mark and the header, lines ended with
 * CRLF as the writer ends them (a line feed inside a quoted cell stays as it is). The output is gathered into chunks
 * of 64 KB; the connection is paused only while a chunk is written, so what is held is one chunk and what the socket
 * had already read, whatever the number of rows. progress(rows) after every `every` rows; a failure of progress (the
 * lease lost) ends the export. Returns the number of rows.
 */
export async function copyCsv(
  db: Db,
  select: string,
  file: string,
  header: string[],
  every: number,
  progress: (rows: number) => Promise<void>,
): Promise<number> {
  if (!db.copyOut) throw new Error('COPY out is not available on this database');
  const out = fs.createWriteStream(file);
  const write = (chunk: string | Buffer) => new Promise<void>((resolve, reject) => out.write(chunk, (e) => (e ? reject(e) : resolve())));
  await write(`\uFEFF${header.map(headerCell).join(',')}\r\n`);
  let quoted = false;
  let rows = 0;
  let reported = 0;
  let progressing: Promise<void> = Promise.resolve();
  let lost: Error | null = null;
  // The chunk being gathered; a new one after each write, as the one written may still be in use by the file.
  let buf = Buffer.allocUnsafe(CHUNK_BYTES + 256);
  let used = 0;
  const put = (bytes: Buffer, from: number, to: number) => {
    if (used + (to - from) > buf.length) buf = Buffer.concat([buf.subarray(0, used)], Math.max(buf.length * 2, used + (to - from)));
    used += bytes.copy(buf, used, from, to);
  };
  const flush = () => {
    const chunk = buf.subarray(0, used);
    buf = Buffer.allocUnsafe(CHUNK_BYTES + 256);
    used = 0;
    return write(chunk);
  };
  await db.copyOut(`COPY (${select}) TO STDOUT WITH (FORMAT csv)`, (chunk) => {
    if (lost) throw lost;
    // Each line feed outside quotes ends a row: it becomes CRLF. (PostgreSQL sends a row per message; a quote-free
    // message needs no walk byte by byte.)
    let from = 0;
    if (!quoted && chunk.indexOf(0x22) < 0) {
      for (let i = chunk.indexOf(0x0a); i >= 0; i = chunk.indexOf(0x0a, i + 1)) {
        put(chunk, from, i);
        put(CRLF, 0, 2);
        from = i + 1;
        rows += 1;
      }
    } else {
      for (let i = 0; i < chunk.length; i++) {
        const c = chunk[i];
        if (c === 0x22) quoted = !quoted;
        else if (c === 0x0a && !quoted) {
          put(chunk, from, i);
          put(CRLF, 0, 2);
          from = i + 1;
          rows += 1;
        }
      }
    }
    put(chunk, from, chunk.length);
    if (rows - reported >= every) {
      reported = rows;
      const n = rows;
      progressing = progressing
        .then(() => progress(n))
        .catch((err: Error) => {
          lost = err;
        });
    }
    return used >= CHUNK_BYTES ? flush() : undefined;
  });
  if (used) await flush();
  await progressing;
  if (lost) throw lost;
  await new Promise<void>((resolve, reject) => out.end((e?: Error | null) => (e ? reject(e) : resolve())));
  return rows;
}

/** A cell as CSV: quoted when it holds a quote, a comma or a line break; none as empty. */
const csvQuoted = (c: string) => `CASE WHEN ${c} ~ '[",\\r\\n]' THEN '"' || replace(${c}, '"', '""') || '"' ELSE coalesce(${c}, '') END`;

/**
 * The CSV line of each row (without its CRLF), made by the database from copyColumns' cells: for a database without
 * COPY out (PGlite), whose cursor then hands JavaScript one text per row instead of a value per cell. `select` is the
 * list's SELECT whose output is `cells[i] AS c<i>`; the lines keep its order.
 */
export function csvLineSelect(select: string, columns: number): string {
  const line = Array.from({ length: columns }, (_, i) => csvQuoted(`rows_out.c${i}`)).join(` || ',' || `);
  return `SELECT ${line} AS line FROM (${select}) rows_out`;
}
