/** Entry point: open the database, migrate, seed on first start, serve. */
import { buildApp } from './app.js';
import { loadConfig } from './config.js';
import { migrate, openDb } from './db/db.js';
import { seedDemo } from './db/seed.js';
import { filesIn } from './job/storage.js';

const config = loadConfig();
const db = await openDb(config);
await migrate(db);
if (config.seed) await seedDemo(db, { files: filesIn(config.dataDir) });
const app = await buildApp({ config, db });

// SIGTERM (a deployment, a container stop) or SIGINT (Ctrl-C): no new work; work in flight finishes or is handed back
// to the database for the next instance (server/plugins/app/lifecycles.ts), the database is closed, exit 0; all within
// SHUTDOWN_TIMEOUT_SECONDS. Should anything still hang then, the process ends anyway, with exit code 1 and a log line.
let stopping = false;
const shutdown = async (signal: string) => {
  if (stopping) return app.log.info({ signal }, 'already shutting down');
  stopping = true;
  const started = Date.now();
  app.log.info({ signal, timeoutSeconds: config.shutdownTimeoutSeconds }, 'shutting down');
  const backstop = setTimeout(() => {
    app.log.error({ signal, timeoutSeconds: config.shutdownTimeoutSeconds }, 'did not stop within SHUTDOWN_TIMEOUT_SECONDS: exiting anyway');
    process.exit(1);
  }, config.shutdownTimeoutSeconds * 1000);
  backstop.unref();
  try {
    await app.close();
  } catch (err) {
    app.log.error({ err }, 'while closing the server');
  }
  // PGlite writes what it holds to DATA_DIR so the next start opens it as it was; PostgreSQL's pool ends its connections.
  try {
    await db.close();
  } catch (err) {
    app.log.error({ err }, 'while closing the database');
    process.exit(1);
  }
  app.log.info({ signal, ms: Date.now() - started }, 'stopped');
  process.exit(0);
};
process.on('SIGINT', () => void shutdown('SIGINT'));
process.on('SIGTERM', () => void shutdown('SIGTERM'));

await app.listen({ port: config.port, host: config.host });
app.log.info(
  `console and API on ${config.tls ? 'https' : 'http'}://localhost:${config.port} (${db.kind}${db.kind === 'pglite' ? ` in ${config.dataDir}` : ''})`,
);
