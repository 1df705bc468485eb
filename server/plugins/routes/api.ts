/**
 * The API's routes: every route of server/routes.ts (add a feature's routes there), the generic calls of the schema
 * resources stored in their own table, and any extra routes the caller gives (tests' fixtures).
 */
import fp from 'fastify-plugin';
import { registerRoutes, type RouteDef } from '../../http/route.js';
import { ALL_ROUTES } from '../../routes.js';
import { genericRoutes } from '../../main/schema-routes.js';

export default fp<{ routes: RouteDef[] }>(
  async (app, { routes }) => {
    const generic = app.resources.filter((r) => r['x-admin'].storage === 'generic').flatMap(genericRoutes);
    const all = [...ALL_ROUTES, ...generic, ...routes];
    app.decorate('routeDefs', all);
    registerRoutes(app, all);
  },
  { name: 'api-routes', dependencies: ['resources'] },
);
