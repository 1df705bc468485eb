-- The event log (ARCHITECTURE.md "Events, webhooks and the public API"): every change a customer may want to
-- react to, appended in the transaction of the change, read by consumers (the webhook dispatcher now, the rule engine
-- and live pages later) each with a cursor of its own.
--
-- Order and cursors. A consumer must never skip an event whose transaction commits after a later-numbered one has been
-- read. Each row carries the id of the transaction that wrote it (xid8); a consumer reads in (txid, id) order and only
-- rows whose transaction is older than every transaction still running (pg_snapshot_xmin of the current snapshot):
-- those have all committed or rolled back, and any event written later belongs to a transaction with a larger txid.
-- So a cursor (txid, id) is exact, on PGlite and PostgreSQL alike (docs/decisions.md "The event log").
CREATE TABLE events (
  id          bigint GENERATED ALWAYS AS IDENTITY,
  txid        xid8 NOT NULL DEFAULT pg_current_xact_id(),
  org_id      text NOT NULL,
  -- sim | sms | task | pool | usage
  type        text NOT NULL CHECK (type ~ '^[a-z_]{1,30}$'),
  subtype     text NOT NULL CHECK (subtype ~ '^[a-z_]{1,40}$'),
  -- What the event is about: an ICCID, a task id, a pool id.
  subject     text CHECK (char_length(subject) <= 64),
  data        jsonb NOT NULL DEFAULT '{}'::jsonb,
  -- When it happened (a CDR's end, a network report's time); created_at is when it was written.
  at          timestamptz NOT NULL DEFAULT now(),
  created_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (created_at, id)
) PARTITION BY RANGE (created_at);
CREATE INDEX events_cursor_idx ON events (txid, id);
CREATE INDEX events_org_idx ON events (org_id, created_at DESC);
CREATE TABLE events_default PARTITION OF events DEFAULT;

-- The monthly partition events_yYYYYmMM holding [month, month + 1), made if missing (as cdr_ensure_partition).
CREATE FUNCTION event_ensure_partition(month date) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  from_day date := date_trunc('month', month)::date;
  to_day date := (date_trunc('month', month) + interval '1 month')::date;
  part text := format('events_y%sm%s', to_char(from_day, 'YYYY'), to_char(from_day, 'MM'));
BEGIN
  IF to_regclass(part) IS NULL THEN
    EXECUTE format('CREATE TABLE %I PARTITION OF events FOR VALUES FROM (%L) TO (%L)',
      part, to_char(from_day, 'YYYY-MM-DD') || ' 00:00:00+00', to_char(to_day, 'YYYY-MM-DD') || ' 00:00:00+00');
  END IF;
  RETURN part;
END;
$$;

DO $$
DECLARE m date;
BEGIN
  FOR m IN SELECT generate_series(date_trunc('month', now())::date, (date_trunc('month', now()) + interval '2 months')::date, interval '1 month')::date LOOP
    PERFORM event_ensure_partition(m);
  END LOOP;
END;
$$;

-- One row per consumer: where it has read to, and which instance advances it (a lease on database time).
CREATE TABLE event_consumers (
  name          text PRIMARY KEY CHECK (name ~ '^[a-z_]{1,40}$'),
  position_txid xid8 NOT NULL,
  position_id   bigint NOT NULL DEFAULT 0,
  lease_owner   text,
  lease_until   timestamptz,
  updated_at    timestamptz NOT NULL DEFAULT now()
);

-- SIM events become log events, whoever writes them (a person, the network, a job): one statement trigger, so a batch
-- of reports is one INSERT. Sessions are the SIM's connection; 'location' stays out (a position every few minutes is
-- no event a customer subscribes to, and the SIM's last location is on its page).
CREATE FUNCTION sim_events_to_log() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO events (org_id, type, subtype, subject, data, at)
    SELECT org_id, 'sim', CASE type WHEN 'session' THEN 'connection' ELSE type END, iccid,
           jsonb_strip_nulls(jsonb_build_object('iccid', iccid, 'from', from_status, 'to', to_status, 'source', source,
             'accountId', account_id, 'detail', detail)),
           at
      FROM new_rows
     WHERE type <> 'location'
     ORDER BY id;
  RETURN NULL;
END $$;
CREATE TRIGGER sim_events_log AFTER INSERT ON sim_events REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION sim_events_to_log();

-- An SMS received from a device, and an SMS sent to one reaching its end (delivered or failed).
CREATE FUNCTION sms_records_to_log() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO events (org_id, type, subtype, subject, data, at)
      SELECT org_id, 'sms', 'received', iccid,
             jsonb_strip_nulls(jsonb_build_object('smsId', id, 'iccid', iccid, 'msisdn', msisdn, 'content', content, 'smsType', sms_type)),
             created_at
        FROM new_rows WHERE direction = 'MO';
  ELSE
    INSERT INTO events (org_id, type, subtype, subject, data, at)
      SELECT n.org_id, 'sms', n.status, n.iccid,
             jsonb_strip_nulls(jsonb_build_object('smsId', n.id, 'iccid', n.iccid, 'msisdn', n.msisdn, 'error', n.error)),
             coalesce(n.delivered_at, now())
        FROM new_rows n JOIN old_rows o ON o.id = n.id
       WHERE n.direction = 'MT' AND n.status IN ('delivered', 'failed') AND o.status IS DISTINCT FROM n.status;
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER sms_records_log_insert AFTER INSERT ON sms_records REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION sms_records_to_log();
CREATE TRIGGER sms_records_log_update AFTER UPDATE ON sms_records REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION sms_records_to_log();

-- A task of the task center ending (done, or done with issues).
CREATE FUNCTION tasks_to_log() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO events (org_id, type, subtype, subject, data)
    SELECT n.org_id, 'task', 'finished', n.id,
           jsonb_strip_nulls(jsonb_build_object('taskId', n.id, 'kind', n.kind, 'status', n.status, 'referenceId', n.reference_id,
             'quantity', n.quantity, 'accountId', n.account_id))
      FROM new_rows n JOIN old_rows o ON o.id = n.id
     WHERE o.status = 'processing' AND n.status IN ('done', 'issues');
  RETURN NULL;
END $$;
CREATE TRIGGER tasks_log AFTER UPDATE ON tasks REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION tasks_to_log();
