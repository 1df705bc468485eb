/**
 * The API's answers of 1 KB and more are compressed (brotli or gzip, as the client accepts; small ones are not).
 * The console's files are not: they are compressed at build time (scripts/precompress.ts) and @fastify/static sends
 * the .br or .gz beside each. Event streams are written raw (reply.hijack) and never pass through this hook.
 * Request bodies are not decompressed (as before).
 */
import fp from 'fastify-plugin';
import compress from '@fastify/compress';

export default fp(
  async (app) => {
    app.addHook('onRoute', (route) => {
      if (!route.url.startsWith('/api/')) route.compress = false;
    });
    await app.register(compress, { global: true, globalDecompression: false, threshold: 1024, encodings: ['br', 'gzip'] });
  },
  { name: 'compress' },
);
