/** Write docs/permissions.md (npm run docs:permissions); with --check, fail when it differs from what the rules give. */
import fs from 'node:fs';
import { pathToFileURL } from 'node:url';
import { ALL_ROUTES } from '../server/routes.js';
import { genericRoutes, loadResources } from '../server/schema/schema-routes.js';
import { permissionsMarkdown } from './permissions-doc.js';

export const PERMISSIONS_DOC = 'docs/permissions.md';

/** The markdown docs/permissions.md should hold for the routes registered today: schemas/ and SCHEMAS_DIR included. */
export const generatePermissionsDoc = (schemasDir = process.env.SCHEMAS_DIR): string => {
  const resources = loadResources(schemasDir);
  const generic = resources.filter((r) => r['x-admin'].storage === 'generic').flatMap(genericRoutes);
  return permissionsMarkdown([...ALL_ROUTES, ...generic], resources);
};

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const md = generatePermissionsDoc();
  if (process.argv.includes('--check')) {
    const current = fs.existsSync(PERMISSIONS_DOC) ? fs.readFileSync(PERMISSIONS_DOC, 'utf8') : '';
    if (current !== md) {
      console.error(`${PERMISSIONS_DOC} is out of date: run npm run docs:permissions`);
      process.exit(1);
    }
    console.log(`${PERMISSIONS_DOC} is in sync`);
  } else {
    fs.writeFileSync(PERMISSIONS_DOC, md);
    console.log(`wrote ${PERMISSIONS_DOC}`);
  }
}
