-- One function makes the monthly partitions of every table partitioned by month on a timestamptz (cdrs by started_at,
-- events by created_at): <table>_yYYYYmMM holding [month, month + 1), made if missing; returns its name. 002 and 015
-- each wrote the same body for their table; both are replaced by this one and dropped.
CREATE FUNCTION ensure_month_partition(parent text, month date) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  from_day date := date_trunc('month', month)::date;
  to_day date := (date_trunc('month', month) + interval '1 month')::date;
  part text := format('%s_y%sm%s', parent, to_char(from_day, 'YYYY'), to_char(from_day, 'MM'));
BEGIN
  IF to_regclass(part) IS NULL THEN
    -- Bounds carry an explicit +00 so the session's TimeZone cannot shift them.
    EXECUTE format('CREATE TABLE %I PARTITION OF %I FOR VALUES FROM (%L) TO (%L)',
      part, parent, to_char(from_day, 'YYYY-MM-DD') || ' 00:00:00+00', to_char(to_day, 'YYYY-MM-DD') || ' 00:00:00+00');
  END IF;
  RETURN part;
END;
$$;

DROP FUNCTION cdr_ensure_partition(date);
DROP FUNCTION event_ensure_partition(date);
