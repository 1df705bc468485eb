-- The last bundle and device calls of SPEC.md section 7 (docs/decisions.md "The last bundle calls").
--
-- A bundle's cycles are numbered from 1, the cycle its activation falls in: calendar cycles (DAY, MONTH) on the UTC
-- calendar (SPEC.md section 9: SIM pages end the day at 23:59 UTC+0), the others 24 hours, 31 days or 366 days long
-- from the activation, as cycle_start_at/cycle_end_at (026_bundle_engine.sql) bound them.
CREATE FUNCTION cycle_number(reset text, anchor timestamptz, at timestamptz) RETURNS int LANGUAGE sql STABLE PARALLEL SAFE AS $$
  SELECT 1 + greatest(0, CASE reset
    WHEN 'DAY' THEN (at AT TIME ZONE 'UTC')::date - (anchor AT TIME ZONE 'UTC')::date
    WHEN 'MONTH' THEN (extract(year FROM at AT TIME ZONE 'UTC') * 12 + extract(month FROM at AT TIME ZONE 'UTC')
                      - extract(year FROM anchor AT TIME ZONE 'UTC') * 12 - extract(month FROM anchor AT TIME ZONE 'UTC'))::int
    ELSE floor(extract(epoch FROM at - anchor) / cycle_length_s(reset))::int
  END)
$$;
-- The start of cycle n (1-based) of a bundle activated at anchor; its end is the start of cycle n + 1.
CREATE FUNCTION cycle_nth_start(reset text, anchor timestamptz, n int) RETURNS timestamptz LANGUAGE sql STABLE PARALLEL SAFE AS $$
  SELECT CASE reset
    WHEN 'DAY' THEN (date_trunc('day', anchor AT TIME ZONE 'UTC') + make_interval(days => n - 1)) AT TIME ZONE 'UTC'
    WHEN 'MONTH' THEN (date_trunc('month', anchor AT TIME ZONE 'UTC') + make_interval(months => n - 1)) AT TIME ZONE 'UTC'
    ELSE anchor + (cycle_length_s(reset) * (n - 1)) * interval '1 second'
  END
$$;

-- Who cancelled a bundle (the SIM's bundle_change event says it too); expired_at holds when its service ended.
ALTER TABLE bundle_orders ADD COLUMN cancelled_by text REFERENCES accounts(id) ON DELETE SET NULL;

-- The exports of the device calls go through the task center.
ALTER TABLE tasks DROP CONSTRAINT tasks_kind_check;
ALTER TABLE tasks ADD CONSTRAINT tasks_kind_check CHECK (kind IN ('sim_export', 'sim_activate', 'sim_suspend', 'sim_resume', 'sim_reset', 'sim_transfer',
  'sim_info_upload', 'cdr_export', 'sms_export', 'sms_report', 'bundle_export', 'report', 'invoice_export', 'autoflow_sims_export',
  'cycle_export', 'device_bundle_export', 'coverage_export'));
