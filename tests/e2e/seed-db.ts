/**
 * Prepares an e2e database in DATA_DIR: the product's migrations and demo seed (with the files it lists). The tables of
 * SCHEMAS_DIR's resources (tests/fixtures/schemas/) are derived by the server at its start.
 * The seeded folder is the template every Playwright worker copies for its own server (tests/e2e/fixtures.ts).
 */
import { loadConfig } from '../../server/config.js';
import { migrate, openDb } from '../../server/db/db.js';
import { seedDemo } from '../../server/db/seed.js';
import { filesIn } from '../../server/job/storage.js';

const config = loadConfig();
const db = await openDb(config);
await migrate(db);
await seedDemo(db, { files: filesIn(config.dataDir) });
await db.close();
