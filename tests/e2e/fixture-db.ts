/**
 * Prepares the database of the fixture server (playwright.config.ts): the product's migrations and demo seed, then the
 * table of the made-up resource tests/fixtures/schemas/gateways.json, which the product does not ship.
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
await db.exec(fs.readFileSync('tests/fixtures/gateways.sql', 'utf8'));
await db.close();
