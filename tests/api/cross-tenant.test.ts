/**
 * Tenant walls. The admin of Other Customer Ltd calls every route that takes an id with Demo
 * Logistics' real ids (ICCIDs, accounts, organisations, tasks, pools, invoices, reports, CDRs, …) in its path, its
 * query and its body, and learns nothing of Demo: no answer differs from the answer to an id that does not exist, no
 * 2xx carries Demo's data, nothing answers 5xx, and Demo's rows are the same afterwards. The walk reads the route
 * table and each route's declared schemas, so a route added later is walked without new test code.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { isValidIccid, luhnCheckDigit } from '../../common/iccid.js';
import type { Db } from '../../server/db/db.js';
import { loadConfig } from '../../server/config.js';
import { fullPath, type RouteDef } from '../../server/http/route.js';
import { ALL_ROUTES } from '../../server/routes.js';
import { call, countRows, DB_KINDS, DEMO, type Session, signedInSuite, signIn, type TestApp } from '../helper.js';

const OTHER_ADMIN = 'admin@other.example.com';
const INVITE = '/api/identity/info/cube/invites';
const ACCOUNTS = '/api/main/partner/OTHER/accounts';

/** The tokens of the answer's envelope that say what happened. */
const outcome = (res: { statusCode: number; body: string }) => {
  let status: { code?: string; message?: string } = {};
  try {
    status = (JSON.parse(res.body) as { status?: typeof status }).status ?? {};
  } catch {
    // A raw answer (a file, a stream) has no envelope.
  }
  return { statusCode: res.statusCode, code: status.code, message: status.message };
};

describe.each(DB_KINDS)('invitation privacy on %s', (kind) => {
  const suite = signedInSuite(kind, { other: OTHER_ADMIN });

  const invitee = async () => {
    const res = await call(suite.t.app, suite.other, { method: 'GET', url: ACCOUNTS });
    expect(res.statusCode).toBe(200);
    return { body: res.body, row: (res.json().data.items as Array<Record<string, unknown>>).find((a) => a.email === DEMO.admin) };
  };

  it('the inviting organisation sees only the e-mail address and its invitation, not the person’s names, status or activity', async () => {
    const res = await call(suite.t.app, suite.other, { method: 'POST', url: INVITE, payload: { email: DEMO.admin, role: 'user' } });
    expect(res.statusCode).toBe(200);
    // The invitee goes on using their own account: the inviting organisation must not watch it.
    await signIn(suite.t.app, DEMO.admin);
    await signIn(suite.t.app, DEMO.admin);
    const { body, row } = await invitee();
    expect(row).toMatchObject({
      id: 'acc-admin',
      email: DEMO.admin,
      role: 'user',
      status: 'invited',
      pendingInvite: true,
      firstName: null,
      lastName: null,
      locale: null,
      oversight: false,
      createdAt: null,
      lastSignInAt: null,
      loginsCount: null,
    });
    expect(Date.now() - Date.parse(String(row!.invitedAt))).toBeLessThan(60_000);
    expect(body).not.toContain('Adam');
    const detail = await call(suite.t.app, suite.other, { method: 'GET', url: `${ACCOUNTS}/acc-admin` });
    expect(detail.json().data).toEqual(row);
  });

  it('the invitee’s names do not match the inviting organisation’s search', async () => {
    const byName = await call(suite.t.app, suite.other, { method: 'GET', url: `${ACCOUNTS}?search=adam` });
    expect(byName.json().data.total).toBe(0);
    const byMail = await call(suite.t.app, suite.other, { method: 'GET', url: `${ACCOUNTS}?search=admin%40demo` });
    expect(byMail.json().data.total).toBe(1);
  });

  it('changing the role offered answers the invitation, not the person; their names stay out of reach', async () => {
    const role = await call(suite.t.app, suite.other, { method: 'PUT', url: '/api/main/accounts/acc-admin', payload: { role: 'operator' } });
    expect(role.statusCode, role.body).toBe(200);
    expect(role.json().data).toMatchObject({ role: 'operator', status: 'invited', firstName: null, lastSignInAt: null });
    expect(role.body).not.toContain('Adam');
    const names = await call(suite.t.app, suite.other, { method: 'PUT', url: '/api/main/accounts/acc-admin', payload: { firstName: 'Hijacked' } });
    expect(names.statusCode).toBe(403);
    for (const url of ['/api/main/change_status/accounts/acc-admin', '/api/main/reset_password/accounts/acc-admin']) {
      const res = await call(suite.t.app, suite.other, { method: 'PATCH', url, payload: url.includes('status') ? { status: 'disabled' } : undefined });
      expect(res.statusCode, url).toBe(403);
    }
    const audit = await call(suite.t.app, suite.other, { method: 'GET', url: '/api/main/audit/logs?pageSize=100' });
    expect(audit.body).not.toContain('Adam');
    expect((await suite.t.db.query("SELECT first_name, status FROM accounts WHERE id = 'acc-admin'")).rows[0]).toEqual({
      first_name: 'Adam',
      status: 'active',
    });
  });

  it('managing an invitation answers alike for another customer’s superadmin and for a new address', async () => {
    const fresh = 'fresh.person@example.com';
    const accountRow = async (id: string) => (await suite.t.db.query('SELECT x::text AS row FROM accounts x WHERE id = $1', [id])).rows[0];
    const before = await accountRow('acc-superadmin');
    for (const email of [DEMO.superadmin, fresh])
      expect((await call(suite.t.app, suite.other, { method: 'POST', url: INVITE, payload: { email, role: 'user' } })).statusCode).toBe(200);
    const ids = (
      await suite.t.db.query<{ id: string }>('SELECT id FROM accounts WHERE email = ANY($1) ORDER BY email = $2', [[DEMO.superadmin, fresh], fresh])
    ).rows.map((r) => r.id);
    const answers = [];
    for (const id of ids) {
      const tried = [
        await call(suite.t.app, suite.other, { method: 'PUT', url: `/api/main/accounts/${id}`, payload: { role: 'operator' } }),
        await call(suite.t.app, suite.other, { method: 'PUT', url: `/api/main/accounts/${id}`, payload: { firstName: 'Renamed' } }),
        await call(suite.t.app, suite.other, { method: 'PATCH', url: `/api/main/change_status/accounts/${id}`, payload: { status: 'disabled' } }),
        await call(suite.t.app, suite.other, { method: 'PATCH', url: `/api/main/reset_password/accounts/${id}` }),
        await call(suite.t.app, suite.other, { method: 'PUT', url: `/api/main/accounts/oversight/${id}`, payload: { oversight: true } }),
      ];
      answers.push(tried.map((res) => `${res.statusCode} ${res.json().status.code}`));
      expect(tried[0].json().data).toMatchObject({ role: 'operator', status: 'invited', firstName: null });
    }
    expect(answers[0]).toEqual(answers[1]);
    expect(answers[0]).toEqual(['200 CB-00-0000', '403 0134', '403 0134', '403 0134', '403 0134']);
    expect(await accountRow('acc-superadmin')).toEqual(before);
  });

  it('once the invitation is accepted the person is a member, shown in full', async () => {
    const mail = (await suite.t.db.query<{ body: string }>('SELECT body FROM outbox WHERE to_address = $1 ORDER BY id DESC LIMIT 1', [DEMO.admin])).rows[0]
      .body;
    const token = /token=([\w-]+)/.exec(mail)![1];
    const demoAdmin = await signIn(suite.t.app, DEMO.admin);
    expect((await call(suite.t.app, demoAdmin, { method: 'POST', url: '/api/identity/accept/info/cube/invites', payload: { token } })).statusCode).toBe(200);
    const { row } = await invitee();
    expect(row).toMatchObject({ firstName: 'Adam', lastName: 'Admin', status: 'active', pendingInvite: false, invitedAt: null });
    expect(row!.loginsCount).toBeGreaterThan(0);
  });
});

describe.each(DB_KINDS)('organisation names on %s', (kind) => {
  const suite = signedInSuite(kind, { other: OTHER_ADMIN, demoAdmin: DEMO.admin });

  const create = (s: Session, name: string, partnerCode?: string) =>
    call(suite.t.app, s, {
      method: 'POST',
      url: '/api/main/orgs',
      payload: { name, country: 'GB', smsQuota: 10 },
      headers: partnerCode ? { partnercode: partnerCode, tenantid: partnerCode } : {},
    });

  it('another customer’s organisation name is free in my own tree', async () => {
    const res = await create(suite.other, 'Demo Logistics North');
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toMatchObject({ name: 'Demo Logistics North', parentCode: 'OTHER' });
  });

  it('a rename to another customer’s organisation name succeeds', async () => {
    const mine = (await create(suite.other, 'Other Depot West')).json().data as { id: string };
    const res = await call(suite.t.app, suite.other, { method: 'POST', url: `/api/main/orgs/${mine.id}`, payload: { name: 'Demo Logistics South' } });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data.name).toBe('Demo Logistics South');
  });

  it('a name taken in my own tree answers 0135, in any case, on create and on rename', async () => {
    expect((await create(suite.other, 'demo logistics NORTH')).json().status.code).toBe('0135');
    expect((await create(suite.demoAdmin, 'Demo Logistics South')).json().status.code).toBe('0135');
    const mine = (await create(suite.other, 'Other Depot East')).json().data as { id: string };
    const rename = await call(suite.t.app, suite.other, { method: 'POST', url: `/api/main/orgs/${mine.id}`, payload: { name: 'Demo Logistics North' } });
    expect(rename.json().status.code).toBe('0135');
    expect(await countRows(suite.t.db, 'organisations', "lower(name) = 'demo logistics north'")).toBe(2);
  });

  it('two creations of one name at once in one tree: one wins, the other answers 0135', async () => {
    const superadmin = await signIn(suite.t.app, DEMO.superadmin);
    // Under two different parents of one tree, so that no parent's lock puts them in a queue: the index decides.
    const answers = await Promise.all([create(superadmin, 'Race Depot', 'DEMO'), create(superadmin, 'Race Depot', 'DEMO-NORTH')]);
    expect(answers.map((a) => a.statusCode).sort()).toEqual([200, 400]);
    expect(answers.map((a) => a.json().status.code).sort()).toEqual(['0135', 'CB-00-0000']);
    expect(await countRows(suite.t.db, 'organisations', "name = 'Race Depot'")).toBe(1);
  });
});

// ---------------------------------------------------------------------------------------------------------------
// The walk.

type Value = string | number;
interface Slot {
  where: 'params' | 'query' | 'body';
  name: string;
  schema: JsonSchema;
}
interface JsonSchema {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  enum?: unknown[];
  const?: unknown;
  default?: unknown;
  format?: string;
  pattern?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  minItems?: number;
  minProperties?: number;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
}

/** A query or body field that names a record: an id, a code, an ICCID, a key, an e-mail, or a search for one. */
const ID_FIELD = /^(id|ids|iccid|iccids|code|org|orgCode|email|selected|search|token|userId)$|Ids?$|Codes?$/;

/** The id-taking inputs of a route, from its declared schemas. */
function slotsOf(r: RouteDef): Slot[] {
  const slots: Slot[] = [];
  const params = (r.schema.params as JsonSchema | undefined)?.properties ?? {};
  for (const m of fullPath(r).matchAll(/:(\w+)/g)) slots.push({ where: 'params', name: m[1], schema: params[m[1]] ?? { type: 'string' } });
  for (const where of ['query', 'body'] as const) {
    const s = (where === 'query' ? r.schema.querystring : r.schema.body) as JsonSchema | undefined;
    for (const [name, schema] of Object.entries(s?.properties ?? {})) if (ID_FIELD.test(name)) slots.push({ where, name, schema });
  }
  // A choice among fixed words (a file format, an upload type) or a structured filter names no record.
  return slots.filter((slot) => !slot.schema.enum && typeOf(slot.schema) !== 'object');
}

const typeOf = (s: JsonSchema) => (Array.isArray(s.type) ? s.type.find((x) => x !== 'null') : s.type);

const SAMPLE_STRINGS = ['Walk Test Org', 'DE', '2026-01', '2026-01-01', 'Walk#2026', 'walk', 'x'];
/** A small valid value for a schema (required fields only), so that a request reaches its handler. */
function sample(s: JsonSchema | undefined): unknown {
  if (!s) return 'x';
  if ('const' in s) return s.const;
  if (s.enum) return s.enum[0];
  if (s.default !== undefined) return s.default;
  if (s.anyOf || s.oneOf) return sample((s.anyOf ?? s.oneOf)![0]);
  switch (typeOf(s)) {
    case 'object': {
      const names = s.required ?? [];
      // "At least one field": the first declared ones.
      const extra = Object.keys(s.properties ?? {})
        .filter((k) => !names.includes(k))
        .slice(0, Math.max(0, (s.minProperties ?? 0) - names.length));
      return Object.fromEntries([...names, ...extra].map((k) => [k, sample(s.properties?.[k])]));
    }
    case 'array':
      return Array.from({ length: s.minItems ?? 0 }, () => sample(s.items));
    case 'integer':
    case 'number':
      return s.minimum ?? 1;
    case 'boolean':
      return false;
    default: {
      if (s.format === 'date-time') return new Date().toISOString();
      if (s.format === 'date') return '2026-01-01';
      if (s.format === 'email') return 'walk@example.com';
      const re = s.pattern ? new RegExp(s.pattern, 'u') : null;
      const fits = SAMPLE_STRINGS.find((c) => c.length >= (s.minLength ?? 0) && c.length <= (s.maxLength ?? 1000) && (!re || re.test(c)));
      return fits ?? 'x'.repeat(Math.max(1, s.minLength ?? 1));
    }
  }
}

/** A value of the slot's shape: a number where a number is declared, a list where a list is. */
function shaped(slot: Slot, v: Value): unknown {
  const type = typeOf(slot.schema);
  if (type === 'array') {
    const itemType = slot.schema.items ? typeOf(slot.schema.items) : 'string';
    return [itemType === 'integer' || itemType === 'number' ? Number(v) : String(v)];
  }
  if (type === 'integer' || type === 'number') return Number(v);
  return String(v);
}

/**
 * The same value for a record that does not exist: the first half kept, the rest shifted (digits and letters by an
 * amount that depends on the salt, so that one route's twins are not another's), an ICCID's check digit made right
 * again, so it passes the same validation as the real one.
 */
function twinOf(v: Value, salt: number): Value {
  if (typeof v === 'number') return v + 1_000_000_000 * (salt + 1);
  const [digits, letters] = [1 + ((4 + salt) % 9), 1 + ((12 + salt) % 25)];
  const keep = Math.ceil(v.length / 2);
  const rotate = (c: string, base: number, n: number, by: number) => String.fromCharCode(((c.charCodeAt(0) - base + by) % n) + base);
  const shifted = [...v.slice(keep)]
    .map((c) => (/[0-9]/.test(c) ? rotate(c, 48, 10, digits) : /[a-z]/.test(c) ? rotate(c, 97, 26, letters) : /[A-Z]/.test(c) ? rotate(c, 65, 26, letters) : c))
    .join('');
  const out = v.slice(0, keep) + shifted;
  return isValidIccid(v) ? out.slice(0, -1) + String(luhnCheckDigit(out.slice(0, -1))) : out;
}

/** Demo's real ids, one or two of each kind, read from the database. */
async function demoIds(db: Db): Promise<Value[]> {
  const first = async (sql: string, n = 1) => (await db.query<{ v: string }>(`${sql} LIMIT ${n}`)).rows.map((r) => String(r.v));
  const tree = "(SELECT id FROM organisations WHERE root_id = 'org-demo')";
  const values = [
    ...(await first(`SELECT id AS v FROM organisations WHERE id IN ${tree} ORDER BY level, id`, 2)),
    ...(await first(`SELECT code AS v FROM organisations WHERE id IN ${tree} ORDER BY level, id`, 2)),
    'acc-admin',
    'acc-user',
    DEMO.admin,
    ...(await first(`SELECT iccid AS v FROM sims WHERE org_id IN ${tree} ORDER BY iccid`, 2)),
    ...(await first(`SELECT id AS v FROM sims WHERE org_id IN ${tree} ORDER BY id`)),
    ...(await first(`SELECT id AS v FROM shared_pools WHERE org_id IN ${tree} ORDER BY id`)),
    ...(await first(`SELECT id AS v FROM tasks WHERE org_id IN ${tree} ORDER BY id`)),
    ...(await first(`SELECT id AS v FROM invoices WHERE org_id IN ${tree} ORDER BY id`)),
    ...(await first(`SELECT bill_id AS v FROM invoices WHERE org_id IN ${tree} ORDER BY id`)),
    ...(await first(`SELECT id AS v FROM reports WHERE org_id IN ${tree} ORDER BY id`)),
    ...(await first(`SELECT id AS v FROM files WHERE org_id IN ${tree} ORDER BY id`)),
    ...(await first(`SELECT id AS v FROM bundle_orders WHERE org_id IN ${tree} ORDER BY id`)),
    ...(await first(`SELECT id AS v FROM autoflow_rules WHERE org_id IN ${tree} ORDER BY id`)),
    ...(await first(`SELECT id AS v FROM sms_records WHERE org_id IN ${tree} ORDER BY id`)),
    ...(await first(`SELECT id::text AS v FROM cdrs WHERE org_id IN ${tree} ORDER BY id`)),
    ...(await first(`SELECT id AS v FROM notification_keys WHERE org_id IN ${tree} ORDER BY id`)),
    ...(await first(`SELECT id::text AS v FROM notification_logs WHERE org_id IN ${tree} ORDER BY id`)),
  ];
  return [...new Set(values)];
}

/** A multipart body as a browser sends it. */
async function form(fields: Record<string, string>, file: { name: string; bytes: Buffer }) {
  const fd = new FormData();
  for (const [k, v] of Object.entries(fields)) fd.append(k, v);
  fd.append('file', new Blob([new Uint8Array(file.bytes)]), file.name);
  const req = new Request('http://local/', { method: 'POST', body: fd });
  return { payload: Buffer.from(await req.arrayBuffer()), headers: { 'content-type': req.headers.get('content-type')! } };
}

/** What identifies Demo in an answer: its ICCIDs, organisation names and codes, people's e-mails and names, pool names. */
async function demoMarks(db: Db): Promise<string[]> {
  const tree = "(SELECT id FROM organisations WHERE root_id = 'org-demo')";
  const col = async (sql: string) => (await db.query<{ v: string }>(sql)).rows.map((r) => r.v);
  return [
    ...(await col(`SELECT iccid AS v FROM sims WHERE org_id IN ${tree}`)),
    ...(await col(`SELECT name AS v FROM organisations WHERE id IN ${tree}`)),
    ...(await col(`SELECT code AS v FROM organisations WHERE id IN ${tree}`)),
    ...(await col(`SELECT DISTINCT a.email AS v FROM accounts a JOIN memberships m ON m.account_id = a.id WHERE m.org_id IN ${tree}`)),
    ...(await col(
      `SELECT DISTINCT a.first_name || ' ' || a.last_name AS v FROM accounts a JOIN memberships m ON m.account_id = a.id WHERE m.org_id IN ${tree}`,
    )),
    ...(await col(`SELECT name AS v FROM shared_pools WHERE org_id IN ${tree}`)),
  ];
}

/** A digest of every Demo-owned row: each table with an org_id, plus Demo's organisations and accounts. */
async function demoDigest(db: Db): Promise<Record<string, string>> {
  const tree = "(SELECT id FROM organisations WHERE root_id = 'org-demo')";
  const tables = (
    await db.query<{ t: string }>(
      `SELECT c.relname AS t FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p') AND NOT c.relispartition AND a.attname = 'org_id' AND NOT a.attisdropped ORDER BY 1`,
    )
  ).rows.map((r) => r.t);
  const sources: Record<string, string> = Object.fromEntries(tables.map((name) => [name, `SELECT x::text AS r FROM ${name} x WHERE x.org_id IN ${tree}`]));
  sources.organisations = `SELECT x::text AS r FROM organisations x WHERE x.id IN ${tree}`;
  sources.accounts = `SELECT x::text AS r FROM accounts x WHERE x.id IN (SELECT account_id FROM memberships WHERE org_id IN ${tree})`;
  const digest: Record<string, string> = {};
  for (const [name, sql] of Object.entries(sources)) {
    digest[name] = (await db.query<{ d: string }>(`SELECT md5(coalesce(string_agg(r, '|' ORDER BY r), '')) AS d FROM (${sql}) s`)).rows[0].d;
  }
  return digest;
}

/** The shape of an answer's data: keys, list lengths and value types, never the values (which differ by id and time). */
function shapeOf(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(shapeOf);
  if (v && typeof v === 'object')
    return Object.fromEntries(
      Object.entries(v)
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([k, x]) => [k, shapeOf(x)]),
    );
  return v === null ? 'null' : typeof v;
}
const dataOf = (body: string) => {
  try {
    return (JSON.parse(body) as { data?: unknown }).data;
  } catch {
    return body.length;
  }
};

interface WalkCall {
  method: RouteDef['method'];
  url: string;
  query?: Record<string, string | string[]>;
  payload?: Record<string, unknown>;
}

/**
 * The requests of one route, each with its twin: each id slot takes each of Demo's ids, the route's other path
 * parameters being either the caller's own organisation code or Demo's, and required fields a valid sample, so that a
 * call reaches the handler. The twin is the same request with the Demo values (the id and a Demo code filler) swapped
 * for values of the same shape that name nothing.
 */
function requestsOf(r: RouteDef, ids: Value[], demoCode: string, salt: number): Array<{ real: WalkCall; twin: WalkCall }> {
  const slots = slotsOf(r);
  const params = slots.filter((s) => s.where === 'params');
  const queryBase = (r.schema.querystring ? sample(r.schema.querystring as JsonSchema) : undefined) as Record<string, unknown> | undefined;
  const bodyBase = r.schema.body ? (sample(r.schema.body as JsonSchema) as Record<string, unknown>) : undefined;
  const build = (slot: Slot, v: Value, filler: string): WalkCall => {
    const path = fullPath(r).replace(/:(\w+)/g, (_, p: string) => encodeURIComponent(slot.where === 'params' && p === slot.name ? String(v) : filler));
    const query = queryBase || slot.where === 'query' ? { ...(queryBase ?? {}) } : undefined;
    const payload = bodyBase ? { ...bodyBase } : undefined;
    if (slot.where === 'query') query![slot.name] = shaped(slot, v);
    if (slot.where === 'body') payload![slot.name] = shaped(slot, v);
    return {
      method: r.method,
      url: path,
      query: query && Object.fromEntries(Object.entries(query).map(([k, x]) => [k, Array.isArray(x) ? x.map(String) : String(x)])),
      payload,
    };
  };
  const out: Array<{ real: WalkCall; twin: WalkCall }> = [];
  for (const slot of slots) {
    for (const v of ids) {
      for (const filler of params.length > 1 ? ['OTHER', demoCode] : ['OTHER']) {
        out.push({ real: build(slot, v, filler), twin: build(slot, twinOf(v, salt), filler === 'OTHER' ? filler : String(twinOf(filler, salt))) });
      }
    }
  }
  return out;
}

/** Run every waiting task (the walk's exports and activations run as jobs, and must not touch Demo either). */
async function drainJobs(t: TestApp): Promise<void> {
  for (let i = 0; i < 1000 && (await t.app.jobs.runOnce()); i++);
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** Replace every one of the strings in one pass, longest first, so an id inside another (DEMO in DEMO-NORTH) is taken whole. */
function replaceAll(text: string, pairs: Array<[string, string]>): string {
  const sorted = pairs.filter(([from]) => from.length > 0).sort(([a], [b]) => b.length - a.length);
  if (sorted.length === 0) return text;
  const map = new Map(sorted);
  return text.replace(new RegExp(sorted.map(([from]) => escape(from)).join('|'), 'g'), (m) => map.get(m)!);
}

/** A message with the ids the caller sent put back to one placeholder, so a named id does not count as a difference. */
function normalise(message: string | undefined, ids: Value[], salt: number): string | undefined {
  return message === undefined
    ? undefined
    : replaceAll(
        message,
        ids.flatMap((v): Array<[string, string]> => [
          [String(v), '<id>'],
          [String(twinOf(v, salt)), '<id>'],
        ]),
      );
}

// Public routes answer everyone by design (sign-in, a download by its one-time token); the walk is about a signed-in
// tenant reaching another's records. Inviting a Demo person is allowed (it is its own named case above) and is walked
// last, so the invitation it leaves does not change what the other routes answer.
const WALKED = ALL_ROUTES.filter((r) => r.permission !== 'public' && slotsOf(r).length > 0).sort(
  (a, b) => Number(fullPath(a) === INVITE && a.method === 'POST') - Number(fullPath(b) === INVITE && b.method === 'POST'),
);

/**
 * Answers the product itself gives for another tenant's id, each with its reason. New account (SPEC.md section 8:
 * "Account already registered! Proceed to invite.") tells an admin that an e-mail address has an account somewhere,
 * never where: an account is one person's across organisations, and the message sends the admin to the invitation,
 * which answers the same for every address (docs/decisions.md).
 */
const BY_DESIGN: Array<{ route: string; code: string }> = [{ route: 'POST /api/main/accounts', code: 'CB-01-0010' }];

describe.each(DB_KINDS)('cross-tenant walk on %s', (kind) => {
  // Thousands of calls in a minute from one account: the API's own rate limit is not what this test is about.
  const suite = signedInSuite({ kind, config: { rateLimits: { ...loadConfig({} as NodeJS.ProcessEnv).rateLimits, api: 1_000_000 } } }, { other: OTHER_ADMIN });
  let ids: Value[];
  let marks: string[];
  let before: Record<string, string>;
  const counts: Record<number, number> = {};

  beforeAll(async () => {
    ids = await demoIds(suite.t.db);
    marks = await demoMarks(suite.t.db);
    // The seed's own unfinished tasks run first, so that only the walk's tasks run afterwards.
    await drainJobs(suite.t);
    before = await demoDigest(suite.t.db);
  }, 120_000);

  it('walks the routes the app registered, every one that takes an id', () => {
    expect(suite.t.app.routeDefs.map((r) => `${r.method} ${fullPath(r)}`)).toEqual(ALL_ROUTES.map((r) => `${r.method} ${fullPath(r)}`));
    expect(WALKED.length).toBeGreaterThan(40);
    // The real ids of each kind were found (a seed without them would make the walk vacuous).
    expect(ids.length).toBeGreaterThan(15);
  });

  it.each(WALKED.map((r, salt) => [`${r.method} ${fullPath(r)}`, r, salt] as const))(
    '%s with Demo’s ids tells nothing that an unknown id does not',
    async (_name, r, salt) => {
      const problems: string[] = [];
      for (const { real: req, twin: unknown } of requestsOf(r, ids, 'DEMO', salt)) {
        const res = await call(suite.t.app, suite.other, req);
        counts[res.statusCode] = (counts[res.statusCode] ?? 0) + 1;
        const label = `${req.method} ${req.url} ${JSON.stringify(req.query ?? {})} ${JSON.stringify(req.payload ?? {})}`;
        if (res.statusCode >= 500) problems.push(`${label}: ${res.statusCode} ${res.body.slice(0, 200)}`);
        if (res.statusCode === 401 || res.statusCode === 429) problems.push(`${label}: ${res.statusCode} (the walk did not reach the route)`);
        if (res.statusCode < 300) {
          const sent = JSON.stringify(req);
          const leaked = marks.filter((m) => res.body.includes(m) && !sent.includes(m));
          if (leaked.length) problems.push(`${label}: ${res.statusCode} reveals ${leaked.slice(0, 3).join(', ')}`);
        }
        const twin = await call(suite.t.app, suite.other, unknown);
        const [a, b] = [outcome(res), outcome(twin)];
        const same =
          a.statusCode === b.statusCode &&
          a.code === b.code &&
          normalise(a.message, ids, salt) === normalise(b.message, ids, salt) &&
          (a.statusCode >= 300 || JSON.stringify(shapeOf(dataOf(res.body))) === JSON.stringify(shapeOf(dataOf(twin.body))));
        const allowed = BY_DESIGN.some((d) => d.route === `${r.method} ${fullPath(r)}` && d.code === a.code);
        if (!same && !allowed)
          problems.push(
            `${label}: answers ${a.statusCode} ${a.code} "${a.message}" but ${b.statusCode} ${b.code} "${b.message}" for an id that does not exist`,
          );
      }
      expect(problems).toEqual([]);
    },
    120_000,
  );

  it('a file of Demo’s ICCIDs (info upload, transfer) is refused row by row like unknown ICCIDs, and its tasks are queued for the check below', async () => {
    const iccid = String(ids.find((v) => isValidIccid(String(v))));
    const unknown = String(twinOf(iccid, 99));
    const csv = (x: string) => ({ name: 'walk.csv', bytes: Buffer.from(`ICCID,Device name\n${x},Walk\n`) });
    const reasons = async (url: string, fields: Record<string, string>) => {
      const answers = [];
      for (const x of [iccid, unknown]) {
        const res = await call(suite.t.app, suite.other, { method: 'POST', url, ...(await form(fields, csv(x))) });
        expect(res.statusCode, res.body).toBe(200);
        answers.push({ ...res.json().data, errors: res.json().data.errors.map((e: { reason: string }) => e.reason) });
      }
      expect(answers[0]).toEqual(answers[1]);
      expect(answers[0].ok).toBe(0);
    };
    await reasons('/api/main/sim/organizationCode/OTHER/batchUpdateInfo/parse', { type: 'deviceName' });
    const submitted = await call(suite.t.app, suite.other, {
      method: 'POST',
      url: '/api/main/sim/organizationCode/OTHER/batchUpdateInfo',
      ...(await form({ type: 'deviceName' }, csv(iccid))),
    });
    expect(submitted.statusCode, submitted.body).toBe(200);
    const depot = await call(suite.t.app, suite.other, {
      method: 'POST',
      url: '/api/main/orgs',
      payload: { name: 'Other Walk Depot', country: 'GB', smsQuota: 1 },
    });
    const target = depot.json().data.id as string;
    await reasons(`/api/main/sim/transfer/parse/${target}`, {});
    const transfer = await call(suite.t.app, suite.other, {
      method: 'POST',
      url: '/api/main/sim/transfer',
      ...(await form({ targetOrgId: target, acknowledged: 'true' }, csv(iccid))),
    });
    expect(transfer.statusCode, transfer.body).toBe(200);
  });

  it('left Demo’s rows as they were, also once the tasks it started have run, and the walk’s session alive throughout', async () => {
    await drainJobs(suite.t);
    expect(await countRows(suite.t.db, 'tasks', "org_id = 'org-other' AND status = 'processing'")).toBe(0);
    expect(await countRows(suite.t.db, 'tasks', "org_id = 'org-other' AND kind IN ('sim_info_upload', 'sim_transfer')")).toBe(2);
    expect(await demoDigest(suite.t.db)).toEqual(before);
    // Most calls reached a handler's own answer (not only schema refusals), so the walk is not vacuous.
    expect((counts[200] ?? 0) + (counts[403] ?? 0) + (counts[404] ?? 0)).toBeGreaterThan(500);
    expect(counts[401] ?? 0).toBe(0);
    expect((await call(suite.t.app, suite.other, { method: 'GET', url: '/api/main/orgs' })).statusCode).toBe(200);
  });
});
