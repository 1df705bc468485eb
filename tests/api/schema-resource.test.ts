/**
 * The fixture proof of docs/schemas.md on the server: a made-up resource (tests/fixtures/schemas/gateways.json) with a
 * table derived from it at start gets its list, show, create and edit calls, its rules and its rights from the schema alone.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadResources } from '../../server/schema/schema-routes.js';
import { call, countRows, DB_KINDS, DEMO, type Session, signedInSuite, signIn } from '../helper.js';

const FIXTURES = path.resolve(__dirname, '../fixtures');
const BASE = '/api/main/resources/gateways';
const good = { serial: 'GW-000001', name: 'Dock gate', kind: 'outdoor', ports: 8, site: 'Hamburg dock 4' };

describe.each(DB_KINDS)('a resource declared by a schema alone, on %s', (kind) => {
  const suite = signedInSuite({ kind, config: { schemasDir: path.join(FIXTURES, 'schemas') } });
  const s = {} as Record<'user' | 'operator' | 'admin' | 'superadmin' | 'other', Session>;
  beforeAll(async () => {
    for (const role of ['user', 'operator', 'admin', 'superadmin'] as const) s[role] = await signIn(suite.t.app, DEMO[role]);
    s.other = await signIn(suite.t.app, 'admin@other.example.com');
  });

  const create = (who: Session, payload: unknown, language = 'en-US') =>
    call(suite.t.app, who, { method: 'POST', url: BASE, payload: payload as object, headers: { language } });
  const list = (who: Session, payload: object = {}) => call(suite.t.app, who, { method: 'POST', url: `${BASE}/list`, payload });

  it('offers its schema to the roles that may read it, and only to them', async () => {
    const names = async (who: Session) =>
      (await call(suite.t.app, who, { method: 'GET', url: '/api/main/resources' })).json().data.items.map((r: { $id: string }) => r.$id);
    expect(await names(s.admin)).toEqual(['gateways']);
    expect(await names(s.operator)).toEqual(['gateways']);
    expect(await names(s.user)).toEqual([]);
  });

  it('sends the schema-declared rights with the role rules, and the routes keep to them', async () => {
    const rulesOf = async (who: Session) => {
      const res = await call(suite.t.app, who, { method: 'GET', url: `/api/identity/info/cube/users/${who.accountId}/permissions` });
      expect(res.statusCode).toBe(200);
      return (res.json().data.permissions as Array<{ action: string | string[]; subject: string; inverted?: boolean }>).filter((r) => r.subject === 'gateway');
    };
    expect(await rulesOf(s.operator)).toContainEqual({ action: ['read'], subject: 'gateway' });
    expect(await rulesOf(s.admin)).toContainEqual({ action: ['read', 'create', 'update'], subject: 'gateway' });
    // The user's role has "read sim" and friends, nothing on gateways; the admin's "manage all" is cut to the schema's.
    expect((await rulesOf(s.user)).filter((r) => !r.inverted)).toEqual([]);
    expect((await list(s.user)).statusCode).toBe(403);
    expect((await create(s.operator, good)).statusCode).toBe(403);
  });

  it('creates a record in the current organisation and shows it', async () => {
    const res = await create(s.admin, good);
    expect(res.statusCode).toBe(200);
    const made = res.json().data;
    expect(made).toMatchObject(good);
    expect(made.id).toMatch(/^[0-9A-Za-z]{20}$/);
    const shown = await call(suite.t.app, s.operator, { method: 'GET', url: `${BASE}/${made.id}` });
    expect(shown.statusCode).toBe(200);
    expect(shown.json().data).toMatchObject({ ...good, id: made.id });
    expect(typeof shown.json().data.createdAt).toBe('string');
  });

  describe('refuses each broken rule by field, writing nothing', () => {
    it.each([
      ['a serial of the wrong format', { ...good, serial: 'GW-12345' }, 'Serial number has the wrong format'],
      ['a 2-character name', { ...good, serial: 'GW-100002', name: 'ab' }, 'Name must be 3 to 30 characters long'],
      ['a 31-character name', { ...good, serial: 'GW-100003', name: 'a'.repeat(31) }, 'Name must be at most 30 characters long'],
      ['0 ports', { ...good, serial: 'GW-100004', ports: 0 }, 'Ports must be between 1 and 64'],
      ['65 ports', { ...good, serial: 'GW-100005', ports: 65 }, 'Ports must be between 1 and 64'],
      ['ports as text', { ...good, serial: 'GW-100006', ports: '8' }, 'Ports must be a whole number'],
      ['an unknown kind', { ...good, serial: 'GW-100007', kind: 'attic' }, 'Installation must be one of: indoor, outdoor'],
      ['a 61-character site', { ...good, serial: 'GW-100008', site: 's'.repeat(61) }, 'Site must be at most 60 characters long'],
      ['a missing name', { serial: 'GW-100009', kind: 'indoor', ports: 2 }, 'Name is required'],
      ['a field the form does not have', { ...good, serial: 'GW-100010', createdAt: '2020-01-01T00:00:00Z' }, 'Added is not an accepted field'],
      ['a serial already taken', good, 'Serial number is already in use'],
    ])('%s', async (_n, payload, message) => {
      const before = await countRows(suite.t.db, 'gateways');
      const res = await create(s.admin, payload);
      expect(res.statusCode).toBe(400);
      expect(res.json().status.message).toContain(message);
      expect(await countRows(suite.t.db, 'gateways')).toBe(before);
    });

    it("names the field by the schema's own label in the caller's language", async () => {
      const res = await create(s.admin, { ...good, serial: 'GW-1' }, 'es-ES');
      expect(res.json().status.message).toContain('Número de serie');
    });

    it('accepts the limits themselves: 3 and 30 characters, 1 and 64 ports, no site', async () => {
      expect((await create(s.admin, { serial: 'GW-000003', name: 'abc', kind: 'indoor', ports: 1 })).statusCode).toBe(200);
      expect((await create(s.admin, { serial: 'GW-000030', name: 'n'.repeat(30), kind: 'indoor', ports: 64, site: null })).statusCode).toBe(200);
    });
  });

  it('lists with paging, its filter, its sort and its suffix search, for the current organisation only', async () => {
    const all = await list(s.operator, { sort: 'ports', order: 'asc' });
    expect(all.statusCode).toBe(200);
    expect(all.json().data.items.map((g: { ports: number }) => g.ports)).toEqual([1, 8, 64]);
    const outdoor = await list(s.operator, { kind: 'outdoor' });
    expect(outdoor.json().data.items.map((g: { serial: string }) => g.serial)).toEqual(['GW-000001']);
    const suffix = await list(s.operator, { search: { field: 'serial', value: '030' } });
    expect(suffix.json().data.items.map((g: { serial: string }) => g.serial)).toEqual(['GW-000030']);
    expect((await list(s.operator, { search: { field: 'serial', value: '3' } })).statusCode).toBe(400);
    expect((await list(s.operator, { kind: 'attic' })).json().status.message).toContain('must be one of');
    expect((await list(s.other)).json().data.items).toEqual([]);
  });

  it("edits by the edit form's rules; someone else's record is not found", async () => {
    const id = (await list(s.admin, { kind: 'outdoor' })).json().data.items[0].id as string;
    const put = (who: Session, payload: object, key = id) => call(suite.t.app, who, { method: 'PUT', url: `${BASE}/${key}`, payload });
    const ok = await put(s.admin, { name: 'Dock gate north', ports: 16 });
    expect(ok.json().status.message).toBe('Success');
    expect(ok.statusCode).toBe(200);
    expect(ok.json().data).toMatchObject({ id, name: 'Dock gate north', ports: 16, serial: 'GW-000001' });
    expect((await put(s.admin, { name: 'x'.repeat(31) })).json().status.message).toContain('Name must be at most 30 characters long');
    expect((await put(s.admin, { serial: 'GW-999999' })).json().status.message).toContain('Serial number is not an accepted field');
    expect((await put(s.admin, {})).statusCode).toBe(400);
    expect((await put(s.operator, { name: 'Operator edit' })).statusCode).toBe(403);
    expect((await put(s.other, { name: 'Not theirs' })).statusCode).toBe(404);
    expect((await call(suite.t.app, s.other, { method: 'GET', url: `${BASE}/${id}` })).statusCode).toBe(404);
    expect((await call(suite.t.app, s.admin, { method: 'GET', url: `${BASE}/NOSUCHGATEWAY` })).statusCode).toBe(404);
    const row = (await suite.t.db.query<{ name: string }>('SELECT name FROM gateways WHERE id = $1', [id])).rows[0];
    expect(row.name).toBe('Dock gate north');
  });
});

describe('a schema that breaks the format stops the start with its file and its mistake', () => {
  const write = (schema: object) => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'schemas-'));
    fs.writeFileSync(path.join(dir, 'bad.json'), JSON.stringify(schema));
    return dir;
  };
  const base = JSON.parse(fs.readFileSync(path.join(FIXTURES, 'schemas/gateways.json'), 'utf8'));
  const admin = base['x-admin'];
  it.each([
    ["rights on a subject of the auditors' file", { ...admin, subject: 'sim' }, 'may only declare a subject of its own'],
    ['an unknown action', { ...admin, permissions: { admin: ['explode'] } }, 'names the action "explode"'],
    ['an unknown role', { ...admin, permissions: { owner: ['read'] } }, 'names the role "owner"'],
    ['an unknown menu group', { ...admin, menu: { group: 'attic' } }, 'x-admin.menu.group "attic"'],
    ['a column that is no field', { ...admin, list: { ...admin.list, columns: ['serial', 'colour'] } }, 'names "colour", which is not a property'],
    ['an edit call without :id', { ...admin, edit: { ...admin.edit, call: 'PUT /api/main/resources/gateways' } }, 'must name the record as :id'],
    ['a call outside /api/<service>/', { ...admin, show: { ...admin.show, call: 'GET /gateways/:id' } }, 'must read "METHOD /api/<service>/<path>"'],
    ['a language the console lacks', { ...admin, translations: { 'fr-FR': {} } }, 'names "fr-FR"'],
    [
      'a label missing in one language',
      { ...admin, translations: { ...admin.translations, 'es-ES': { ...admin.translations['es-ES'], enum: { kind: { indoor: 'Interior' } } } } },
      'x-admin.translations.es-ES lacks enum.kind.outdoor',
    ],
    ["a built-in resource's name", { ...admin, resource: 'sims', subject: 'sims-again' }, 'already exists'],
    ['a misspelt key', { ...(({ storage: _s, ...rest }) => rest)(admin), stroage: 'generic' }, 'x-admin has the unknown key "stroage"'],
    ['a misspelt list key', { ...admin, list: { ...admin.list, sortabel: ['name'] } }, 'x-admin.list has the unknown key "sortabel"'],
    [
      'a misspelt list key in place of the right one',
      { ...admin, list: { ...(({ sortable: _s, ...rest }) => rest)(admin.list), sortabel: ['name'] } },
      'x-admin.list has the unknown key "sortabel"',
    ],
    ['a misspelt list in place of the right one', { ...(({ list: _l, ...rest }) => rest)(admin), lsit: admin.list }, 'x-admin has the unknown key "lsit"'],
    ['a table that is not a plain SQL name', { ...admin, table: 'gateways; DROP TABLE sims' }, 'must be a plain SQL identifier'],
    ["a table of the console's own", { ...admin, table: 'audit_log' }, 'the table "audit_log" is one of the console\'s own tables'],
    ["a partition of the console's own", { ...admin, table: 'cdrs_2026_11' }, 'the table "cdrs_2026_11" is one of the console\'s own tables'],
    ["a table of PostgreSQL's own", { ...admin, table: 'pg_class' }, 'the table "pg_class" is one of the console\'s own tables'],
    [
      'a menu place without translations',
      (({ translations: _t, ...rest }) => rest)(admin),
      'x-admin.translations is required for a resource with a menu place',
    ],
  ])('%s', (_n, xAdmin, message) => {
    const dir = write({ ...base, 'x-admin': xAdmin });
    // The file's real path leads the message.
    expect(() => loadResources(dir)).toThrow(new RegExp(`^${path.join(dir, 'bad.json').replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: `));
    expect(() => loadResources(dir)).toThrow(message);
  });
  it.each(['if', 'allOf', 'dependentRequired'])('a top-level "%s", which the forms would drop', (k) => {
    const dir = write({ ...base, [k]: k === 'dependentRequired' ? { site: ['ports'] } : k === 'if' ? { required: ['site'] } : [{ required: ['site'] }] });
    expect(() => loadResources(dir)).toThrow(`${path.join(dir, 'bad.json')}: the top-level "${k}" is not supported`);
  });
  it('a field whose column is not a plain SQL name', () => {
    const dir = write({
      ...base,
      properties: { ...base.properties, 'bad-name': { type: 'string' } },
      'x-admin': { ...admin, translations: undefined, menu: undefined },
    });
    expect(() => loadResources(dir)).toThrow('the field "bad-name" makes the column "bad-name", not a plain SQL identifier');
  });
  it('a field name that is not camelCase', () => {
    const dir = write({
      ...base,
      properties: { ...base.properties, APN2: { type: 'string' } },
      'x-admin': { ...admin, translations: undefined, menu: undefined },
    });
    expect(() => loadResources(dir)).toThrow(`${path.join(dir, 'bad.json')}: the field "APN2" must be a camelCase name of letters and digits`);
  });
  it('a file that is not JSON', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'schemas-'));
    fs.writeFileSync(path.join(dir, 'broken.json'), '{ "x-admin": ');
    expect(() => loadResources(dir)).toThrow(/broken\.json: not JSON/);
  });
});
