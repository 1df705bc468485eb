/**
 * The API's routes: every route of server/routes.ts (add a feature's routes there), the generic calls of the schema
 * resources stored in their own table, and any extra routes the caller gives (tests' fixtures).
 */
import fp from 'fastify-plugin';
import { registerRoutes, type RouteDef } from '../../http/route.js';
import { ALL_ROUTES } from '../../routes.js';

export default fp<{ routes: RouteDef[] }>(
  async (app, { routes }) => {
    const all = [...ALL_ROUTES, ...app.schemaRoutes, ...routes];
    app.decorate('routeDefs', all);
    registerRoutes(app, all);
  },
  { name: 'api-routes', dependencies: ['resources'] },
);
