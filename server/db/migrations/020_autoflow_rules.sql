-- Autoflow rules as one document (common/autoflow-rule.ts is its schema): the trigger types of SPEC.md
-- section 5, the condition in the schema's shape, and one or more ordered actions instead of a single one.

-- Triggers: no connection for N hours and a country change join; the pool-usage and session-start kinds of the first
-- data model are not in SPEC.md's list. Rules of those kinds become their nearest kind and are disabled, so that
-- nothing starts to fire on its own after the upgrade; their owner reviews them in the builder.
ALTER TABLE autoflow_rules DROP CONSTRAINT autoflow_rules_trigger_check;
UPDATE autoflow_rules SET trigger = 'data_usage_percent', status = CASE WHEN status = 'enabled' THEN 'disabled' ELSE status END
 WHERE trigger = 'pool_usage';
UPDATE autoflow_rules SET trigger = 'network_change', condition = '{}'::jsonb, status = CASE WHEN status = 'enabled' THEN 'disabled' ELSE status END
 WHERE trigger = 'session_start';
ALTER TABLE autoflow_rules ADD CONSTRAINT autoflow_rules_trigger_check CHECK (trigger IN (
  'data_usage', 'data_usage_percent', 'sms_mo', 'sms_mt', 'status_change', 'expiry_reminder', 'imei_change',
  'no_connection', 'network_change', 'country_change'));

-- Conditions in the schema's words: usage and SMS counts in a window ('cycle' or 'rolling_24h'), IMEI change by mode.
UPDATE autoflow_rules SET condition = (condition - 'cycle' - 'period')
       || jsonb_build_object('window', CASE WHEN condition->>'period' = 'DAY' OR condition->>'cycle' = 'DAY' THEN 'rolling_24h' ELSE 'cycle' END)
 WHERE trigger IN ('data_usage', 'sms_mo', 'sms_mt') AND NOT condition ? 'window';
UPDATE autoflow_rules SET condition = condition || '{"mode": "any"}'::jsonb WHERE trigger = 'imei_change' AND NOT condition ? 'mode';

-- One or more actions, in order (suspend, resume, throttle, tag, sms, email, webhook; at most 10).
ALTER TABLE autoflow_rules ADD COLUMN actions jsonb;
UPDATE autoflow_rules SET actions = jsonb_build_array(action);
ALTER TABLE autoflow_rules
  ALTER COLUMN actions SET NOT NULL,
  ADD CONSTRAINT autoflow_rules_actions_ck CHECK (jsonb_typeof(actions) = 'array' AND jsonb_array_length(actions) BETWEEN 1 AND 10),
  DROP COLUMN action,
  DROP COLUMN action_type,
  -- Who changed the rule last (the change records keep every change: audit_log, entity 'autoflow_rule').
  ADD COLUMN updated_by text REFERENCES accounts(id) ON DELETE SET NULL;

-- A rule's change records (who, what, before, after) are its audit rows: read by rule, newest first.
CREATE INDEX audit_log_autoflow_idx ON audit_log (org_id, entity_id, at DESC) WHERE entity = 'autoflow_rule';

-- A validated upload: a scope file's ICCIDs (kind iccid) or an IMEI-change trigger's IMEIs (kind imei), bound to the
-- SHA-256 of the bytes that were checked. A rule names the token and the hash; a file changed after validation has
-- another hash and must be validated again (SPEC.md section 5).
CREATE TABLE autoflow_scope_files (
  org_id      text NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  token       text PRIMARY KEY CHECK (char_length(token) <= 64),
  kind        text NOT NULL CHECK (kind IN ('iccid', 'imei')),
  sha256      text NOT NULL CHECK (sha256 ~ '^[0-9a-f]{64}$'),
  file_name   text NOT NULL CHECK (char_length(file_name) <= 100),
  items       text[] NOT NULL CHECK (cardinality(items) BETWEEN 1 AND 10000),
  account_id  text REFERENCES accounts(id) ON DELETE SET NULL,
  created_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX autoflow_scope_files_org_idx ON autoflow_scope_files (org_id, created_at DESC);

-- Run history (the engine, server/autoflow/engine.ts): a firing is one row per rule, SIM and crossing (an event's id
-- for an event trigger; a threshold's cycle for a usage trigger), so a crossing handed over twice (the event log
-- delivers at least once; two instances) fires once. Each action's outcome is kept in order; pending until it runs.
ALTER TABLE autoflow_runs
  ADD COLUMN crossing text CHECK (char_length(crossing) <= 100),
  ADD COLUMN event_id bigint,
  ADD COLUMN actions jsonb NOT NULL DEFAULT '[]'::jsonb CHECK (jsonb_typeof(actions) = 'array'),
  DROP CONSTRAINT autoflow_runs_status_check,
  ADD CONSTRAINT autoflow_runs_status_check CHECK (status IN ('pending', 'success', 'failed', 'skipped'));
CREATE UNIQUE INDEX autoflow_runs_crossing_uq ON autoflow_runs (rule_id, iccid, crossing) WHERE crossing IS NOT NULL;
