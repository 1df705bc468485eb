/**
 * Resources added by a schema alone (docs/schemas.md, "A resource with no TypeScript"): the server loads them from
 * SCHEMAS_DIR at start, answers the calls of those stored "generic" from their table (list, show, create, edit, each
 * validated by the schema's own rules), and tells the console which resources have a menu place.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { FastifyBaseLogger, FastifyRequest } from 'fastify';
import type { Subject } from '../../common/permissions.js';
import { RESOURCES } from '../../common/resource-registry.js';
import { defineResource, formBodySchema, type ResourceSchema } from '../../common/resources.js';
import { isProjectTable, type Db, type Queryable } from '../db/db.js';
import { newId } from '../db/ids.js';
import { listRoute, routeOf, showRoute } from './resource-routes.js';
import { recordOf, snake } from './schema-repo.js';
import { ApiError, invalid, notFound } from '../http/api-error.js';
import { audit } from '../http/audit.js';
import { pathParams, type RouteDef } from '../http/route.js';
import { CODES } from '../../common/errors.js';
import { misspeltKey, xAdminProblem } from './schema-meta.js';
import { deleteRows, insertRow, lockRows, updateRow } from './schema-repo.js';
import { applySchemaTables, IDENTIFIER, type TablePlan } from './schema-tables.js';

type SubjectName = Exclude<Subject, 'all'>;

/** The file each resource was read from, for the messages of later checks. */
const fileOf = new WeakMap<ResourceSchema, string>();
/** The migration file beside a SCHEMAS_DIR schema (<name>.sql for <name>.json), which overrides its derived table. */
const migrationOf = new WeakMap<ResourceSchema, { name: string; sql: string }>();

/** A field name of a schema in SCHEMAS_DIR: camelCase letters and digits (its column is the snake_case of it). */
const FIELD_NAME = /^[a-z][a-zA-Z0-9]*$/;

/** The checks that need the server's tools: the x-admin meta-schema and plain SQL names. */
function checkOnServer(r: ResourceSchema, file: string): void {
  const fail = (what: string): never => {
    throw new Error(`${file}: ${what}`);
  };
  const problem = xAdminProblem(r['x-admin']);
  if (problem) fail(problem);
  if (!IDENTIFIER.test(r['x-admin'].table))
    fail(`x-admin.table "${r['x-admin'].table}" must be a plain SQL identifier (lower-case letters, digits, underscores)`);
  for (const f of Object.keys(r.properties))
    if (!IDENTIFIER.test(snake(f))) fail(`the field "${f}" makes the column "${snake(f)}", not a plain SQL identifier (letters, digits, underscores)`);
}

/** The built-in resources and every *.json of dir, checked; a name used twice stops the start. */
export function loadResources(dir?: string): ResourceSchema[] {
  const all = Object.values(RESOURCES);
  for (const r of all) {
    const file = `schemas/${r.$id.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}.json`;
    checkOnServer(r, file);
    fileOf.set(r, file);
  }
  if (dir) {
    for (const file of fs
      .readdirSync(dir)
      .filter((f) => f.endsWith('.json'))
      .sort()) {
      const where = path.join(dir, file);
      let parsed: unknown;
      try {
        parsed = JSON.parse(fs.readFileSync(where, 'utf8'));
      } catch (e) {
        throw new Error(`${where}: not JSON (${(e as Error).message})`, { cause: e });
      }
      let r: ResourceSchema;
      try {
        r = defineResource(parsed, where);
      } catch (e) {
        // A misspelt key ("sortabel" for "sortable") leaves a known one missing: name the misspelling, not what it left.
        const misspelt = misspeltKey((parsed as { 'x-admin'?: unknown } | null)?.['x-admin'] ?? {});
        if (misspelt) throw new Error(`${where}: ${misspelt}`, { cause: e });
        throw e;
      }
      checkOnServer(r, where);
      for (const f of Object.keys(r.properties))
        if (!FIELD_NAME.test(f)) throw new Error(`${where}: the field "${f}" must be a camelCase name of letters and digits (its column is "${snake(f)}")`);
      if (r['x-admin'].storage === 'generic' && isProjectTable(r['x-admin'].table))
        throw new Error(`${where}: the table "${r['x-admin'].table}" is one of the console's own tables; choose another x-admin.table`);
      if (all.some((o) => o['x-admin'].resource === r['x-admin'].resource)) throw new Error(`${where}: the resource "${r['x-admin'].resource}" already exists`);
      if (all.some((o) => o['x-admin'].table === r['x-admin'].table) && r['x-admin'].storage === 'generic')
        throw new Error(`${where}: the table "${r['x-admin'].table}" belongs to another resource`);
      if (r['x-admin'].storage === 'generic' && mayDelete(r) && !r['x-admin'].show && !r['x-admin'].edit)
        throw new Error(`${where}: x-admin.permissions grant delete, which needs x-admin.show or x-admin.edit (its record call)`);
      const sql = where.replace(/\.json$/, '.sql');
      if (fs.existsSync(sql)) migrationOf.set(r, { name: path.basename(sql), sql: fs.readFileSync(sql, 'utf8') });
      fileOf.set(r, where);
      all.push(r);
    }
  }
  return all;
}

/** What start needs of the generic resources: their tables' plans. */
export function tablePlansOf(resources: ResourceSchema[]): TablePlan[] {
  return resources.filter((r) => r['x-admin'].storage === 'generic').map((r) => ({ resource: r, file: fileOf.get(r) ?? r.$id, migration: migrationOf.get(r) }));
}

/**
 * At start: load the resources of schemas/ and SCHEMAS_DIR, create or widen the tables of the generic ones, and answer
 * them with the routes of the generic ones. Any mistake stops the start with the file.
 */
export async function startSchemaResources(
  db: Db,
  dir: string | undefined,
  log?: FastifyBaseLogger,
): Promise<{ resources: ResourceSchema[]; routes: RouteDef[] }> {
  const resources = loadResources(dir);
  const done = await applySchemaTables(db, tablePlansOf(resources));
  if (done.length) log?.info({ tables: done }, 'schema tables applied');
  return { resources, routes: resources.filter((r) => r['x-admin'].storage === 'generic').flatMap(genericRoutes) };
}

/** Some role may delete the resource's records (x-admin.permissions grant delete or manage). */
export function mayDelete(r: ResourceSchema): boolean {
  return Object.values(r['x-admin'].permissions ?? {}).some((actions) => actions?.some((a) => a === 'delete' || a === 'manage'));
}

/** The record call of a resource ("/resources/gateways/:id") with its service. */
function recordCall(r: ResourceSchema) {
  return routeOf((r['x-admin'].show ?? r['x-admin'].edit)!.call);
}

type Shape = { type?: string | string[] } & Record<string, unknown>;

/**
 * A stored record's fields as the answers declare them: each may be null, since a column a changed schema added is
 * empty in the rows written before it (an answer says so rather than inventing a 0 or a false).
 */
export function storedShape(properties: Record<string, Shape>): Record<string, Shape> {
  return Object.fromEntries(
    Object.entries(properties).map(([f, p]) => [f, p.type === undefined ? p : { ...p, type: [...new Set([...([] as string[]).concat(p.type), 'null'])] }]),
  );
}

/** A list or show route whose answer declares the stored shape (the route's own response objects are fresh). */
function answeringStored(route: RouteDef, kind: 'list' | 'show'): RouteDef {
  const res = route.schema.response as { properties: Record<string, Shape> };
  const record = kind === 'list' ? (res.properties.items as unknown as { items: { properties: Record<string, Shape> } }).items : res;
  record.properties = storedShape(record.properties);
  return route;
}

/** The list, show, create, edit and delete routes of a resource stored generically in its table. */
export function genericRoutes(r: ResourceSchema): RouteDef[] {
  const admin = r['x-admin'];
  const subject = admin.subject as SubjectName;
  const fields = Object.keys(r.properties);
  const record = { type: 'object', properties: storedShape(r.properties as Record<string, Shape>) };
  const one = (db: Queryable, orgId: string, key: string) => recordOf(db, r, orgId, key);
  // A value already taken (a unique index on the table) is named like any other broken rule.
  const unique = (e: unknown): never => {
    const err = e as { code?: string; detail?: string };
    if (err.code === '23505') {
      // "Key (org_id, serial)=(…) already exists.": the field is the key's column that is not the organisation.
      const columns =
        (err.detail ?? '')
          .match(/Key \(([^)]+)\)/)?.[1]
          .split(/,\s*/)
          .map((c) => c.replace(/"/g, '')) ?? [];
      const field = fields.find((f) => columns.includes(snake(f)) && snake(f) !== 'org_id') ?? admin.key;
      throw invalid(field, 'unique');
    }
    throw e;
  };
  const entity = admin.resource;
  const list = routeOf(admin.list.call);
  const routes: RouteDef[] = [answeringStored(listRoute(r, list.service, list.path, { method: list.method === 'GET' ? 'GET' : 'POST' }), 'list')];
  if (admin.show) routes.push(answeringStored(showRoute(r), 'show'));
  if (admin.create) {
    const body = formBodySchema(r, 'create');
    routes.push({
      ...routeOf(admin.create.call),
      permission: { action: 'create', subject },
      schema: { body, response: record },
      handler: async (req) => {
        const auth = req.requireAuth();
        const values = req.body as Record<string, unknown>;
        const given = Object.fromEntries(
          Object.keys(body.properties)
            .filter((f) => values[f] !== undefined && f !== 'id')
            .map((f) => [f, values[f]]),
        );
        const id = typeof values.id === 'string' ? values.id : newId();
        return req.server.db.tx(async (q) => {
          const key = await insertRow(q, r, auth.orgId, id, given).catch(unique);
          const made = await one(q, auth.orgId, key);
          await audit(q, req, { action: 'create', entity, entityId: key, after: made });
          return made;
        });
      },
    });
  }
  if (admin.edit) {
    // An edit changes the fields it names (at least one); the console's form still asks for every required one.
    const body = { ...formBodySchema(r, 'edit'), required: [] };
    routes.push({
      ...routeOf(admin.edit.call),
      permission: { action: 'update', subject },
      schema: { params: pathParams('id'), body: { ...body, minProperties: 1 }, response: record },
      handler: async (req) => {
        const auth = req.requireAuth();
        const values = req.body as Record<string, unknown>;
        const given = Object.fromEntries(
          Object.keys(body.properties)
            .filter((f) => f in values)
            .map((f) => [f, values[f]]),
        );
        const key = (req.params as { id: string }).id;
        return req.server.db.tx(async (q) => {
          const before = await one(q, auth.orgId, key);
          if (!before) throw notFound('record', key);
          const updated = await updateRow(q, r, auth.orgId, key, given).catch(unique);
          const after = await one(q, auth.orgId, updated!);
          await audit(q, req, { action: 'update', entity, entityId: key, before, after });
          return after;
        });
      },
    });
  }
  if (mayDelete(r) && (admin.show || admin.edit)) {
    const rec = recordCall(r);
    const collection = rec.path.replace(/\/:id$/, '');
    // Single and bulk delete: all named records or none; a record other rows refer to is refused by name.
    const remove = async (req: FastifyRequest, keys: string[]) => {
      const auth = req.requireAuth();
      return req.server.db.tx(async (q) => {
        const found = await lockRows(q, r, auth.orgId, keys);
        const missing = keys.find((k) => !found.includes(k));
        if (missing !== undefined) throw notFound('record', missing);
        const befores = await Promise.all(keys.map((k) => one(q, auth.orgId, k)));
        for (const [i, k] of keys.entries()) {
          try {
            await deleteRows(q, r, auth.orgId, [k]);
          } catch (e) {
            // Named as the confirmation named it: by the list's first column ("Private net"), not by its id.
            const shown = befores[i]?.[admin.list.columns[0]];
            const name = typeof shown === 'string' || typeof shown === 'number' ? String(shown) : k;
            if ((e as { code?: string }).code === '23503') throw new ApiError(409, CODES.recordInUse, { id: name }, 'errors.recordInUse', { id: k });
            throw e;
          }
        }
        for (const [i, k] of keys.entries()) await audit(q, req, { action: 'delete', entity, entityId: k, before: befores[i] });
        return { deleted: keys.length };
      });
    };
    const answer = { type: 'object', properties: { deleted: { type: 'integer' } } };
    routes.push(
      {
        ...rec,
        method: 'DELETE',
        permission: { action: 'delete', subject },
        schema: { params: pathParams('id'), response: answer },
        handler: async (req) => remove(req, [(req.params as { id: string }).id]),
      },
      {
        ...rec,
        path: collection,
        method: 'DELETE',
        permission: { action: 'delete', subject },
        schema: {
          body: {
            type: 'object',
            additionalProperties: false,
            required: ['ids'],
            properties: { ids: { type: 'array', minItems: 1, maxItems: 100, uniqueItems: true, items: { type: 'string', minLength: 1, maxLength: 100 } } },
          },
          response: answer,
        },
        handler: async (req) => remove(req, (req.body as { ids: string[] }).ids),
      },
    );
  }
  // Its messages name fields by the schema's own labels.
  const labels = Object.fromEntries(Object.entries(admin.translations ?? {}).map(([lang, tr]) => [lang, (tr.fields ?? {}) as Record<string, string>]));
  return routes.map((route) => ({ ...route, labels }));
}

/**
 * GET /api/main/resources: the schemas of the resources with a menu place that the caller's role may read, for the
 * console to build their menu items and pages from. Rules stay on the server; the console only draws.
 */
export const catalogRoute: RouteDef = {
  service: 'main',
  method: 'GET',
  path: '/resources',
  permission: 'signedIn',
  schema: { response: { type: 'object', properties: { items: { type: 'array', items: {} } } } },
  handler: async (req) => {
    const auth = req.requireAuth();
    return { items: req.server.resources.filter((r) => r['x-admin'].menu && auth.ability.can('read', r['x-admin'].subject)) };
  },
};
