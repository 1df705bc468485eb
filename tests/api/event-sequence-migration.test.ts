/**
 * Migration 065 on a log written before it (cursors on transaction and id): every event is numbered in the order the
 * consumers read it until then, and each consumer's cursor becomes the number of the last event it had read, so across
 * the upgrade no event is handed to a consumer twice and none is skipped.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate, type Db } from '../../server/db/db.js';
import { appendEvents, readEvents } from '../../server/events/event-log.js';
import { relayOnce } from '../../server/events/relay.js';
import { DB_KINDS, emptyDb } from '../helper.js';

const MIGRATION = '065_event_sequence.sql';
/** 065 and whatever comes after it: held back for the first run, so the database is as it was before the upgrade. */
const LATER = fs
  .readdirSync(path.join(import.meta.dirname, '../../server/db/migrations'))
  .filter((f) => f.endsWith('.sql') && f >= MIGRATION)
  .sort();

describe.each(DB_KINDS)('migration 065 on %s', (kind) => {
  let db: Db;
  let drop: () => Promise<void>;
  beforeAll(async () => {
    ({ db, drop } = await emptyDb(kind));
    await db.query('CREATE TABLE schema_migrations (name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())');
    await db.query('INSERT INTO schema_migrations (name) SELECT unnest($1::text[])', [LATER]);
    await migrate(db);
  });
  afterAll(() => drop?.());

  it('numbers the events in (transaction, id) order and moves each cursor to the last event it had read', async () => {
    // Written in this order, by transactions 200, 100, 150, 300, 150: the old order of reading is b, c, e, a, d.
    const ids: Record<string, string> = {};
    for (const [subject, txid] of [
      ['a', 200],
      ['b', 100],
      ['c', 150],
      ['d', 300],
      ['e', 150],
    ] as const) {
      const r = await db.query<{ id: string }>(
        `INSERT INTO events (txid, org_id, type, subtype, subject) VALUES ($1::text::xid8, 'org-x', 'task', 'finished', $2) RETURNING id::text`,
        [txid, subject],
      );
      ids[subject] = r.rows[0].id;
    }
    const cursors: Array<[string, number, string]> = [
      // Had read nothing of these (a consumer made at transaction 100, before any of its events).
      ['at_start', 100, '0'],
      // Had read b and c (transaction 150 up to c's id): e, of the same transaction, is still ahead.
      ['mid', 150, ids.c],
      // Had read b, c, e and a: made at transaction 250.
      ['made_later', 250, '0'],
      // Had read everything.
      ['at_end', 300, ids.d],
    ];
    for (const [name, txid, id] of cursors) {
      await db.query('INSERT INTO event_consumers (name, position_txid, position_id) VALUES ($1, $2::text::xid8, $3::bigint)', [name, txid, id]);
    }
    await db.query('DELETE FROM schema_migrations WHERE name = ANY($1::text[])', [LATER]);
    expect(await migrate(db)).toEqual(LATER);

    const ahead = async (name: string) => {
      const { position_seq } = (await db.query<{ position_seq: string }>('SELECT position_seq::text FROM event_consumers WHERE name = $1', [name])).rows[0];
      return (await readEvents(db, { seq: position_seq }, 100)).events.map((e) => e.subject);
    };
    expect(await ahead('at_start')).toEqual(['b', 'c', 'e', 'a', 'd']);
    expect(await ahead('mid')).toEqual(['e', 'a', 'd']);
    expect(await ahead('made_later')).toEqual(['d']);
    expect(await ahead('at_end')).toEqual([]);

    // The sequence goes on after the last number given: an event written now comes after all of them.
    expect((await db.query<{ last: string }>('SELECT last::text AS last FROM event_sequence')).rows[0].last).toBe('5');
    await appendEvents(db, [{ orgId: 'org-x', type: 'task', subtype: 'finished', subject: 'f' }]);
    expect(await relayOnce(db)).toBe(1);
    expect(await ahead('at_end')).toEqual(['f']);
    expect(await ahead('mid')).toEqual(['e', 'a', 'd', 'f']);
  });
});
