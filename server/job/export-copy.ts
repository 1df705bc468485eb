/**
 * CSV exports by COPY on PostgreSQL (docs/decisions.md, "Exports stream from a cursor"): the database makes each cell
 * as the CSV writer would and sends the lines as COPY output, which go to the file as they arrive. Used when every
 * column can be made exactly so in SQL; otherwise the export reads through the cursor.
 */
import fs from 'node:fs';
import type { ResourceSchema } from '../../common/resources.js';
import type { Db } from '../db/db.js';
import { snake } from '../db/resource-list.js';

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
  const text = (expr: string) => `regexp_replace(NULLIF(${expr}, ''), '^([=+@-])', E'''\\\\1')`;
  const out: string[] = [];
  for (const field of columns) {
    const p = r.properties[field] as { type?: string | string[]; enum?: unknown[]; format?: string };
    const col = `t.${snake(field)}`;
    const types = ([] as string[]).concat(p.type ?? []);
    if (p.enum) {
      const cases = p.enum.filter((v) => v !== null).map((v) => `WHEN ${literal(String(v))} THEN ${literal(label(`${prefix}.enum.${field}.${String(v)}`, String(v)))}`);
      out.push(text(`CASE ${col}::text ${cases.join(' ')} ELSE ${col}::text END`));
    } else if (types.includes('boolean')) {
      out.push(text(`CASE ${col} WHEN true THEN ${literal(label('resources.yes', 'true'))} WHEN false THEN ${literal(label('resources.no', 'false'))} END`));
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

const CRLF = Buffer.from('\r\n');
const headerCell = (v: string) => {
  const safe = /^[=+\-@]/.test(v) ? `'${v}` : v;
  return /[",\n\r]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
};

/**
 * Write `COPY (select) TO STDOUT WITH (FORMAT csv)` to file after the byte-order mark and the header, lines ended with
 * CRLF as the writer ends them (a line feed inside a quoted cell stays as it is). progress(rows) after every `every`
 * rows; a failure of progress (the lease lost) ends the export. Returns the number of rows.
 */
export async function copyCsv(db: Db, select: string, file: string, header: string[], every: number, progress: (rows: number) => Promise<void>): Promise<number> {
  if (!db.copyOut) throw new Error('COPY out is not available on this database');
  const out = fs.createWriteStream(file);
  const write = (chunk: string | Buffer) => new Promise<void>((resolve, reject) => out.write(chunk, (e) => (e ? reject(e) : resolve())));
  await write(`\uFEFF${header.map(headerCell).join(',')}\r\n`);
  let quoted = false;
  let rows = 0;
  let reported = 0;
  let progressing: Promise<void> = Promise.resolve();
  let lost: Error | null = null;
  await db.copyOut(`COPY (${select}) TO STDOUT WITH (FORMAT csv)`, (chunk) => {
    if (lost) throw lost;
    const parts: Buffer[] = [];
    let from = 0;
    for (let i = 0; i < chunk.length; i++) {
      const c = chunk[i];
      if (c === 0x22) quoted = !quoted;
      else if (c === 0x0a && !quoted) {
        parts.push(chunk.subarray(from, i), CRLF);
        from = i + 1;
        rows += 1;
      }
    }
    parts.push(chunk.subarray(from));
    if (rows - reported >= every) {
      reported = rows;
      const n = rows;
      progressing = progressing.then(() => progress(n)).catch((err: Error) => {
        lost = err;
      });
    }
    return write(Buffer.concat(parts));
  });
  await progressing;
  if (lost) throw lost;
  await new Promise<void>((resolve, reject) => out.end((e?: Error | null) => (e ? reject(e) : resolve())));
  return rows;
}

