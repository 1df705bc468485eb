/** GET /api/health: the load balancers' check, public; 503 when the database does not answer. */
import fp from 'fastify-plugin';
import { CODES } from '../../../common/errors.js';

export default fp(
  async (app) => {
    app.get('/api/health', { config: { permission: 'public' } }, async (req, reply) => {
      try {
        const r = await app.db.query<{ ok: number }>('SELECT 1 AS ok');
        return app.envelope(req, { status: 'ok', database: { kind: app.db.kind, ok: r.rows[0]?.ok === 1 } });
      } catch {
        return reply.status(503).send({ status: { code: CODES.internal, success: false, message: 'database unavailable' }, data: { status: 'down', database: { kind: app.db.kind, ok: false } } });
      }
    });
  },
  { name: 'health', dependencies: ['services', 'envelope'] },
);
