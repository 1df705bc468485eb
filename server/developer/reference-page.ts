/**
 * The public API's interactive reference: Swagger UI from the swagger-ui-dist package, served by this
 * server (the console's CSP allows only its own scripts), reading GET /api/public/openapi.json. Loaded only on this
 * page, never by the console. GET /api/public/reference is the page; its three files are served beside it.
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { notFound } from '../http/api-error.js';
import { defineRoutes, pathParams } from '../http/route.js';

const require = createRequire(import.meta.url);
const DIST = path.dirname(require.resolve('swagger-ui-dist/package.json'));

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>IoT Connect public API reference</title>
<link rel="stylesheet" href="/api/public/reference/swagger-ui.css">
</head>
<body>
<main id="swagger-ui"></main>
<script src="/api/public/reference/swagger-ui-bundle.js"></script>
<script src="/api/public/reference/init.js"></script>
</body>
</html>
`;
// No inline script: the page's own start-up is a file too.
const INIT = `window.ui = SwaggerUIBundle({ url: '/api/public/openapi.json', dom_id: '#swagger-ui', deepLinking: true, tryItOutEnabled: false });\n`;
const FILES: Record<string, { type: string; body: () => Buffer | string }> = {
  'swagger-ui.css': { type: 'text/css; charset=utf-8', body: () => fs.readFileSync(path.join(DIST, 'swagger-ui.css')) },
  'swagger-ui-bundle.js': { type: 'text/javascript; charset=utf-8', body: () => fs.readFileSync(path.join(DIST, 'swagger-ui-bundle.js')) },
  'init.js': { type: 'text/javascript; charset=utf-8', body: () => INIT },
};

export const referenceRoutes = defineRoutes([
  {
    service: 'public',
    method: 'GET',
    path: '/reference',
    permission: 'public',
    schema: { response: {} },
    raw: true,
    handler: async (_req, reply) => reply.header('cache-control', 'no-cache').type('text/html; charset=utf-8').send(PAGE),
  },
  {
    service: 'public',
    method: 'GET',
    path: '/reference/:file',
    permission: 'public',
    schema: { params: pathParams('file'), response: {} },
    raw: true,
    handler: async (req, reply) => {
      const { file } = req.params as { file: string };
      const f = Object.hasOwn(FILES, file) ? FILES[file] : undefined;
      if (!f) throw notFound('record', file);
      return reply.header('cache-control', 'public, max-age=3600').type(f.type).send(f.body());
    },
  },
]);
