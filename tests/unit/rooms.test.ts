/**
 * The three rooms: the server (server/) and the console (src/) share only common/; common/ imports neither.
 * A server file that imported the console's src/locales would ship the console's words into the server and tie them.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const files = (dir: string): string[] =>
  fs
    .readdirSync(dir, { withFileTypes: true })
    .flatMap((e) => (e.isDirectory() ? files(path.join(dir, e.name)) : /\.tsx?$/.test(e.name) ? [path.join(dir, e.name)] : []));

/** The rooms a file's relative imports reach (static, dynamic, import.meta.glob). */
function roomsReached(file: string): string[] {
  const text = fs.readFileSync(file, 'utf8');
  const specifiers = [...text.matchAll(/(?:from\s+|import\s*\(\s*|import\.meta\.glob(?:<[^>]*>)?\(\s*)['"](\.{1,2}\/[^'"]+)['"]/g)].map((m) => m[1]);
  return specifiers.map((s) => path.relative('.', path.resolve(path.dirname(file), s)).split(path.sep)[0]);
}

describe.each([
  ['server', ['src']],
  ['src', ['server']],
  ['common', ['src', 'server']],
])('%s', (room, forbidden) => {
  it(`imports nothing from ${forbidden.join(' or ')}`, () => {
    const offenders = files(room).flatMap((file) =>
      roomsReached(file)
        .filter((r) => forbidden.includes(r))
        .map((r) => `${file} -> ${r}/`),
    );
    expect(offenders).toEqual([]);
  });
});
