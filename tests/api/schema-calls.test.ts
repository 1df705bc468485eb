/**
 * Every call an x-admin names (list, show, create, edit, a filter's options) is a route the server registers, for the
 * resources of schemas/ and of SCHEMAS_DIR (the fixture folder when none is set): a schema cannot point the console
 * at a call that does not exist.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { fullPath } from '../../server/http/route.js';
import { genericRoutes, loadResources } from '../../server/schema/schema-routes.js';
import { ALL_ROUTES } from '../../server/routes.js';

const SCHEMAS_DIR = process.env.SCHEMAS_DIR ?? path.resolve(__dirname, '../fixtures/schemas');
const resources = loadResources(SCHEMAS_DIR);
const routes = [...ALL_ROUTES, ...resources.filter((r) => r['x-admin'].storage === 'generic').flatMap(genericRoutes)];
/** "GET /api/main/x/:id" with any parameter name as "GET /api/main/x/:" (a query string names no route). */
const shape = (call: string) => call.split('?')[0].replace(/:\w+/g, ':');
const registered = new Set(routes.map((r) => shape(`${r.method} ${fullPath(r)}`)));

const calls = resources.flatMap((r) => {
  const a = r['x-admin'];
  const named: Array<[string, string]> = [[`${a.resource} list.call`, a.list.call]];
  for (const [f, c] of Object.entries(a.list.filterOptions ?? {})) named.push([`${a.resource} list.filterOptions.${f}`, c]);
  if (a.show) named.push([`${a.resource} show.call`, a.show.call]);
  if (a.create) named.push([`${a.resource} create.call`, a.create.call]);
  if (a.edit) named.push([`${a.resource} edit.call`, a.edit.call]);
  return named;
});

describe('every x-admin call is a registered route', () => {
  it('covers the resources of schemas/ and SCHEMAS_DIR', () => {
    expect(resources.some((r) => r['x-admin'].storage === 'generic')).toBe(true);
    expect(calls.length).toBeGreaterThan(resources.length);
  });
  it.each(calls)('%s: %s', (_where, call) => {
    expect(registered.has(shape(call)), `${call} is not registered`).toBe(true);
  });
});
