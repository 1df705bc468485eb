/**
 * Comments say what the code does and why, never which issue asked for it: the history lives in docs/decisions.md and
 * the commits, and a reader of the code has never seen the issues. This walks every .ts, .tsx, .mjs, .sql and .sh file
 * of server/, src/, common/, scripts/, bench/ and tests/ and fails, naming file and line, on a comment that cites an
 * issue by its number. Only comments are read: TypeScript and JavaScript through the TypeScript parser (so strings,
 * test names and code never count), SQL's `--` and the shell's `#` comments line by line.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { extname, join, relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOTS = ['server', 'src', 'common', 'scripts', 'bench', 'tests'];
const SCRIPT_KINDS: Record<string, ts.ScriptKind> = { '.ts': ts.ScriptKind.TS, '.tsx': ts.ScriptKind.TSX, '.mjs': ts.ScriptKind.JS };
const EXTENSIONS = new Set([...Object.keys(SCRIPT_KINDS), '.sql', '.sh']);

/** The word, singular or plural and in any case, then a number with or without "#"; spelled out here only in parts. */
const ISSUE_REFERENCE = new RegExp(`\\b${'iss' + 'ue'}s?\\s?#?\\d+`, 'i');

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return e.name === 'node_modules' ? [] : files(path);
    return EXTENSIONS.has(extname(e.name)) && !e.name.endsWith('.d.ts') ? [path] : [];
  });
}

/** Every comment of a TypeScript or JavaScript file, as its text and the line (from 1) it starts on. */
function scriptComments(name: string, text: string): { line: number; text: string }[] {
  const source = ts.createSourceFile(name, text, ts.ScriptTarget.Latest, true, SCRIPT_KINDS[extname(name)]);
  const ranges = new Map<number, ts.CommentRange>();
  // JSX text is not trivia: a "//" written in it, right after a tag, is no comment although a trivia scan reads one.
  const jsxTexts: [number, number][] = [];
  // Comments are the trivia before and after tokens, so every token of the tree is visited (getChildren).
  const visit = (node: ts.Node) => {
    if (node.kind === ts.SyntaxKind.JsxText) jsxTexts.push([node.pos, node.end]);
    else for (const r of [...(ts.getLeadingCommentRanges(text, node.pos) ?? []), ...(ts.getTrailingCommentRanges(text, node.end) ?? [])]) ranges.set(r.pos, r);
    for (const child of node.getChildren(source)) visit(child);
  };
  visit(source);
  return [...ranges.values()]
    .filter((r) => !jsxTexts.some(([pos, end]) => r.pos >= pos && r.pos < end))
    .map((r) => ({ line: source.getLineAndCharacterOfPosition(r.pos).line + 1, text: text.slice(r.pos, r.end) }));
}

/** The comments of an SQL or shell file: what follows `--` (SQL) or a `#` at a word's start (shell) on each line. */
function lineComments(name: string, text: string): { line: number; text: string }[] {
  const marker = name.endsWith('.sql') ? /--(.*)$/ : /(?:^|\s)#(.*)$/;
  return text.split('\n').flatMap((line, i) => {
    const m = marker.exec(line);
    return m ? [{ line: i + 1, text: m[1] }] : [];
  });
}

/** The comment lines of one file that cite an issue by number, as "file:line: the line". */
function issueReferences(name: string, text: string): string[] {
  if (!ISSUE_REFERENCE.test(text)) return [];
  const comments = SCRIPT_KINDS[extname(name)] !== undefined ? scriptComments(name, text) : lineComments(name, text);
  return comments.flatMap((c) => c.text.split('\n').flatMap((l, i) => (ISSUE_REFERENCE.test(l) ? [`${name}:${c.line + i}: ${l.trim()}`] : [])));
}

describe('comments cite no issue by number', () => {
  it('in server/, src/, common/, scripts/, bench/ and tests/', () => {
    const root = process.cwd();
    const all = ROOTS.flatMap((r) => files(join(root, r)));
    expect(all.length).toBeGreaterThan(500);
    expect(all.flatMap((f) => issueReferences(relative(root, f), readFileSync(f, 'utf8')))).toEqual([]);
  });

  // The samples are built from parts so that this file's own comments and strings hold no reference.
  const word = 'iss' + 'ue';

  it('finds a reference in each kind of comment, with its line', () => {
    const sample = [
      'const a = 1;',
      `// as ${word} 19 asked`,
      `/**`,
      ` * a block, then ${word.toUpperCase()}S 4 and`,
      ` */`,
      `call(); /* ${word} #7 */`,
      `const b = <div>{/* ${word} 12 */}</div>;`,
    ].join('\n');
    expect(issueReferences('x.tsx', sample).map((s) => s.split(': ')[0])).toEqual(['x.tsx:2', 'x.tsx:4', 'x.tsx:6', 'x.tsx:7']);
    expect(issueReferences('m.sql', `SELECT 1; -- ${word} 3\n-- fine\nSELECT '--';`)).toEqual([`m.sql:1: ${word} 3`]);
    expect(issueReferences('t.sh', `echo hi\n# the budget of ${word} 15\nx=\${#y}`)).toEqual([`t.sh:2: the budget of ${word} 15`]);
  });

  it('lets strings, test names, code and unnumbered words through', () => {
    const sample = [
      `it('the calls of ${word} 20 on %s', () => {});`,
      `const s = "// ${word} 5", t = \`/* ${word} 6 */\`;`,
      `const status = 'issues'; // ends as "issues" with its report`,
      `const c = <p>// ${word} 8 in JSX text</p>;`,
    ].join('\n');
    expect(issueReferences('y.tsx', sample)).toEqual([]);
  });
});
