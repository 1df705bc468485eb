/**
 * Prepares an e2e database in DATA_DIR: the product's migrations and demo seed (with the files it lists). With
 * `--fixture`, also the fixture server's SCHEMAS_DIR: tests/fixtures/schemas and docs/schemas.md's APN example as the
 * doc writes it; the server derives their tables at its start.
 * The seeded folder is the template every Playwright worker copies for its own server (tests/e2e/fixtures.ts).
 */
import fs from 'node:fs';
import path from 'node:path';
import { loadConfig } from '../../server/config.js';
import { migrate, openDb } from '../../server/db/db.js';
import { seedDemo } from '../../server/db/seed.js';
import { filesIn } from '../../server/job/storage.js';
import { apnExample } from '../doc-example.js';
import { FIXTURE_SCHEMAS_DIR } from './e2e-env';

if (process.argv.includes('--fixture')) {
  fs.rmSync(FIXTURE_SCHEMAS_DIR, { recursive: true, force: true });
  fs.mkdirSync(FIXTURE_SCHEMAS_DIR, { recursive: true });
  for (const f of fs.readdirSync('tests/fixtures/schemas')) fs.copyFileSync(path.join('tests/fixtures/schemas', f), path.join(FIXTURE_SCHEMAS_DIR, f));
  fs.writeFileSync(path.join(FIXTURE_SCHEMAS_DIR, 'apn-profiles.json'), apnExample().json);
}

const config = loadConfig();
const db = await openDb(config);
await migrate(db);
await seedDemo(db, { files: filesIn(config.dataDir) });
await db.close();
