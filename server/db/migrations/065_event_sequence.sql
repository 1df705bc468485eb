-- The event log's order comes from a sequencer, not from transaction ids (docs/decisions.md "The event stream: a
-- sequencer on the outbox"). Events are written with seq NULL; the relay (server/events/relay.ts), one instance at a
-- time under event_sequence's row lock, numbers the committed ones on from event_sequence.last in id order. A consumer's
-- cursor is one number: it reads seq > position_seq. No reader waits on the oldest transaction of the server any more,
-- so a long transaction in another database, or an idle one in this, no longer holds every consumer back.
--
-- The upgrade numbers every event already written in the order consumers read them until now, (txid, id), and moves
-- each consumer's cursor to the last event at or before its (txid, id): what it has read stays read, what it has not
-- is still ahead of it. ADD COLUMN takes the table's exclusive lock first, so every transaction writing events has
-- ended and every event is committed when they are numbered.
ALTER TABLE events ADD COLUMN seq bigint;

WITH numbered AS (SELECT created_at, id, row_number() OVER (ORDER BY events.txid, events.id) AS n FROM events)
UPDATE events e SET seq = numbered.n FROM numbered WHERE e.created_at = numbered.created_at AND e.id = numbered.id;

-- The relay's work (events not numbered yet, in id order) and the consumers' reads (by number).
CREATE INDEX events_pending_idx ON events (id) WHERE seq IS NULL;
CREATE INDEX events_seq_idx ON events (seq) WHERE seq IS NOT NULL;

-- The last number given. One row; the relay that holds its lock is the only one numbering.
CREATE TABLE event_sequence (
  only_row boolean PRIMARY KEY DEFAULT true CHECK (only_row),
  last     bigint NOT NULL
);
INSERT INTO event_sequence (last) SELECT coalesce(max(seq), 0) FROM events;

ALTER TABLE event_consumers ADD COLUMN position_seq bigint;
UPDATE event_consumers c
   SET position_seq = coalesce((SELECT max(e.seq) FROM events e WHERE (e.txid, e.id) <= (c.position_txid, c.position_id)), 0);
ALTER TABLE event_consumers ALTER COLUMN position_seq SET NOT NULL;
ALTER TABLE event_consumers DROP COLUMN position_txid, DROP COLUMN position_id;

-- The transaction id ordered the log; nothing reads it now.
DROP INDEX events_cursor_idx;
ALTER TABLE events DROP COLUMN txid;
