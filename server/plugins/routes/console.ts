/**
 * The built console, with the SPA fallback for its routes, and the 404 of everything else: a missing API path or a
 * missing built file is named as such, never answered with the console's index.html.
 */
import fs from 'node:fs';
import path from 'node:path';
import fp from 'fastify-plugin';
import fastifyStatic from '@fastify/static';
import { CODES } from '../../../common/errors.js';
import { translate } from '../../../common/i18n.js';

export default fp(
  async (app) => {
    const { consoleDir } = app.config;
    const index = path.join(consoleDir, 'index.html');
    const hasConsole = fs.existsSync(index);
    if (hasConsole) {
      // Content negotiation: the .br or .gz written beside each file at build time, by Accept-Encoding (Vary says so).
      // Hashed files (assets/) never change under their name; index.html must be asked for again on every visit.
      await app.register(fastifyStatic, {
        root: consoleDir,
        wildcard: false,
        index: false,
        preCompressed: true,
        cacheControl: false,
        setHeaders: consoleCacheHeaders(consoleDir),
      });
    }
    app.setNotFoundHandler((req, reply) => {
      // A missing API path, or a missing built file (an old page asking for assets of an earlier build), is a 404,
      // never the console's index.html served as that file.
      if (req.url.startsWith('/api/') || req.url.startsWith('/assets/') || req.method !== 'GET') {
        // Named as a missing call, so that a client tells a wrong URL from a wrong id (a record's 404 names the record).
        const path = req.url.split('?')[0].slice(0, 200);
        return reply
          .status(404)
          .send({ status: { code: CODES.notFound, success: false, message: translate(req.lang, 'errors.noRoute', { method: req.method, path }) }, data: null });
      }
      if (!hasConsole) return reply.status(404).type('text/plain').send('The console is not built: run npm run build.');
      return reply.type('text/html').sendFile('index.html');
    });
  },
  { name: 'console', dependencies: ['services'] },
);

/** Cache-Control of the console's files: a year and immutable under assets/ (hashed names), no-cache for index.html. */
function consoleCacheHeaders(root: string) {
  const assets = path.join(root, 'assets') + path.sep;
  return (reply: { header(name: string, value: string): unknown }, file: string) => {
    if (file.startsWith(assets)) reply.header('cache-control', 'public, max-age=31536000, immutable');
    else if (/[\\/]index\.html(?:\.br|\.gz)?$/.test(file)) reply.header('cache-control', 'no-cache');
    else reply.header('cache-control', 'public, max-age=3600');
  };
}
