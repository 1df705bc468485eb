-- Webhooks: each enabled notification key receives its organisation's events, signed per Standard Webhooks,
-- retried with backoff for more than 24 hours, each attempt a row of notification_logs (server/developer/webhooks.ts).

-- The signing secret is whsec_ + base64 of 32 random bytes. A rotation keeps the old secret signing beside the new one
-- for 24 hours (previous_secret until previous_until), so a receiver can switch without losing a delivery.
ALTER TABLE notification_keys
  ADD COLUMN previous_secret text,
  ADD COLUMN previous_until timestamptz,
  -- Since when every delivery to the URL has failed (NULL while the last one succeeded): 3 days of it disables the key.
  ADD COLUMN failing_since timestamptz,
  ADD COLUMN disabled_reason text CHECK (disabled_reason IN ('failing')),
  ADD CONSTRAINT notification_keys_previous_ck CHECK ((previous_secret IS NULL) = (previous_until IS NULL));

-- One message to one endpoint: an event of the log (event_id), a test event or a replay (event_id NULL). Pending until
-- a 2xx answer or the end of the schedule; claimed by one instance at a time with a lease.
CREATE TABLE webhook_deliveries (
  id            bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  org_id        text NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  notification_key_id text NOT NULL REFERENCES notification_keys(id) ON DELETE CASCADE,
  event_id      bigint,
  -- The Standard Webhooks message id: evt_<event id> for an event (the same on every retry and replay), test_… for a test.
  message_id    text NOT NULL CHECK (char_length(message_id) <= 64),
  event_type    text NOT NULL,
  subtype       text,
  -- The body as sent: {"type","subtype","timestamp","data"}; kept as text so every attempt signs the same bytes.
  body          text NOT NULL,
  attempt       int NOT NULL DEFAULT 0 CHECK (attempt >= 0),
  -- An event's delivery is retried on the schedule; a test event or a replay a developer asked for is tried once.
  retries       boolean NOT NULL DEFAULT true,
  status        text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'delivered', 'failed')),
  next_at       timestamptz NOT NULL DEFAULT now(),
  lease_owner   text,
  lease_until   timestamptz,
  created_at    timestamptz NOT NULL DEFAULT now(),
  updated_at    timestamptz NOT NULL DEFAULT now()
);
-- An event reaches a key once, however often the log hands it over (at least once): idempotent by event id.
CREATE UNIQUE INDEX webhook_deliveries_event_uq ON webhook_deliveries (notification_key_id, event_id) WHERE event_id IS NOT NULL;
CREATE INDEX webhook_deliveries_due_idx ON webhook_deliveries (next_at) WHERE status = 'pending';
CREATE INDEX webhook_deliveries_org_idx ON webhook_deliveries (org_id, created_at DESC);

ALTER TABLE notification_logs
  ADD COLUMN delivery_id bigint REFERENCES webhook_deliveries(id) ON DELETE SET NULL,
  ADD COLUMN message_id text,
  ADD COLUMN duration_ms int CHECK (duration_ms >= 0),
  -- Why no HTTP answer came (address refused, DNS, TLS, time-out), in English for the log.
  ADD COLUMN error text CHECK (char_length(error) <= 500);
