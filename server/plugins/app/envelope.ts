/** The envelope of every successful answer: { status: { code, success, message }, data }, in the caller's language. */
import fp from 'fastify-plugin';
import type { FastifyRequest } from 'fastify';
import { CODES } from '../../../common/errors.js';
import { translate } from '../../../common/i18n.js';

export default fp(
  async (app) => {
    app.decorate('envelope', (req: FastifyRequest, data: unknown) => ({
      status: { code: CODES.ok, success: true, message: translate(req.lang, 'errors.ok') },
      data,
    }));
  },
  { name: 'envelope' },
);
