/**
 * docs/schemas.md's worked example (the APN profile), read from the doc itself: its JSON block (the schema a reader
 * copies) and its SQL block (the table the server derives). The API test and the e2e fixture server run that very text.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const DOC = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../docs/schemas.md');

export function apnExample(): { json: string; sql: string } {
  const doc = fs.readFileSync(DOC, 'utf8');
  const section = doc.slice(doc.indexOf('### Worked example: APN profiles'));
  const block = (lang: string) => {
    const m = new RegExp('```' + lang + '\\n([\\s\\S]*?)\\n```').exec(section);
    if (!m) throw new Error(`docs/schemas.md: the APN example has no ${lang} block`);
    return m[1];
  };
  return { json: block('json'), sql: block('sql') };
}
