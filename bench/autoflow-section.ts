/**
 * bench/autoflow.ts's section of bench/results.md, merged into the file: its rows replace those of the databases (and
 * parts) measured now, the others stay from their last run, and whatever follows the table (the notes written by hand
 * about a run: the machine's load, which run a row comes from) stays as it was. Pure, so a rerun can be checked without
 * running the bench.
 */
export const SECTION = '## Autoflow engine';
const TABLE_HEAD = '| database | size | what | figure | beside |';
const isRow = (l: string) => /^\| (postgres|pglite) \|/.test(l);

/** The section as results.md holds it now ('' without one): from its heading to the next section. */
export function sectionIn(md: string): string {
  const at = md.indexOf(`\n${SECTION}\n`);
  return at < 0 ? '' : md.slice(at + 1).split('\n## ')[0];
}

/** What follows the section's table: the notes, kept by every rerun. */
export function notesOf(section: string): string[] {
  const lines = section.split('\n');
  const head = lines.indexOf(TABLE_HEAD);
  if (head < 0) return [];
  let end = head + 1;
  while (end < lines.length && lines[end].startsWith('|')) end++;
  const notes = lines.slice(end);
  while (notes.length && !notes[0].trim()) notes.shift();
  while (notes.length && !notes[notes.length - 1].trim()) notes.pop();
  return notes;
}

/**
 * The file with the section written: `intro` (its lines above the table), the rows kept from the last run (those of a
 * database not measured now, or with parts = 'scheduled' a measured database's other rows), the rows measured now, and
 * the notes as they were.
 */
export function mergeSection(previous: string, intro: string[], rows: string[], parts: string): string {
  const old = sectionIn(previous);
  const measured = new Set(rows.map((r) => r.split('|')[1].trim()));
  const kept = old
    .split('\n')
    .filter((l) => isRow(l) && (!measured.has(l.split('|')[1].trim()) || (parts === 'scheduled' && !/scheduled evaluation|one rule at a time/.test(l))));
  const notes = notesOf(old);
  const section = [SECTION, '', ...intro, '', TABLE_HEAD, '|---|---|---|---|---|', ...kept, ...rows, '', ...(notes.length ? [...notes, ''] : [])];
  const start = previous.indexOf(`\n${SECTION}\n`);
  if (start < 0) return `${previous.trimEnd()}\n\n${section.join('\n')}`;
  const after = previous.indexOf('\n## ', start + SECTION.length + 1);
  return `${previous.slice(0, start + 1)}${section.join('\n')}${after < 0 ? '' : previous.slice(after)}`;
}
