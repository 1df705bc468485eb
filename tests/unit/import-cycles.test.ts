/**
 * No module of the server, the console or common/ imports itself back through others (type-only imports included:
 * a cycle of types still ties two files' changes together). Two files that need each other's parts share a third.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '../..');
const IMPORT = /^\s*(?:import|export)\s[^'"]*?from\s+['"](\.{1,2}\/[^'"]+)['"]/gm;

function sourcesUnder(dir: string): string[] {
  return (fs.readdirSync(path.join(root, dir), { recursive: true }) as string[])
    .filter((f) => /\.(ts|tsx)$/.test(f) && !f.endsWith('.d.ts'))
    .map((f) => path.join(dir, f).split(path.sep).join('/'));
}

/** The file a relative import names (its .js written for .ts, or no extension at all in the console). */
function resolve(from: string, spec: string): string | null {
  const base = path.posix.normalize(path.posix.join(path.posix.dirname(from), spec)).replace(/\.js$/, '');
  for (const c of [`${base}.ts`, `${base}.tsx`, `${base}/index.ts`, `${base}/index.tsx`]) if (fs.existsSync(path.join(root, c))) return c;
  return null;
}

/** The import graph and its cycles, each named by the files on it. */
export function cyclesIn(files: string[]): string[][] {
  const edges = new Map<string, string[]>();
  for (const f of files) {
    const text = fs.readFileSync(path.join(root, f), 'utf8');
    edges.set(
      f,
      [...text.matchAll(IMPORT)].map((m) => resolve(f, m[1])).filter((x): x is string => x !== null),
    );
  }
  const cycles: string[][] = [];
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (f: string) => {
    state.set(f, 'open');
    stack.push(f);
    for (const g of edges.get(f) ?? []) {
      if (state.get(g) === 'open') cycles.push(stack.slice(stack.indexOf(g)).concat(g));
      else if (!state.has(g)) visit(g);
    }
    stack.pop();
    state.set(f, 'done');
  };
  for (const f of files) if (!state.has(f)) visit(f);
  return cycles;
}

describe('import cycles', () => {
  const files = ['server', 'src', 'common'].flatMap(sourcesUnder);

  it('reads the import graph', () => {
    expect(files.length).toBeGreaterThan(200);
  });

  it('none in the server, the console or common/', () => {
    expect(cyclesIn(files).map((c) => c.join(' -> '))).toEqual([]);
  });
});
