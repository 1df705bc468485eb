/**
 * Resources added by a schema alone (docs/schemas.md, "A resource with no TypeScript"): the server loads them from
 * SCHEMAS_DIR at start, answers the calls of those stored "generic" from their table (list, show, create, edit, each
 * validated by the schema's own rules), and tells the console which resources have a menu place.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Subject } from '../../common/permissions.js';
import { RESOURCES } from '../../common/resource-registry.js';
import { defineResource, formBodySchema, type ResourceSchema } from '../../common/resources.js';
import type { Db } from '../db/db.js';
import { newId } from '../db/ids.js';
import { listRoute, recordOf, routeOf, showRoute, snake } from '../db/resource-list.js';
import { invalid, notFound } from '../http/api-error.js';
import { pathParams, type RouteDef } from '../http/route.js';

type SubjectName = Exclude<Subject, 'all'>;

/** The built-in resources and every *.json of dir, checked; a name used twice stops the start. */
export function loadResources(dir?: string): ResourceSchema[] {
  const all = Object.values(RESOURCES);
  if (dir) {
    for (const file of fs.readdirSync(dir).filter((f) => f.endsWith('.json')).sort()) {
      const where = path.join(dir, file);
      let parsed: unknown;
      try {
        parsed = JSON.parse(fs.readFileSync(where, 'utf8'));
      } catch (e) {
        throw new Error(`${where}: not JSON (${(e as Error).message})`, { cause: e });
      }
      const r = defineResource(parsed);
      if (all.some((o) => o['x-admin'].resource === r['x-admin'].resource)) throw new Error(`${where}: the resource "${r['x-admin'].resource}" already exists`);
      all.push(r);
    }
  }
  return all;
}

/** The list, show, create and edit routes of a resource stored generically in its table. */
export function genericRoutes(r: ResourceSchema): RouteDef[] {
  const admin = r['x-admin'];
  const subject = admin.subject as SubjectName;
  const fields = Object.keys(r.properties);
  const keyColumn = `t.${snake(admin.key)}`;
  const record = { type: 'object', properties: r.properties };
  const one = (db: Db, orgId: string, key: string) => recordOf(db, r, orgId, key);
  // A value already taken (a unique index on the table) is named like any other broken rule.
  const unique = (e: unknown): never => {
    const err = e as { code?: string; detail?: string };
    if (err.code === '23505') {
      // "Key (org_id, serial)=(…) already exists.": the field is the key's column that is not the organisation.
      const columns = /Key \(([^)]+)\)/.exec(err.detail ?? '')?.[1].split(/,\s*/) ?? [];
      const field = fields.find((f) => columns.includes(snake(f)) && snake(f) !== 'org_id') ?? admin.key;
      throw invalid(field, 'unique');
    }
    throw e;
  };
  const list = routeOf(admin.list.call);
  const routes: RouteDef[] = [listRoute(r, list.service, list.path, { method: list.method === 'GET' ? 'GET' : 'POST' })];
  if (admin.show) routes.push(showRoute(r));
  if (admin.create) {
    const body = formBodySchema(r, 'create');
    routes.push({
      ...routeOf(admin.create.call),
      permission: { action: 'create', subject },
      schema: { body, response: record },
      handler: async (req) => {
        const auth = req.requireAuth();
        const values = req.body as Record<string, unknown>;
        const given = Object.keys(body.properties).filter((f) => values[f] !== undefined && f !== 'id');
        const id = typeof values.id === 'string' ? values.id : newId();
        const params = [id, auth.orgId, ...given.map((f) => (Array.isArray(values[f]) ? JSON.stringify(values[f]) : values[f]))];
        const inserted = await req.server.db
          .query<{ key: string }>(
            `INSERT INTO ${admin.table} (id, org_id${given.map((f) => `, ${snake(f)}`).join('')})
             VALUES ($1, $2${given.map((_, i) => `, $${i + 3}`).join('')}) RETURNING ${snake(admin.key)}::text AS key`,
            params,
          )
          .catch(unique);
        return one(req.server.db, auth.orgId, inserted.rows[0].key);
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
        const given = Object.keys(body.properties).filter((f) => f in values);
        const key = (req.params as { id: string }).id;
        const updated = await req.server.db
          .query<{ key: string }>(
            `UPDATE ${admin.table} t SET ${given.map((f, i) => `${snake(f)} = $${i + 3}`).join(', ')}
              WHERE t.org_id = $1 AND ${keyColumn}::text = $2 RETURNING ${snake(admin.key)}::text AS key`,
            [auth.orgId, key, ...given.map((f) => (Array.isArray(values[f]) ? JSON.stringify(values[f]) : values[f]))],
          )
          .catch(unique);
        if (!updated.rows[0]) throw notFound('record', key);
        return one(req.server.db, auth.orgId, updated.rows[0].key);
      },
    });
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
