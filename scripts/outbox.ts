/** Print the last mails of the outbox (mail that was not sent through SMTP_URL). */
import { loadConfig } from '../server/config.js';
import { openDb } from '../server/db/db.js';

const config = loadConfig();
const db = await openDb(config);
const limit = Number(process.argv[2] ?? 10);
const rows = (
  await db.query<{ id: string; created_at: Date; to_address: string; subject: string; body: string; sent_at: Date | null }>(
    'SELECT id, created_at, to_address, subject, body, sent_at FROM outbox ORDER BY id DESC LIMIT $1',
    [limit],
  )
).rows;
for (const r of rows) {
  console.log(
    `#${r.id} ${new Date(r.created_at).toISOString()} to ${r.to_address}${r.sent_at ? ' (sent)' : ''}\n  ${r.subject}\n  ${r.body.replace(/\n/g, '\n  ')}\n`,
  );
}
if (rows.length === 0) console.log('The outbox is empty.');
await db.close();
