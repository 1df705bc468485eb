/**
 * GET /api/health: the load balancers' check, public; 503 when the database does not answer. It also says how the
 * event stream keeps up (events waiting in the outbox, each consumer's lag, redeliveries, dead letters: the figures of
 * /metrics), null when they cannot be read (the stream's broker down) — that alone does not make the instance unhealthy,
 * since writes go on and the events wait in the outbox.
 */
import fp from 'fastify-plugin';
import { CODES } from '../../../common/errors.js';

export default fp(
  async (app) => {
    app.get('/api/health', { config: { permission: 'public' } }, async (req, reply) => {
      try {
        const r = await app.db.query<{ ok: number }>('SELECT 1 AS ok');
        const events = await app.eventStats.read().catch((err: unknown) => {
          req.log.warn({ err }, 'event stream figures unavailable');
          return null;
        });
        return app.envelope(req, { status: 'ok', database: { kind: app.db.kind, ok: r.rows[0]?.ok === 1 }, events });
      } catch {
        return reply.status(503).send({
          status: { code: CODES.internal, success: false, message: 'database unavailable' },
          data: { status: 'down', database: { kind: app.db.kind, ok: false } },
        });
      }
    });
  },
  { name: 'health', dependencies: ['services', 'envelope', 'metrics'] },
);
