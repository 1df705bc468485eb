/**
 * docs/schemas.md's worked example, run as written: the APN profile's code blocks are read from the doc, the schema
 * is dropped into a SCHEMAS_DIR, and the real server answers list, show, create, edit, delete and the rules in three
 * languages, role by role, from its derived table (which must be the SQL the doc shows).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defineResource } from '../../common/resources.js';
import { buildApp } from '../../server/app.js';
import { applySchemaTables, derivedDdl } from '../../server/schema/schema-tables.js';
import { apnExample } from '../doc-example.js';
import { buildTestApp, call, countRows, DB_KINDS, DEMO, signIn, type Session, type TestApp } from '../helper.js';

const { json: SCHEMA_TEXT, sql: TABLE_SQL } = apnExample();
const SCHEMA = JSON.parse(SCHEMA_TEXT);
const BASE = '/api/main/resources/apn-profiles';
const good = { name: 'Fleet internet', apn: 'iot.example.com', authType: 'pap', username: 'fleet', ipType: 'ipv4', default: true };

it('the doc shows the very table the server derives', () => {
  expect(
    derivedDdl(defineResource(SCHEMA), (w) => {
      throw new Error(w);
    }),
  ).toBe(TABLE_SQL.trim());
});

describe.each(DB_KINDS)('the APN profile of docs/schemas.md, on %s', (kind) => {
  let t: TestApp;
  let dir: string;
  const s = {} as Record<'user' | 'operator' | 'admin' | 'other', Session>;
  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'apn-schemas-'));
    fs.writeFileSync(path.join(dir, 'apn-profiles.json'), SCHEMA_TEXT);
    t = await buildTestApp({ kind, config: { schemasDir: dir } });
    for (const role of ['user', 'operator', 'admin'] as const) s[role] = await signIn(t.app, DEMO[role]);
    s.other = await signIn(t.app, 'admin@other.example.com');
  });
  afterAll(() => t.close());

  const send = (who: Session, method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, payload?: object, language = 'en-US') =>
    call(t.app, who, { method, url, ...(payload ? { payload } : {}), headers: { language } });

  it('its table was created at start, with the field named default', async () => {
    const cols = (
      await t.db.query<{ c: string }>("SELECT column_name AS c FROM information_schema.columns WHERE table_name = 'apn_profiles' ORDER BY ordinal_position")
    ).rows.map((r) => r.c);
    expect(cols).toEqual(['id', 'org_id', 'name', 'apn', 'auth_type', 'username', 'ip_type', 'default', 'created_at']);
  });

  it('creates, lists, shows, edits and deletes, the field named default included', async () => {
    const made = await send(s.admin, 'POST', BASE, good);
    expect(made.statusCode).toBe(200);
    const id = made.json().data.id as string;
    expect(made.json().data).toMatchObject(good);
    const plain = await send(s.admin, 'POST', BASE, { name: 'Private LAN', apn: 'lan.corp', authType: 'none', ipType: 'ipv4v6' });
    expect(plain.json().data).toMatchObject({ default: false, username: null });
    const listed = await send(s.user, 'POST', `${BASE}/list`, { sort: 'name', order: 'asc' });
    expect(listed.json().data.items.map((r: { name: string }) => r.name)).toEqual(['Fleet internet', 'Private LAN']);
    expect((await send(s.user, 'POST', `${BASE}/list`, { default: true })).json().data.items.map((r: { name: string }) => r.name)).toEqual(['Fleet internet']);
    expect(
      (await send(s.user, 'POST', `${BASE}/list`, { search: { field: 'apn', value: 'corp' } })).json().data.items.map((r: { name: string }) => r.name),
    ).toEqual(['Private LAN']);
    expect((await send(s.user, 'GET', `${BASE}/${id}`)).json().data).toMatchObject({ ...good, id });
    const edited = await send(s.operator, 'PUT', `${BASE}/${id}`, { default: false, authType: 'chap' });
    expect(edited.statusCode).toBe(200);
    expect(edited.json().data).toMatchObject({ default: false, authType: 'chap', name: 'Fleet internet' });
    // Another organisation sees none of it.
    expect((await send(s.other, 'GET', `${BASE}/${id}`)).statusCode).toBe(404);
    expect((await send(s.other, 'DELETE', `${BASE}/${id}`)).statusCode).toBe(404);
    const gone = await send(s.admin, 'DELETE', `${BASE}/${id}`);
    expect(gone.statusCode).toBe(200);
    expect(gone.json().data).toEqual({ deleted: 1 });
    expect((await send(s.admin, 'GET', `${BASE}/${id}`)).statusCode).toBe(404);
    const trail = (
      await t.db.query<{ action: string }>("SELECT action FROM audit_log WHERE entity = 'apn-profiles' AND entity_id = $1 ORDER BY id", [id])
    ).rows.map((r) => r.action);
    expect(trail).toEqual(['create', 'update', 'delete']);
  });

  it('keeps to the rights the schema gives each role', async () => {
    const made = (await send(s.admin, 'POST', BASE, { ...good, name: 'Rights test', default: false })).json().data.id as string;
    expect((await send(s.user, 'POST', BASE, { ...good, name: 'By a user' })).statusCode).toBe(403);
    expect((await send(s.user, 'PUT', `${BASE}/${made}`, { default: true })).statusCode).toBe(403);
    expect((await send(s.operator, 'POST', BASE, { ...good, name: 'By an operator' })).statusCode).toBe(403);
    expect((await send(s.operator, 'DELETE', `${BASE}/${made}`)).statusCode).toBe(403);
    expect((await send(s.user, 'DELETE', BASE, { ids: [made] })).statusCode).toBe(403);
    expect(await countRows(t.db, 'apn_profiles', 'id = $1', [made])).toBe(1);
  });

  describe("refuses broken rules by field, in the caller's language, writing nothing", () => {
    it.each([
      ['en-US', { ...good, name: 'Io' }, 'Name must be 3 to 40 characters long'],
      ['en-US', { ...good, name: 'x'.repeat(41) }, 'Name must be at most 40 characters long'],
      ['en-US', { ...good, name: 'Upper APN', apn: 'Internet' }, 'APN has the wrong format'],
      ['en-US', { ...good, name: 'Bad auth', authType: 'kerberos' }, 'Authentication must be one of'],
      ['en-US', { ...good, name: 'Flag as text', default: 'yes' }, 'Default must be yes or no'],
      ['zh-CN', { ...good, name: 'Io' }, '名称'],
      ['es-ES', { ...good, name: 'IP wrong', ipType: 'ipx' }, 'Tipo de IP'],
    ])('%s: %j', async (language, payload, message) => {
      const before = await countRows(t.db, 'apn_profiles');
      const res = await send(s.admin, 'POST', BASE, payload, language);
      expect(res.statusCode).toBe(400);
      expect(res.json().status.message).toContain(message);
      expect(await countRows(t.db, 'apn_profiles')).toBe(before);
    });
    it('a name already taken, in Chinese', async () => {
      await send(s.admin, 'POST', BASE, { ...good, name: 'Taken name' });
      const res = await send(s.admin, 'POST', BASE, { ...good, name: 'Taken name' }, 'zh-CN');
      expect(res.statusCode).toBe(400);
      expect(res.json().status.message).toContain('名称');
      expect(res.json().data).toMatchObject({ field: 'name', rule: 'unique' });
    });
  });

  it('deletes several at once, all or none, and refuses a profile other rows depend on', async () => {
    const ids = await Promise.all(
      ['Bulk one', 'Bulk two', 'Bulk three'].map(
        async (name) => (await send(s.admin, 'POST', BASE, { ...good, name, default: false })).json().data.id as string,
      ),
    );
    // One id that is not there: nothing goes.
    expect((await send(s.admin, 'DELETE', BASE, { ids: [ids[0], 'NOSUCHPROFILE'] })).statusCode).toBe(404);
    expect(await countRows(t.db, 'apn_profiles', 'id = ANY($1)', [ids])).toBe(3);
    // A table of the team's own that refers to a profile: that one, and the whole request, is refused by name.
    await t.db.exec('CREATE TABLE sim_apn (iccid text PRIMARY KEY, apn_profile_id text NOT NULL REFERENCES apn_profiles(id))');
    await t.db.query("INSERT INTO sim_apn VALUES ('8900000000000000001', $1)", [ids[2]]);
    const refused = await send(s.admin, 'DELETE', BASE, { ids });
    expect(refused.statusCode).toBe(409);
    // Named as the confirmation names it, by the list's first column, not by an id the person never saw.
    expect(refused.json().status.message).toBe('Bulk three is still used by other records: remove those first.');
    expect(refused.json().data).toEqual({ id: ids[2] });
    expect(await countRows(t.db, 'apn_profiles', 'id = ANY($1)', [ids])).toBe(3);
    const done = await send(s.admin, 'DELETE', BASE, { ids: ids.slice(0, 2) });
    expect(done.json().data).toEqual({ deleted: 2 });
    expect(await countRows(t.db, 'apn_profiles', 'id = ANY($1)', [ids])).toBe(1);
    expect(await countRows(t.db, 'audit_log', "entity = 'apn-profiles' AND action = 'delete' AND entity_id = ANY($1)", [ids])).toBe(2);
    expect((await send(s.admin, 'DELETE', BASE, { ids: [] })).statusCode).toBe(400);
    expect((await send(s.admin, 'DELETE', BASE, { ids: Array.from({ length: 101 }, (_, i) => `id${i}`) })).statusCode).toBe(400);
  });

  it('a changed schema adds its new column at the next start and drops none; a migration beside it replaces the derived table', async () => {
    const changed = defineResource({
      ...SCHEMA,
      'x-admin': { ...SCHEMA['x-admin'], menu: undefined, translations: undefined },
      properties: { ...SCHEMA.properties, mtu: { type: ['integer', 'null'], minimum: 576 } },
    });
    const fail = (w: string): never => {
      throw new Error(w);
    };
    expect(await applySchemaTables(t.db, [{ resource: changed, file: 'apn-profiles.json' }])).toEqual(['apn_profiles: added mtu']);
    expect(await applySchemaTables(t.db, [{ resource: changed, file: 'apn-profiles.json' }])).toEqual([]);
    // Sorting by it later brings its index, as a table made with it would have.
    const sorted = defineResource({
      ...changed,
      'x-admin': { ...changed['x-admin'], list: { ...changed['x-admin'].list, sortable: [...changed['x-admin'].list.sortable, 'mtu'] } },
    });
    expect(await applySchemaTables(t.db, [{ resource: sorted, file: 'apn-profiles.json' }])).toEqual(['apn_profiles: added index apn_profiles_mtu']);
    expect(await applySchemaTables(t.db, [{ resource: sorted, file: 'apn-profiles.json' }])).toEqual([]);
    expect(await countRows(t.db, 'apn_profiles')).toBeGreaterThan(0);
    const own = defineResource({ ...SCHEMA, 'x-admin': { ...SCHEMA['x-admin'], table: 'apn_own' } });
    const sql =
      'CREATE TABLE apn_own (id text PRIMARY KEY, org_id text NOT NULL, name text, apn text, auth_type text, username text, ip_type text, "default" boolean, created_at timestamptz DEFAULT now());';
    expect(await applySchemaTables(t.db, [{ resource: own, file: 'apn-own.json', migration: { name: 'apn-own.sql', sql } }])).toEqual(['apn_own: apn-own.sql']);
    expect(await countRows(t.db, 'schema_migrations', "name = 'schemas/apn-own.sql'")).toBe(1);
    expect(await applySchemaTables(t.db, [{ resource: own, file: 'apn-own.json', migration: { name: 'apn-own.sql', sql } }])).toEqual([]);
    // A field whose column cannot be derived stops with the file.
    const twoTypes = defineResource({
      ...SCHEMA,
      'x-admin': { ...SCHEMA['x-admin'], table: 'apn_bad', menu: undefined, translations: undefined },
      properties: { ...SCHEMA.properties, odd: { type: ['string', 'integer'] } },
    });
    await expect(applySchemaTables(t.db, [{ resource: twoTypes, file: '/x/apn-bad.json' }])).rejects.toThrow(
      '/x/apn-bad.json: the field "odd" must have one type',
    );
    void fail;
  });

  it("a migration beside one schema may refer to another schema's derived table, whatever the files' names", async () => {
    const as = (table: string) => defineResource({ ...SCHEMA, 'x-admin': { ...SCHEMA['x-admin'], table, menu: undefined, translations: undefined } });
    const sql =
      'CREATE TABLE apn_uses (id text PRIMARY KEY, org_id text NOT NULL, name text, apn text, auth_type text, username text, ip_type text, "default" boolean, created_at timestamptz, profile_id text REFERENCES apn_used(id));';
    // "apn-usea.json" sorts before "apn-useb.json", yet the table it refers to is made first.
    const done = await applySchemaTables(t.db, [
      { resource: as('apn_uses'), file: 'apn-usea.json', migration: { name: 'apn-usea.sql', sql } },
      { resource: as('apn_used'), file: 'apn-useb.json' },
    ]);
    expect(done).toEqual(['apn_used: created', 'apn_uses: apn-usea.sql']);
  });

  it('after a restart with a required field added, the rows written before it answer null for it, not an invented 0', async () => {
    const made = (await send(s.admin, 'POST', BASE, { ...good, name: 'Before priority', default: false })).json().data.id as string;
    const x = SCHEMA['x-admin'];
    const changed = {
      ...SCHEMA,
      properties: { ...SCHEMA.properties, priority: { type: 'integer', minimum: 1, maximum: 9 } },
      'x-admin': {
        ...x,
        list: { ...x.list, columns: [...x.list.columns, 'priority'] },
        create: { ...x.create, fields: [...x.create.fields, 'priority'] },
        edit: { ...x.edit, fields: [...x.edit.fields, 'priority'] },
        translations: Object.fromEntries(
          Object.entries(x.translations as Record<string, { fields: object }>).map(([l, tr]) => [l, { ...tr, fields: { ...tr.fields, priority: 'P' } }]),
        ),
      },
    };
    const dir2 = fs.mkdtempSync(path.join(os.tmpdir(), 'apn-schemas-'));
    fs.writeFileSync(path.join(dir2, 'apn-profiles.json'), JSON.stringify(changed));
    const restarted = await buildApp({ config: { ...t.config, schemasDir: dir2 }, db: t.db, logger: false });
    try {
      await restarted.ready();
      const shown = await call(restarted, s.admin, { method: 'GET', url: `${BASE}/${made}` });
      expect(shown.statusCode).toBe(200);
      expect(shown.json().data).toMatchObject({ name: 'Before priority', priority: null });
      const listed = await call(restarted, s.admin, { method: 'POST', url: `${BASE}/list`, payload: { search: { field: 'name', value: 'Before priority' } } });
      expect(listed.json().data.items).toEqual([expect.objectContaining({ id: made, priority: null })]);
      // A new record must give it.
      const without = await call(restarted, s.admin, { method: 'POST', url: BASE, payload: { ...good, name: 'Without priority' } });
      expect(without.json().data).toMatchObject({ field: 'priority', rule: 'required' });
      const given = await call(restarted, s.admin, { method: 'POST', url: BASE, payload: { ...good, name: 'With priority', priority: 3 } });
      expect(given.json().data).toMatchObject({ priority: 3 });
    } finally {
      await restarted.close();
    }
  });
});
