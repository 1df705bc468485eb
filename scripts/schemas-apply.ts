/**
 * npm run schemas:apply: create or widen the tables of the generic resources of schemas/ and SCHEMAS_DIR in the
 * PostgreSQL of DATABASE_URL, as the server does at its start (docs/schemas.md, "Its table"), without starting it.
 * The project's own migrations run first. A schema mistake stops with its file, and nothing is written.
 */
import { loadConfig } from '../server/config.js';
import { migrate, openDb } from '../server/db/db.js';
import { loadResources, tablePlansOf } from '../server/schema/schema-routes.js';
import { applySchemaTables } from '../server/schema/schema-tables.js';

const config = loadConfig();
if (!config.databaseUrl) {
  console.error("schemas:apply needs DATABASE_URL (the embedded database applies the tables at the server's start)");
  process.exit(2);
}
const resources = loadResources(config.schemasDir);
const db = await openDb(config);
try {
  await migrate(db);
  const done = await applySchemaTables(db, tablePlansOf(resources));
  console.log(done.length ? done.join('\n') : 'the schema tables are up to date');
} catch (e) {
  console.error((e as Error).message);
  process.exitCode = 1;
} finally {
  await db.close();
}
