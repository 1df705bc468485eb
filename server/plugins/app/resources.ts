/** Schema loading: the resource schemas of schemas/ joined by those of SCHEMAS_DIR, as app.resources. */
import fp from 'fastify-plugin';
import { loadResources } from '../../main/schema-routes.js';

export default fp(
  async (app) => {
    app.decorate('resources', loadResources(app.config.schemasDir));
  },
  { name: 'resources', dependencies: ['services'] },
);
