/**
 * Schema loading: the resource schemas of schemas/ joined by those of SCHEMAS_DIR, as app.resources, with the tables
 * of those stored generically created or widened (server/schema/schema-tables.ts) and their routes, as app.schemaRoutes.
 */
import fp from 'fastify-plugin';
import { startSchemaResources } from '../../schema/schema-routes.js';

export default fp(
  async (app) => {
    const { resources, routes } = await startSchemaResources(app.db, app.config.schemasDir, app.log);
    app.decorate('resources', resources);
    app.decorate('schemaRoutes', routes);
  },
  { name: 'resources', dependencies: ['services'] },
);
