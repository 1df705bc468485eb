/**
 * The server on the JetStream path (NATS_URL set): the relay publishes the outbox to the stream and the consumers read
 * it there — what was committed before they existed is history to them, an SMS event reaches the live pages through
 * NATS, and health reports the stream's consumers. With NATS not
 * answering at start the server starts all the same and the events wait in the outbox. On PGlite and PostgreSQL.
 */
import { describe, expect, it, vi } from 'vitest';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { appendEvents } from '../../server/events/event-log.js';
import { newId } from '../../server/db/ids.js';
import { DB_KINDS, signedInSuite } from '../helper.js';
import { until } from '../wait.js';
import { NATS_URL, natsAnswers } from '../nats.js';

vi.setConfig({ testTimeout: 90_000 });

describe.skipIf(!natsAnswers).each(DB_KINDS)('the server on the JetStream path on %s', (kind) => {
  const stream = `TEST_${newId(10).replace(/[^A-Za-z0-9]/g, 'x')}`;
  const suite = signedInSuite({ kind, config: { jobs: true, jobPollMs: 200, natsUrl: NATS_URL, natsStream: stream } });

  it('treats what was committed before its consumers existed as history: the demo’s SMS reach no live page', async () => {
    await until(
      'the consumers to catch up',
      async () => {
        const events = (await suite.t.app.inject({ method: 'GET', url: '/api/health' })).json().data.events;
        const live = (events?.consumers ?? []).find((c: { consumer: string }) => c.consumer === 'live');
        return events?.outbox === 0 && live?.pending === 0 ? true : undefined;
      },
      60_000,
    );
    // The seeded messages are dated in the past; messages the instance's own jobs send now may be shown.
    const shownHistory = await suite.t.db.query(
      `SELECT x.id FROM live_events l, jsonb_array_elements_text(l.data->'smsIds') AS x(id)
         JOIN sms_records r ON r.id = x.id
        WHERE l.type = 'sms' AND r.created_at < now() - interval '1 minute'`,
    );
    expect(shownHistory.rows).toEqual([]);
  });

  it('carries an SMS event through NATS to the live pages, and health names the stream’s consumers', async () => {
    const org = (await suite.t.db.query<{ id: string }>('SELECT id FROM organisations ORDER BY id LIMIT 1')).rows[0]!.id;
    const smsId = `sms-${newId(8)}`;
    await appendEvents(suite.t.db, [{ orgId: org, type: 'sms', subtype: 'received', subject: '89860000000000000001', data: { smsId } }]);
    await until(
      'the live event',
      async () =>
        (await suite.t.db.query('SELECT 1 FROM live_events WHERE org_id = $1 AND data::text LIKE $2', [org, `%${smsId}%`])).rows.length ? true : undefined,
      60_000,
    );

    const nc = await connect({ servers: NATS_URL });
    try {
      const info = await (await jetstreamManager(nc)).streams.info(stream);
      expect(info.state.messages).toBeGreaterThanOrEqual(1);
      expect(info.config.subjects).toEqual([`${stream.toLowerCase()}.>`]);
    } finally {
      await nc.close();
    }
    const health = (await suite.t.app.inject({ method: 'GET', url: '/api/health' })).json().data;
    expect(health.events.consumers.map((c: { consumer: string }) => c.consumer)).toEqual(expect.arrayContaining(['live', 'webhooks', 'autoflow']));
    // The instance's own jobs write events too: the outbox empties once the relay's next round has published them.
    await until(
      'an empty outbox',
      async () => ((await suite.t.app.inject({ method: 'GET', url: '/api/health' })).json().data.events.outbox === 0 ? true : undefined),
      30_000,
    );
  });

  it('deletes its stream', async () => {
    await suite.t.app.close();
    const nc = await connect({ servers: NATS_URL });
    try {
      await (await jetstreamManager(nc)).streams.delete(stream);
    } finally {
      await nc.close();
    }
  });
});

describe('the server with NATS not answering at start', () => {
  const suite = signedInSuite({ kind: 'pglite', config: { jobs: true, jobPollMs: 200, natsUrl: 'nats://127.0.0.1:1', natsStream: 'UNREACHABLE' } });

  it('answers and keeps events in the outbox', async () => {
    const org = (await suite.t.db.query<{ id: string }>('SELECT id FROM organisations ORDER BY id LIMIT 1')).rows[0]!.id;
    await appendEvents(suite.t.db, [{ orgId: org, type: 'sms', subtype: 'received', subject: '89860000000000000002', data: { smsId: 'waiting' } }]);
    const health = await suite.t.app.inject({ method: 'GET', url: '/api/health' });
    expect(health.statusCode).toBe(200);
    // Nothing numbers an event while the stream cannot take it: it waits, committed, for NATS (checked over ten of the
    // in-database relay's polls, which would have numbered it by then).
    for (let i = 0; i < 10; i++) {
      const pending = await suite.t.db.query(`SELECT 1 FROM events WHERE seq IS NULL AND data->>'smsId' = 'waiting'`);
      expect(pending.rows.length).toBe(1);
      await new Promise((r) => setTimeout(r, 200));
    }
  });
});
