/** Every installed package runs on the oldest Node the project says it needs (package.json engines, README). */
import fs from 'node:fs';
import semver from 'semver';
import { describe, expect, it } from 'vitest';

const pkg = JSON.parse(fs.readFileSync('package.json', 'utf8')) as { engines: { node: string } };
const lock = JSON.parse(fs.readFileSync('package-lock.json', 'utf8')) as { packages: Record<string, { engines?: { node?: string } | string[] }> };

describe('Node engines', () => {
  it('package.json names the oldest Node it runs on, on the 20 line', () => {
    expect(semver.minVersion(pkg.engines.node)?.major).toBe(20);
  });

  it('no locked package wants a newer Node than that (npm install would warn EBADENGINE)', () => {
    const floor = semver.minVersion(pkg.engines.node)!.version;
    const refused = Object.entries(lock.packages)
      .filter(([name, p]) => name && p.engines && !Array.isArray(p.engines) && p.engines.node && !semver.satisfies(floor, p.engines.node))
      .map(([name, p]) => `${name} wants ${(p.engines as { node: string }).node}`);
    expect(refused).toEqual([]);
  });
});
