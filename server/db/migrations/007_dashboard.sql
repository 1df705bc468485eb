-- The dashboard (SPEC.md sections 2 and 9): its figures come from rollups kept as usage arrives, never from a scan
-- of the CDRs on a page load. The dashboard's day ends at 23:59 UTC+8 (a UTC+8 day starts at 16:00 UTC), so:
--   * per organisation: usage_hourly (UTC hours, 002_fleet.sql) sums into UTC+8 days and months exactly;
--   * per SIM: usage_sim_hourly for the 24-hour and week ranks (hours, so any cut-off is exact), and
--     usage_sim_monthly keyed by the UTC+8 month for the six-month rank;
--   * lifecycle counts: sim_status_counts, kept by statement triggers on sims, so counting a million SIMs by state
--     is a read of a handful of rows.

CREATE TABLE usage_sim_hourly (
  org_id        text NOT NULL REFERENCES organisations(id),
  hour          timestamptz NOT NULL CHECK (date_part('minute', hour AT TIME ZONE 'UTC') = 0 AND date_part('second', hour AT TIME ZONE 'UTC') = 0),
  sim_id        text NOT NULL,
  iccid         text NOT NULL,
  uplink_kb     bigint NOT NULL DEFAULT 0 CHECK (uplink_kb >= 0),
  downlink_kb   bigint NOT NULL DEFAULT 0 CHECK (downlink_kb >= 0),
  volume_kb     bigint NOT NULL DEFAULT 0 CHECK (volume_kb >= 0),
  PRIMARY KEY (org_id, hour, sim_id)
);

CREATE TABLE usage_sim_monthly (
  org_id        text NOT NULL REFERENCES organisations(id),
  -- The first day of the month in UTC+8.
  month         date NOT NULL CHECK (date_part('day', month) = 1),
  sim_id        text NOT NULL,
  iccid         text NOT NULL,
  uplink_kb     bigint NOT NULL DEFAULT 0 CHECK (uplink_kb >= 0),
  downlink_kb   bigint NOT NULL DEFAULT 0 CHECK (downlink_kb >= 0),
  volume_kb     bigint NOT NULL DEFAULT 0 CHECK (volume_kb >= 0),
  PRIMARY KEY (org_id, month, sim_id)
);

-- The per-SIM rollups of an organisation's CDRs (or every organisation's), rebuilt from the CDRs: for seeds and repairs.
-- The network's writer keeps them row by row (server/network/reports.ts, recordUsage).
CREATE FUNCTION rebuild_sim_rollups(org text) RETURNS void LANGUAGE sql AS $$
  DELETE FROM usage_sim_hourly WHERE org IS NULL OR org_id = org;
  DELETE FROM usage_sim_monthly WHERE org IS NULL OR org_id = org;
  INSERT INTO usage_sim_hourly (org_id, hour, sim_id, iccid, uplink_kb, downlink_kb, volume_kb)
  SELECT org_id, date_trunc('hour', start_at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC', sim_id, min(iccid),
         coalesce(sum(volume_kb) FILTER (WHERE direction = 'uplink'), 0), coalesce(sum(volume_kb) FILTER (WHERE direction = 'downlink'), 0), sum(volume_kb)
    FROM cdrs WHERE org IS NULL OR org_id = org GROUP BY 1, 2, 3;
  INSERT INTO usage_sim_monthly (org_id, month, sim_id, iccid, uplink_kb, downlink_kb, volume_kb)
  SELECT org_id, date_trunc('month', start_at AT TIME ZONE 'Asia/Shanghai')::date, sim_id, min(iccid),
         coalesce(sum(volume_kb) FILTER (WHERE direction = 'uplink'), 0), coalesce(sum(volume_kb) FILTER (WHERE direction = 'downlink'), 0), sum(volume_kb)
    FROM cdrs WHERE org IS NULL OR org_id = org GROUP BY 1, 2, 3;
$$;

-- Lifecycle counts per organisation and state.
CREATE TABLE sim_status_counts (
  org_id        text NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  status        text NOT NULL,
  n             bigint NOT NULL DEFAULT 0 CHECK (n >= 0),
  PRIMARY KEY (org_id, status)
);
INSERT INTO sim_status_counts (org_id, status, n) SELECT org_id, status, count(*) FROM sims GROUP BY 1, 2;

-- One statement's changes, as (org, status, +/-n): transition tables, so a million-row insert costs one aggregate.
CREATE FUNCTION sim_status_counts_apply() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO sim_status_counts AS c (org_id, status, n)
      SELECT org_id, status, count(*) FROM new_rows GROUP BY 1, 2
      ON CONFLICT (org_id, status) DO UPDATE SET n = c.n + EXCLUDED.n;
  ELSIF TG_OP = 'DELETE' THEN
    UPDATE sim_status_counts c SET n = c.n - d.k
      FROM (SELECT org_id, status, count(*) AS k FROM old_rows GROUP BY 1, 2) d
     WHERE c.org_id = d.org_id AND c.status = d.status;
  ELSE
    -- Only rows whose state or organisation changed move a count.
    UPDATE sim_status_counts c SET n = c.n - d.k
      FROM (SELECT o.org_id, o.status, count(*) AS k FROM old_rows o JOIN new_rows w ON w.id = o.id
             WHERE o.status <> w.status OR o.org_id <> w.org_id GROUP BY 1, 2) d
     WHERE c.org_id = d.org_id AND c.status = d.status;
    INSERT INTO sim_status_counts AS c (org_id, status, n)
      SELECT w.org_id, w.status, count(*) FROM old_rows o JOIN new_rows w ON w.id = o.id
       WHERE o.status <> w.status OR o.org_id <> w.org_id GROUP BY 1, 2
      ON CONFLICT (org_id, status) DO UPDATE SET n = c.n + EXCLUDED.n;
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER sims_count_insert AFTER INSERT ON sims REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION sim_status_counts_apply();
CREATE TRIGGER sims_count_update AFTER UPDATE ON sims REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION sim_status_counts_apply();
CREATE TRIGGER sims_count_delete AFTER DELETE ON sims REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION sim_status_counts_apply();

-- "Online now" on the dashboard: the SIMs with a live connection, counted from this index alone.
CREATE INDEX sims_org_online_idx ON sims (org_id) WHERE connection_status IN ('online', 'connected');
