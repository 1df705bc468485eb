/**
 * Uploads (SPEC.md section 5): one file of at most 1 MB per request; a larger one is refused by name (app/error-handler.ts),
 * as is a request whose Content-Length passes the body limit, before its body is read (http/multipart.ts).
 */
import fp from 'fastify-plugin';
import multipart from '@fastify/multipart';
import { LIMITS } from '../../../common/limits.js';
import { uploadLimits } from '../../http/multipart.js';

export default fp(
  async (app) => {
    await app.register(multipart, { limits: { fileSize: LIMITS.uploadBytes, files: 1, fields: 50, fieldSize: LIMITS.uploadBytes } });
    uploadLimits(app);
  },
  { name: 'uploads' },
);
