-- Scheduled SMS runs as the scheduler executes them (server/sms-schedules/scheduler.ts, docs/decisions.md "Scheduled
-- SMS: occurrences, leases and at-most-once sending").
--
-- Each occurrence of a schedule is one run row, unique by (schedule, occurrence): two instances that both see the
-- occurrence due insert it once. A run is claimed with a lease (claimed_by, heartbeat_at) like a task; an instance
-- that stops is replaced when its lease runs out. The targets are copied into the run when it starts, so an edit of
-- the schedule meanwhile does not change whom a run already under way messages. An occurrence missed by more than the
-- grace is recorded as skipped, never sent late.
ALTER TABLE sms_schedule_runs
  ADD COLUMN occurrence_at timestamptz,
  ADD COLUMN iccids        text[] NOT NULL DEFAULT '{}' CHECK (cardinality(iccids) <= 100000),
  ADD COLUMN claimed_by    text,
  ADD COLUMN heartbeat_at  timestamptz,
  ADD COLUMN attempts      int NOT NULL DEFAULT 0 CHECK (attempts >= 0),
  ADD COLUMN ended_at      timestamptz;
UPDATE sms_schedule_runs SET occurrence_at = at, ended_at = CASE WHEN status = 'running' THEN NULL ELSE at END;
ALTER TABLE sms_schedule_runs ALTER COLUMN occurrence_at SET NOT NULL;
ALTER TABLE sms_schedule_runs DROP CONSTRAINT sms_schedule_runs_status_check;
ALTER TABLE sms_schedule_runs ADD CONSTRAINT sms_schedule_runs_status_check CHECK (status IN ('running', 'done', 'partial', 'failed', 'skipped'));
CREATE UNIQUE INDEX sms_schedule_runs_occurrence_uq ON sms_schedule_runs (schedule_id, occurrence_at);
-- The runs a worker may claim, across organisations (only open ones are in it).
CREATE INDEX sms_schedule_runs_open_idx ON sms_schedule_runs (id) WHERE status = 'running';
-- Due schedules across organisations, for the scheduler.
CREATE INDEX sms_schedules_due_idx ON sms_schedules (next_run_at) WHERE status = 'enabled' AND next_run_at IS NOT NULL;

-- A run's message to one SIM exists at most once: the record is written before the network is asked, and a run
-- taken over after a restart finds it and never sends it again.
ALTER TABLE sms_records ADD COLUMN run_id bigint REFERENCES sms_schedule_runs(id) ON DELETE SET NULL;
CREATE UNIQUE INDEX sms_records_run_iccid_uq ON sms_records (run_id, iccid) WHERE run_id IS NOT NULL;
