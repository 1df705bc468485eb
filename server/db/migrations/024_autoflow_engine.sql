-- The autoflow engine's second half: actions run as durable jobs on their run, scheduled triggers over the
-- rollups, and network or country changes as SIM events.

-- A run is its own job (server/autoflow/actions.ts): claimed with a lease by one instance at a time, its actions
-- carried out in order, a failed attempt tried again after a backoff (next_at). Not a row of `tasks`: those are a
-- person's task list and each of their changes is an event of the log (a webhook to the customer).
ALTER TABLE autoflow_runs
  ADD COLUMN next_at     timestamptz,
  ADD COLUMN claimed_by  text CHECK (char_length(claimed_by) <= 64),
  ADD COLUMN lease_until timestamptz,
  ADD COLUMN attempts    int NOT NULL DEFAULT 0 CHECK (attempts >= 0),
  ADD COLUMN ended_at    timestamptz;
-- Runs written before this migration with actions still pending are left as they are (ended, nothing to claim): a
-- person saw them pending and nothing ran them; running them now, days later, would surprise.
UPDATE autoflow_runs SET ended_at = at WHERE status = 'pending';
-- The open runs, in the order they are due: what the action runner claims from (across organisations).
CREATE INDEX autoflow_runs_due_idx ON autoflow_runs (next_at) WHERE ended_at IS NULL;

-- Scheduled triggers (usage, SMS count, expiry, no connection): a rule's SIM that meets its condition is "tripped" until
-- it no longer does (the value fell back, the cycle reset, the SIM connected again) or the key changes (a new cycle, a
-- new expiry date); a run is written only when the trip row is inserted, so a crossing fires once however often the
-- condition is evaluated, and by one instance only (the insert's conflict decides between two).
CREATE TABLE autoflow_trips (
  org_id      text NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  rule_id     text NOT NULL REFERENCES autoflow_rules(id) ON DELETE CASCADE,
  sim_id      text NOT NULL,
  key         text NOT NULL CHECK (char_length(key) <= 64),
  tripped_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (rule_id, sim_id)
);

-- The scheduled evaluation runs on one instance at a time (a lease, like the event log's consumers).
CREATE TABLE autoflow_schedule_lease (
  name        text PRIMARY KEY CHECK (char_length(name) <= 40),
  owner       text,
  lease_until timestamptz,
  last_run_at timestamptz
);

-- A SIM's network and its country as the network reported them last; a change between two is a 'network_change'
-- SIM event (server/network/reports.ts), which the event log carries to the engine and to webhooks.
ALTER TABLE sims ADD COLUMN network_country text CHECK (network_country ~ '^[A-Z]{2}$');
ALTER TABLE sim_events DROP CONSTRAINT sim_events_type_check;
ALTER TABLE sim_events ADD CONSTRAINT sim_events_type_check CHECK (type IN (
  'status_change', 'imei_change', 'bundle_change', 'transfer', 'location', 'session', 'tag_change', 'info_change', 'network_change'));
