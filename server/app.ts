/**
 * Builds the Fastify app from plugins in the order external → app → routes, as fastify/demo does (there by
 * @fastify/autoload, here listed): server/plugins/external, server/plugins/app (and the request plugins of server/http),
 * server/plugins/routes. The instance's decorators are declared in server/plugins/app/services.ts.
 */
import fs from 'node:fs';
import Fastify, { type FastifyInstance, type FastifyReply } from 'fastify';
import cookie from '@fastify/cookie';
import { CODES } from '../common/errors.js';
import { pickLanguage } from '../common/limits.js';
import { translate } from '../common/i18n.js';
import type { Config } from './config.js';
import type { Db } from './db/db.js';
import { newId } from './db/ids.js';
import type { RouteDef } from './http/route.js';
import context from './http/context.js';
import inputGuard from './http/input-guard.js';
import rateLimits from './http/rate-limit.js';
import { publicApiLog } from './developer/public-api.js';
import ajv from './plugins/external/ajv.js';
import uploads from './plugins/external/uploads.js';
import csp from './plugins/external/csp.js';
import compress from './plugins/external/compress.js';
import services from './plugins/app/services.js';
import lifecycles from './plugins/app/lifecycles.js';
import metrics from './plugins/app/metrics.js';
import envelope from './plugins/app/envelope.js';
import errorHandler from './plugins/app/error-handler.js';
import resources from './plugins/app/resources.js';
import health from './plugins/routes/health.js';
import apiRoutes from './plugins/routes/api.js';
import consoleFiles from './plugins/routes/console.js';

export interface BuildOptions {
  config: Config;
  db: Db;
  /** Extra routes (tests register fixtures this way). */
  routes?: RouteDef[];
  logger?: boolean;
}

/** Build the app on an open, migrated database. */
export async function buildApp({ config, db, routes = [], logger = true }: BuildOptions): Promise<FastifyInstance> {
  // With a certificate the server ends TLS itself and speaks HTTP/2 to browsers that offer it (one connection for the
  // console's ~80 files instead of six at a time), HTTP/1.1 to other clients. The routes see the same requests either way.
  const tls = config.tls
    ? { http2: true as const, https: { allowHTTP1: true, cert: fs.readFileSync(config.tls.certFile), key: fs.readFileSync(config.tls.keyFile) } }
    : {};
  const app = Fastify({
    // The HTTP/2 options' types describe another server type; the instance is used as the HTTP/1.1 one (cast below).
    ...(tls as object),
    logger: logger ? { level: config.logLevel, redact: ['req.headers.authorization', 'req.headers.cookie'] } : false,
    genReqId: (req) =>
      typeof req.headers['x-request-id'] === 'string' && /^[\w-]{1,64}$/.test(req.headers['x-request-id']) ? req.headers['x-request-id'] : newId(16),
    // Forwarded headers only from the proxies named in TRUST_PROXY (none by default): req.ip and req.protocol.
    trustProxy: config.trustProxy,
    bodyLimit: 2 * 1024 * 1024,
    // A URL whose percent-encoding is not UTF-8 never reaches a route: answered here, in the envelope, naming the URL.
    frameworkErrors: (err, req, reply) => {
      const lang = pickLanguage(req.headers.language as string | undefined);
      const bad = err.code === 'FST_ERR_BAD_URL';
      return (reply as FastifyReply).status(400).send({
        status: {
          code: bad ? CODES.validation : CODES.badRequest,
          success: false,
          message: bad ? translate(lang, 'rules.badUrl') : translate(lang, 'errors.badRequest'),
        },
        data: bad ? { field: 'url', rule: 'badUrl' } : null,
      });
    },
  }) as unknown as FastifyInstance;

  // External plugins (server/plugins/external).
  await app.register(ajv);
  await app.register(cookie);
  await app.register(uploads);
  await app.register(csp);
  await app.register(compress);

  // App plugins (server/plugins/app, server/http): services, their lifecycles, the envelope, each request's checks and
  // context, the error handler, the resource schemas.
  await app.register(services, { config, db });
  await app.register(metrics);
  await app.register(lifecycles);
  await app.register(envelope);
  // Before the context: a NUL in partnerCode must not reach the membership query either.
  await app.register(inputGuard);
  await app.register(context);
  await app.register(rateLimits);
  await app.register(publicApiLog);
  await app.register(errorHandler);
  // Resources of SCHEMAS_DIR join schemas/; those stored generically get their calls answered from their table.
  await app.register(resources);

  // Routes (server/plugins/routes; the API's routes are listed in server/routes.ts).
  await app.register(health);
  await app.register(apiRoutes, { routes });
  await app.register(consoleFiles);

  return app;
}
