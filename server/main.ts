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

const shutdown = async (signal: string) => {
  app.log.info({ signal }, 'shutting down');
  await app.close();
  await db.close();
  process.exit(0);
};
process.on('SIGINT', () => void shutdown('SIGINT'));
process.on('SIGTERM', () => void shutdown('SIGTERM'));

await app.listen({ port: config.port, host: config.host });
app.log.info(`console and API on ${config.tls ? 'https' : 'http'}://localhost:${config.port} (${db.kind}${db.kind === 'pglite' ? ` in ${config.dataDir}` : ''})`);
