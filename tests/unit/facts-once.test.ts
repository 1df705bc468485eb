/**
 * Facts the console and the server share are declared once, in common/: a second declaration drifts from the first
 * unnoticed. (The ICCID's shape has its own check in iccid.test.ts.)
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '../..');

/** Every line of the TypeScript under the given folders that matches `re`, as file:line. */
function linesMatching(re: RegExp, dirs: string[]): string[] {
  const found: string[] = [];
  const walk = (dir: string) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (/\.(ts|tsx)$/.test(e.name))
        fs.readFileSync(p, 'utf8')
          .split('\n')
          .forEach((line, i) => re.test(line) && found.push(`${path.relative(root, p)}:${i + 1}`));
    }
  };
  for (const d of dirs) walk(path.join(root, d));
  return found;
}

describe('facts declared once', () => {
  it('a page of a list ({ items, total }) is declared in common/page.ts only', () => {
    expect(linesMatching(/^\s*(export\s+)?(interface|type)\s+Page\s*</, ['src', 'server', 'common'])).toEqual(['common/page.ts:5']);
  });
});

describe('one way to enqueue a task', () => {
  it('only server/job/task-repo.ts inserts into tasks (insertTask); every other writer calls it', () => {
    expect(linesMatching(/INSERT\s+INTO\s+tasks\b/, ['server'])).toEqual([expect.stringMatching(/^server\/job\/task-repo\.ts:\d+$/)]);
  });
});
