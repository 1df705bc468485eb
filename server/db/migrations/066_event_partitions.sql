-- Consumers of the event stream on NATS JetStream (server/events/jetstream.ts, docs/decisions.md "The event stream: a
-- sequencer on the outbox, JetStream when NATS_URL is set"). The stream's subjects are split into a fixed number of
-- partitions; each consumer has one durable JetStream consumer per partition, read by one instance at a time: the one
-- holding that partition's lease here.
--
-- last_stream_seq is the stream sequence of the last message of the partition whose effects are committed, written in
-- the same transaction as those effects: a redelivery at or below it is acknowledged without being handled again.
-- stream_id names the stream it counts in (its name and creation time): a stream deleted and made anew numbers from 1
-- again, and the number is then reset instead of skipping everything below the old one.
CREATE TABLE event_partitions (
  consumer        text NOT NULL,
  partition       integer NOT NULL CHECK (partition >= 0),
  lease_owner     text,
  lease_until     timestamptz,
  last_stream_seq bigint NOT NULL DEFAULT 0,
  stream_id       text,
  updated_at      timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (consumer, partition)
);

-- The instances running each consumer, each renewing its row while it runs: the partitions are shared by those seen
-- alive (an instance takes at most ceil(partitions / live instances)), so a new instance gets its share even while the
-- others hold every partition, and the share of one that stopped is taken once its row is past `until`.
CREATE TABLE event_consumer_members (
  consumer  text NOT NULL,
  owner     text NOT NULL,
  until     timestamptz NOT NULL,
  PRIMARY KEY (consumer, owner)
);

-- Messages a consumer gave up on: still failing when handled alone after the bounded number of attempts. Recorded in
-- the transaction that moves the partition past them, then terminated on the stream.
CREATE TABLE event_dead_letters (
  consumer    text NOT NULL,
  partition   integer NOT NULL,
  stream_seq  bigint NOT NULL,
  event_id    text NOT NULL,
  -- Times it was delivered, the last one alone.
  deliveries  integer NOT NULL,
  error       text NOT NULL,
  at          timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (consumer, partition, stream_seq)
);
CREATE INDEX event_dead_letters_at_idx ON event_dead_letters (consumer, at DESC);
