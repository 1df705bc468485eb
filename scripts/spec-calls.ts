/**
 * Which calls of SPEC.md section 7 are not routes of the server. Usage:
 *   npx tsx scripts/spec-calls.ts [path/to/SPEC.md]
 * Without a path it reads tests/fixtures/spec-section7.md (section 7 as SPEC.md wrote it). Prints the calls with no
 * route, each with its recorded exception (scripts/spec-call-exceptions.ts) or "NOT ANSWERED", and the fragments the
 * parser could not read as a method and a path (read them by hand).
 */
import fs from 'node:fs';
import { ALL_ROUTES } from '../server/routes.js';
import { SPEC_CALL_EXCEPTIONS } from './spec-call-exceptions.js';
import { missingCalls, normalise, parseSection7 } from './spec-calls-lib.js';

const file = process.argv[2] ?? 'tests/fixtures/spec-section7.md';
let text = fs.readFileSync(file, 'utf8');
const start = text.indexOf('## 7.');
if (start > 0) text = text.slice(start, text.indexOf('## 8.', start) > 0 ? text.indexOf('## 8.', start) : undefined);
const { calls, unparsed } = parseSection7(text);
const routes = ALL_ROUTES.map((r) => ({ method: r.method, path: r.path }));
const missing = missingCalls(calls, routes);
console.log(`SPEC.md section 7: ${calls.length} calls read, ${calls.length - missing.length} answered by a route, ${missing.length} not.\n`);
for (const c of missing) {
  const why = SPEC_CALL_EXCEPTIONS[`${c.method} ${normalise(c.path)}`];
  console.log(`| ${c.group} | ${c.method} ${c.path} | ${why ?? 'NOT ANSWERED'} |`);
}
const stale = Object.keys(SPEC_CALL_EXCEPTIONS).filter((k) => !missing.some((c) => `${c.method} ${normalise(c.path)}` === k));
if (stale.length) console.log(`\nExceptions no longer needed (a route answers them now): ${stale.join(', ')}`);
console.log(`\nRead by hand (no path of their own): ${unparsed.map((u) => `${u.group}: ${u.text}`).join(' | ')}`);
process.exitCode = missing.some((c) => !SPEC_CALL_EXCEPTIONS[`${c.method} ${normalise(c.path)}`]) ? 1 : 0;
