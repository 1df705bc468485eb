/**
 * SQL stays in repositories (docs/STYLE: "SQL stays in repositories"): no file that declares routes (server/**\/*-routes.ts,
 * server/**\/routes.ts, and any other that calls defineRoutes or makes a RouteDef) runs a query or holds a statement;
 * its handlers call named functions of the feature's repository (server/<feature>/*-repo.ts).
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');

/** What a route file must not hold: a call that runs SQL, or a statement's keywords. */
const SQL_SHAPES: Array<[string, RegExp]> = [
  ['a query call', /\.(query|exec)\s*(<[^()]*>)?\s*\(/],
  ['a cursor', /\b(readCursor|copyOut)\s*\(|\.cursor\s*(<[^()]*>)?\s*\(/],
  ['SELECT', /\bSELECT\b/],
  ['INSERT INTO', /\bINSERT\s+INTO\b/],
  ['UPDATE … SET', /\bUPDATE\s+\w+(\s+\w+)?\s+SET\b/],
  ['DELETE FROM', /\bDELETE\s+FROM\b/],
  ['a row lock', /\bFOR\s+(UPDATE|SHARE)\b/],
  ['a WHERE clause', /\bWHERE\b/],
  ['a parameter in a condition', /\$\d+(::\w+)?\s+(IS\s+NULL|=)|=\s*\$\d+\b/],
];

/** What declares routes: a call of defineRoutes, or a function that makes a route (a route factory). */
const DECLARES_ROUTES = /\bdefineRoutes\s*\(|\)\s*:\s*RouteDef(\[\])?\s*\{/;

/**
 * Every file under server/ that declares routes, as a path from the repository's root: the route files by name, and
 * any other file that calls defineRoutes or makes a RouteDef (the route table itself, server/http/route.ts, aside).
 */
function routeFiles(): string[] {
  return (fs.readdirSync(path.join(ROOT, 'server'), { recursive: true }) as string[])
    .map((f) => path.join('server', f).split(path.sep).join('/'))
    .filter((f) => f.endsWith('.ts') && f !== 'server/http/route.ts')
    .filter((f) => /(^|\/)([a-z0-9-]+-)?routes\.ts$/.test(f) || DECLARES_ROUTES.test(fs.readFileSync(path.join(ROOT, f), 'utf8')))
    .sort();
}

/** The SQL shapes a source holds, each with its first line (comments aside: they may name a statement). */
export function sqlIn(source: string): string[] {
  const code = source.replace(/\/\*[\s\S]*?\*\//g, (c) => c.replace(/[^\n]/g, ' ')).replace(/(^|[^:'"`])\/\/.*$/gm, '$1');
  const lines = code.split('\n');
  const found: string[] = [];
  for (const [name, shape] of SQL_SHAPES) {
    const at = lines.findIndex((l) => shape.test(l));
    if (at >= 0) found.push(`${name} (line ${at + 1})`);
  }
  return found;
}

describe('route files hold no SQL', () => {
  const files = routeFiles();

  it('finds the route files', () => {
    expect(files.length).toBeGreaterThan(20);
    expect(files).toContain('server/identity/routes.ts');
  });

  it.each(files)('%s calls its repository instead of running SQL', (file) => {
    expect(sqlIn(fs.readFileSync(path.join(ROOT, file), 'utf8'))).toEqual([]);
  });

  it.each([
    ['a query call', "const r = await req.server.db.query<{ n: number }>('SELECT 1', []);"],
    ['a transaction query', 'await q.query(sql, params);'],
    ['an UPDATE in a template', 'const s = `UPDATE sims SET status = $2 WHERE id = $1`;'],
    ['a condition fragment', "where: ['($4::int IS NULL OR http_code = $4)'],"],
    ['a cursor', 'await readCursor(db, sql, params, 1000, onRows);'],
  ])('sees %s', (_name, line) => {
    expect(sqlIn(line)).not.toEqual([]);
  });

  it.each([
    ['an HTTP method', "method: 'DELETE',"],
    ['a comment naming a statement', '// a SELECT … FOR UPDATE in the repository locks the row'],
    ['a repository call', 'const sim = await simByIccid(q, auth.orgId, iccid);'],
    ['a querystring schema', 'schema: { querystring: simQuery() },'],
  ])('passes %s', (_name, line) => {
    expect(sqlIn(line)).toEqual([]);
  });
});
