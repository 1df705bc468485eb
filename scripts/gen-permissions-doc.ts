/** Write docs/permissions.md; with --check, fail when it differs from what the rules give. */
import fs from 'node:fs';
import { ALL_ROUTES } from '../server/routes.js';
import { permissionsMarkdown } from './permissions-doc.js';

const file = 'docs/permissions.md';
const md = permissionsMarkdown(ALL_ROUTES);
if (process.argv.includes('--check')) {
  const current = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';
  if (current !== md) {
    console.error(`${file} is out of date: run npm run docs:permissions`);
    process.exit(1);
  }
  console.log(`${file} is in sync`);
} else {
  fs.writeFileSync(file, md);
  console.log(`wrote ${file}`);
}
