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
import { derivedDdl } from '../../server/schema/schema-tables.js';
import type { ResourceSchema } from '../../common/resources.js';
import { filesIn } from '../../server/job/storage.js';
import { apnExample } from '../doc-example.js';
import { FIXTURE_SCHEMAS_DIR } from './e2e-env';

if (process.argv.includes('--fixture')) {
  fs.rmSync(FIXTURE_SCHEMAS_DIR, { recursive: true, force: true });
  fs.mkdirSync(FIXTURE_SCHEMAS_DIR, { recursive: true });
  for (const f of fs.readdirSync('tests/fixtures/schemas')) fs.copyFileSync(path.join('tests/fixtures/schemas', f), path.join(FIXTURE_SCHEMAS_DIR, f));
  fs.writeFileSync(path.join(FIXTURE_SCHEMAS_DIR, 'apn-profiles.json'), apnExample().json);
  // The gateways' table as derived, whose apnProfileId refers to an APN profile (a migration beside the schema, as
  // docs/schemas.md allows): a profile a gateway names is one the server refuses to delete.
  const gateways = JSON.parse(fs.readFileSync('tests/fixtures/schemas/gateways.json', 'utf8')) as ResourceSchema;
  const fail = (what: string): never => {
    throw new Error(`gateways.json: ${what}`);
  };
  fs.writeFileSync(
    path.join(FIXTURE_SCHEMAS_DIR, 'gateways.sql'),
    `${derivedDdl(gateways, fail)}\nALTER TABLE gateways ADD FOREIGN KEY (apn_profile_id) REFERENCES apn_profiles(id);\n`,
  );
}

const config = loadConfig();
const db = await openDb(config);
await migrate(db);
await seedDemo(db, { files: filesIn(config.dataDir) });
await db.close();
