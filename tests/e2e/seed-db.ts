/**
 * Prepares an e2e database in DATA_DIR: the product's migrations and demo seed (with the files it lists), and with
 * `--fixture` the table of the made-up resource tests/fixtures/schemas/gateways.json, which the product does not ship.
 * The seeded folder is the template every Playwright worker copies for its own server (tests/e2e/fixtures.ts).
 */
import fs from 'node:fs';
import { loadConfig } from '../../server/config.js';
import { migrate, openDb } from '../../server/db/db.js';
import { seedDemo } from '../../server/db/seed.js';
import { filesIn } from '../../server/job/storage.js';

const config = loadConfig();
const db = await openDb(config);
await migrate(db);
await seedDemo(db, { files: filesIn(config.dataDir) });
if (process.argv.includes('--fixture')) await db.exec(fs.readFileSync('tests/fixtures/gateways.sql', 'utf8'));
await db.close();
