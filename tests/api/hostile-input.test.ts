/**
 * The hostile-input walk: every registered route (read from the app's route table, so a route added later is walked
 * without new test code) gets, field by field, values no field accepts — NUL, lone surrogates, a megabyte of text,
 * 1e308, 2^63, -1 below a minimum, 100,001 items, depth-1000 nesting, the wrong type — in its path, query and body,
 * plus bodies that are empty, not JSON, poisoned or of the wrong content type. Every answer is a 4xx that names what
 * is wrong, never a 5xx and never a success, and the database is the same afterwards. The values come from
 * fast-check, seeded, so a failure can be replayed.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../server/db/db.js';
import { fullPath, type RouteDef } from '../../server/http/route.js';
import { apiKeyFor, buildTestApp, call, DB_KINDS, DEMO, signIn, type Session, type TestApp } from '../helper.js';

type Schema = Record<string, unknown> & { type?: string | string[]; properties?: Record<string, Schema>; items?: Schema; required?: string[] };
const typesOf = (s: Schema) => ([] as string[]).concat(s.type ?? []);
const SEED = 20261123;

/** A value the schema accepts, as far as a generic walk can tell: the base every other field keeps. */
function sample(s: Schema, iccid: string): unknown {
  if (s.enum) return (s.enum as unknown[]).find((v) => v !== null);
  if ('const' in s) return s.const;
  if ('default' in s) return s.default;
  const t = typesOf(s).find((x) => x !== 'null');
  switch (t) {
    case 'boolean':
      return true;
    case 'integer':
    case 'number':
      return typeof s.minimum === 'number' ? s.minimum : 1;
    case 'array':
      return typeof s.minItems === 'number' && s.minItems > 0 ? [sample(s.items ?? {}, iccid)] : [];
    case 'object':
      return Object.fromEntries((s.required ?? []).map((k) => [k, sample(s.properties?.[k] ?? {}, iccid)]));
    case 'string': {
      if (s.format === 'date') return '2026-11-01';
      if (s.format === 'date-time') return '2026-11-01T00:00:00.000Z';
      if (s.format === 'email') return 'someone@example.com';
      if (typeof s.pattern === 'string' && new RegExp(s.pattern).test(iccid)) return iccid;
      return 'x'.repeat(Math.max(1, Number(s.minLength ?? 1)));
    }
    default:
      return 'x';
  }
}

/** Percent-encoding as a client would send it, a lone surrogate as its three bytes (which are not UTF-8). */
function encodePath(text: string): string {
  return [...text]
    .map((ch) => {
      const c = ch.charCodeAt(0);
      if (ch.length === 1 && c >= 0xd800 && c <= 0xdfff)
        return [0xe0 | (c >> 12), 0x80 | ((c >> 6) & 0x3f), 0x80 | (c & 0x3f)].map((b) => `%${b.toString(16).toUpperCase()}`).join('');
      return encodeURIComponent(ch);
    })
    .join('');
}

/** A deeply nested value: depth objects inside each other. */
const nested = (depth: number) => {
  let v: unknown = 'end';
  for (let i = 0; i < depth; i++) v = { a: v };
  return v;
};

/** Hostile values for a field, each of which its schema refuses, with a name for the report. */
function hostileValues(s: Schema, part: 'params' | 'querystring' | 'body'): Array<[string, unknown]> {
  const inPath = part === 'params';
  const types = typesOf(s);
  const out: Array<[string, unknown]> = [];
  const rnd = (arb: fc.Arbitrary<unknown>) => fc.sample(arb, { seed: SEED, numRuns: 1 })[0];
  // Text with a NUL or a lone surrogate somewhere in it (fast-check picks the text and the place).
  const around = (bad: string) => fc.tuple(fc.string({ maxLength: 8 }), fc.string({ maxLength: 8 })).map(([a, b]) => `${a}${bad}${b}`);
  out.push(['NUL', rnd(around('\u0000'))]);
  // In a query string a lone surrogate's bytes are not UTF-8 and stay the literal text %ED%A0%80: nothing to refuse.
  if (part !== 'querystring') out.push(['lone high surrogate', rnd(around('\uD800'))], ['lone low surrogate', rnd(around('\uDFFF'))]);
  if (inPath) return out;
  if (types.includes('string') && !s.enum) out.push(['1 MB of text', String(rnd(fc.constantFrom('x', 'é', '9'))).repeat(1024 * 1024)]);
  if (types.includes('integer') || types.includes('number')) {
    out.push(['1e308', 1e308], ['2^63', 2 ** 63], ['-1e308', -1e308]);
    if (typeof s.minimum === 'number' && s.minimum > -1) out.push(['-1', -1]);
    if (types.includes('integer')) out.push(['a fraction', rnd(fc.double({ min: 0.01, max: 0.99, noNaN: true }))]);
  }
  if (types.includes('array')) out.push(['100,001 items', Array.from({ length: 100_001 }, () => 'x')]);
  // (A query string holds text and lists of text only.)
  if (!types.includes('object') && part !== 'querystring') out.push(['depth-1000 nesting', nested(1000)]);
  if (!types.includes('string')) out.push(['text where another type is declared', `${rnd(fc.string({ maxLength: 12 }))}x`]);
  if (!types.includes('array') && !types.includes('object')) out.push(['a list where a scalar is declared', [1, 2, 3]]);
  return out;
}

/** How long the walk over every route may take (a vitest timeout, not a speed target). */
const WALK_TIMEOUT = 300_000;

/** Tables whose rows are not the callers' data: written by reads or by the walk's own bookkeeping. */
const VOLATILE = new Set(['challenges', 'rate_limits', 'live_events', 'schema_migrations', 'dashboard_snapshots', 'sessions', 'refresh_tokens', 'api_logs']);
/** Tables of which only some columns are the callers' data: an API key's last use is written by every public API call. */
const READ_COLUMNS: Record<string, string> = { api_keys: 'x.org_id, x.id, x.account_id, x.name, x.key_id, x.public_key, x.revoked_at, x.created_at' };

/** One digest per table: its row count and the md5 of its rows in a stable order. */
async function digest(db: Db): Promise<Record<string, string>> {
  const tables = (
    await db.query<{ name: string }>(
      `SELECT c.relname AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p') AND NOT c.relispartition ORDER BY 1`,
    )
  ).rows.map((r) => r.name);
  const out: Record<string, string> = {};
  for (const t of tables) {
    if (VOLATILE.has(t)) continue;
    const row = READ_COLUMNS[t] ? `(${READ_COLUMNS[t]})::text` : 'x::text';
    const r = await db.query<{ d: string }>(`SELECT count(*)::text || ':' || coalesce(md5(string_agg(${row}, '|' ORDER BY ${row})), '') AS d FROM "${t}" x`);
    out[t] = r.rows[0].d;
  }
  return out;
}

/** The places a route takes input, each field with its schema. */
function inputsOf(r: RouteDef): Array<{ part: 'params' | 'querystring' | 'body'; field: string; schema: Schema }> {
  const out: Array<{ part: 'params' | 'querystring' | 'body'; field: string; schema: Schema }> = [];
  for (const part of ['params', 'querystring', 'body'] as const) {
    const s = r.schema[part] as Schema | undefined;
    for (const [field, schema] of Object.entries(s?.properties ?? {})) out.push({ part, field, schema });
  }
  return out;
}

describe.each(DB_KINDS)('hostile input on %s', (kind) => {
  let t: TestApp;
  let admin: Session;
  let iccid: string;
  let before: Record<string, string>;

  beforeAll(async () => {
    // No limit of calls per minute gets in the way of a walk of thousands of calls.
    // No limit of calls per minute gets in the way of a walk of thousands of calls.
    const many = 10_000_000;
    t = await buildTestApp({ kind, config: { rateLimits: { api: many, signIn: many, captcha: many, passwordReset: many, telemetry: many } } });
    admin = await signIn(t.app, DEMO.superadmin);
    // The public API's calls are signed with an API key of the admin's, made before the digest.
    await apiKeyFor(t.app, admin);
    iccid = (
      await t.db.query<{ iccid: string }>("SELECT s.iccid FROM sims s JOIN organisations o ON o.id = s.org_id WHERE o.code = 'DEMO' ORDER BY s.iccid LIMIT 1")
    ).rows[0].iccid;
    before = await digest(t.db);
  });
  afterAll(() => t?.close());

  /** A request for r with every declared input at its sample value, then one field replaced. */
  function request(r: RouteDef, part?: 'params' | 'querystring' | 'body', field?: string, value?: unknown) {
    const params = Object.fromEntries(Object.entries((r.schema.params as Schema | undefined)?.properties ?? {}).map(([k, s]) => [k, String(sample(s, iccid))]));
    const query = Object.fromEntries(
      Object.entries((r.schema.querystring as Schema | undefined)?.properties ?? {})
        .filter(([k]) => ((r.schema.querystring as Schema).required ?? []).includes(k))
        .map(([k, s]) => [k, sample(s, iccid)]),
    );
    const body = r.schema.body ? (sample(r.schema.body as Schema, iccid) as Record<string, unknown>) : undefined;
    if (part === 'params') params[field!] = value as string;
    if (part === 'querystring') query[field!] = value;
    if (part === 'body') body![field!] = value;
    const url = fullPath(r).replace(/:(\w+)/g, (_, k: string) => encodePath(params[k]));
    // A list in a query string is its key repeated; anything else is its text.
    const qs = Object.entries(query)
      .flatMap(([k, v]) => (Array.isArray(v) ? v : [v]).map((x) => `${k}=${encodePath(typeof x === 'string' ? x : JSON.stringify(x))}`))
      .join('&');
    const payload = body !== undefined ? JSON.stringify(body) : r.method === 'GET' || r.method === 'DELETE' ? undefined : '{}';
    return call(t.app, admin, { method: r.method, url: qs ? `${url}?${qs}` : url, payload, headers: payload ? { 'content-type': 'application/json' } : {} });
  }

  /** Refused with a 4xx (never a success, never a 5xx) in the envelope, the message naming a field or the body. */
  function expectRefused(res: Awaited<ReturnType<typeof request>>, what: string) {
    expect(res.statusCode, `${what}: ${res.body.slice(0, 300)}`).toBeGreaterThanOrEqual(400);
    expect(res.statusCode, `${what}: ${res.body.slice(0, 300)}`).toBeLessThan(500);
    const body = res.json() as { status: { success: boolean; message: string }; data: { field?: string } | null };
    expect(body.status?.success, `${what}: ${res.body.slice(0, 300)}`).toBe(false);
    // A 401 or 403 comes before any input is read; anything else says what was wrong with it.
    if (res.statusCode !== 401 && res.statusCode !== 403) {
      expect(body.data?.field, `${what}: ${res.body.slice(0, 300)}`).toBeTruthy();
      expect(body.status.message, what).not.toBe('The request is not valid.');
    }
    return body;
  }

  const routes = () => t.app.routeDefs;

  it('walks every registered route', () => {
    expect(routes().length).toBeGreaterThan(80);
  });

  // Thousands of requests, one per route, field and hostile value, that grow with every route: the suite's 60 s is no
  // bound for them on a loaded two-core machine (a run took 59 s there).
  it(
    'refuses every hostile value in every field of every route, naming the field',
    async () => {
      let calls = 0;
      for (const r of routes()) {
        for (const input of inputsOf(r)) {
          for (const [name, value] of hostileValues(input.schema, input.part)) {
            const what = `${r.method} ${fullPath(r)} ${input.part}.${input.field} = ${name}`;
            const res = await request(r, input.part, input.field, value);
            const body = expectRefused(res, what);
            // Text no field may hold is refused at the edge, by the field's own name, before any rule or right.
            // (A lone surrogate in the path cannot even be decoded: the URL itself is named.)
            if ((name === 'NUL' || name.startsWith('lone')) && res.statusCode === 400)
              expect(body.data?.field, what).toBe(input.part === 'params' && name.startsWith('lone') ? 'url' : input.field);
            calls++;
          }
        }
      }
      expect(calls).toBeGreaterThan(500);
    },
    WALK_TIMEOUT,
  );

  it('refuses bodies that are empty, not JSON, poisoned, nested or of the wrong type, saying which', async () => {
    const withBody = routes().filter((r) => r.schema.body);
    expect(withBody.length).toBeGreaterThan(20);
    const cases: Array<[string, string, string, RegExp]> = [
      ['empty JSON', 'application/json', '', /A body is required/],
      ['not JSON', 'application/json', '{"a":', /not valid JSON/],
      ['__proto__', 'application/json', '{"__proto__":{"admin":true}}', /__proto__/],
      ['constructor.prototype', 'application/json', '{"constructor":{"prototype":{"admin":true}}}', /__proto__ or constructor\.prototype/],
      ['text/plain', 'text/plain', 'hello', /must be sent as JSON/],
      ['form-encoded', 'application/x-www-form-urlencoded', 'a=1', /must be sent as JSON/],
      ['a JSON list', 'application/json', '[1,2,3]', /body|Request/i],
      ['a JSON string with a NUL', 'application/json', '"\\u0000"', /NUL/],
    ];
    for (const r of withBody) {
      for (const [name, type, payload, message] of cases) {
        const res = await call(t.app, admin, { method: r.method, url: fullPath(r).replace(/:(\w+)/g, 'x1'), payload, headers: { 'content-type': type } });
        const what = `${r.method} ${fullPath(r)} ${name}`;
        const body = expectRefused(res, what);
        if (res.statusCode !== 403) expect(body.status.message, what).toMatch(message);
      }
    }
  });

  it('random hostile bodies (fast-check) are refused and never crash a route', async () => {
    const withBody = routes().filter((r) => r.schema.body);
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...withBody),
        // Any JSON object with at least one key no schema declares, or a declared key with the wrong kind of value.
        fc.dictionary(
          fc.string({ minLength: 1, maxLength: 12 }).map((k) => `${k}\u0000`),
          fc.jsonValue({ maxDepth: 3 }),
          { minKeys: 1, maxKeys: 4 },
        ),
        async (r, extra) => {
          const res = await call(t.app, admin, {
            method: r.method,
            url: fullPath(r).replace(/:(\w+)/g, 'x1'),
            payload: JSON.stringify(extra),
            headers: { 'content-type': 'application/json' },
          });
          expectRefused(res, `${r.method} ${fullPath(r)} ${JSON.stringify(extra).slice(0, 80)}`);
        },
      ),
      { seed: SEED, numRuns: 150 },
    );
  });

  it('leaves the database as it was', async () => {
    expect(await digest(t.db)).toEqual(before);
  });
});
