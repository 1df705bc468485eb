/**
 * bench/results.md, written section by section: each bench (bench/pools.ts, bench/webhooks.ts, bench/autoflow.ts)
 * writes its own section ("## Title" to the next "## ") and keeps the others as they were; a section that is not there
 * yet goes at the end, and the notes written by hand after a section's table stay. Pure but for writeSection, so a rerun's merge can be checked without running a bench.
 */
import fs from 'node:fs';

export const RESULTS = 'bench/results.md';

/** A row of a bench's table: its first cell names the database. */
export const isDbRow = (line: string) => /^\| (postgres|pglite) \|/.test(line);

/** The section titled `title` as `md` holds it ('' without one): from its heading to the next section. */
export function sectionIn(md: string, title: string): string {
  const at = md.indexOf(`\n${title}\n`);
  return at < 0 ? '' : md.slice(at + 1).split('\n## ')[0];
}

/** What follows the table headed `tableHead` in a section: the notes written by hand about a run. */
export function notesOf(section: string, tableHead: string): string[] {
  const lines = section.split('\n');
  const head = lines.indexOf(tableHead);
  if (head < 0) return [];
  let end = head + 1;
  while (end < lines.length && lines[end].startsWith('|')) end++;
  const notes = lines.slice(end);
  while (notes.length && !notes[0].trim()) notes.shift();
  while (notes.length && !notes[notes.length - 1].trim()) notes.pop();
  return notes;
}

export interface Section {
  /** Its heading, "## ...". */
  title: string;
  /** The lines above its table. */
  intro: string[];
  /** The table's head and separator lines. */
  table: [head: string, separator: string];
  /** The table's rows, given the rows of the section as the file holds it (to keep those this run did not measure). */
  rows: (old: string[]) => string[];
}

/**
 * `md` with the section written in place of its last version, or at the end: its title, its intro, its table and, as
 * they were, the notes written by hand after the old table (the machine's load, which run a row comes from).
 */
export function withSection(md: string, s: Section): string {
  const old = sectionIn(md, s.title);
  const notes = notesOf(old, s.table[0]);
  const lines = [s.title, '', ...s.intro, '', ...s.table, ...s.rows(old.split('\n').filter(isDbRow)), '', ...(notes.length ? [...notes, ''] : [])];
  const start = md.indexOf(`\n${s.title}\n`);
  if (start < 0) return `${md.trimEnd()}\n\n${lines.join('\n')}`;
  const after = md.indexOf('\n## ', start + s.title.length + 1);
  return `${md.slice(0, start + 1)}${lines.join('\n')}${after < 0 ? '' : md.slice(after)}`;
}

/** Write the section into `file` (bench/results.md), keeping the others; prints it. */
export function writeSection(s: Section, file = RESULTS): void {
  const next = withSection(fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '# Benchmarks\n', s);
  fs.writeFileSync(file, next);
  console.log(sectionIn(next, s.title));
}
