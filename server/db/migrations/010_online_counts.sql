-- "Online now" on the dashboard (SPEC.md section 2): the SIMs with a live connection ('online' or 'connected') per
-- organisation, kept by statement triggers on sims like sim_status_counts (007_dashboard.sql). Counting them from the
-- partial index sims_org_online_idx read 700,000 index entries for an organisation of a million SIMs (about 250 ms);
-- this is a read of one row. Numbered 010: it depends on nothing of 009, and the runner applies any name not yet
-- applied, in name order.

CREATE TABLE sim_online_counts (
  org_id        text PRIMARY KEY REFERENCES organisations(id) ON DELETE CASCADE,
  n             bigint NOT NULL DEFAULT 0 CHECK (n >= 0)
);
INSERT INTO sim_online_counts (org_id, n)
  SELECT org_id, count(*) FROM sims WHERE connection_status IN ('online', 'connected') GROUP BY 1;

-- One statement's change per organisation: online rows after minus online rows before, from the transition tables.
-- Rows whose online-ness and organisation stayed cancel out, so the usual update (location, usage, status) moves no
-- count and locks no count row. A fall is an UPDATE of a row that must exist (it counted those SIMs); a rise is an
-- upsert, since ON CONFLICT checks n >= 0 on the proposed row before it finds the conflict.
CREATE FUNCTION sim_online_counts_apply() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO sim_online_counts AS c (org_id, n)
      SELECT org_id, count(*) FROM new_rows WHERE connection_status IN ('online', 'connected') GROUP BY 1
      ON CONFLICT (org_id) DO UPDATE SET n = c.n + EXCLUDED.n;
  ELSIF TG_OP = 'DELETE' THEN
    UPDATE sim_online_counts c SET n = c.n - d.k
      FROM (SELECT org_id, count(*) AS k FROM old_rows WHERE connection_status IN ('online', 'connected') GROUP BY 1) d
     WHERE c.org_id = d.org_id;
  ELSE
    WITH d AS (
      SELECT org_id, sum(k) AS k FROM (
        SELECT org_id, -1 AS k FROM old_rows WHERE connection_status IN ('online', 'connected')
        UNION ALL
        SELECT org_id, 1 AS k FROM new_rows WHERE connection_status IN ('online', 'connected')
      ) x GROUP BY 1 HAVING sum(k) <> 0
    ), fell AS (
      UPDATE sim_online_counts c SET n = c.n + d.k FROM d WHERE c.org_id = d.org_id AND d.k < 0
    )
    INSERT INTO sim_online_counts AS c (org_id, n)
      SELECT org_id, k FROM d WHERE k > 0
      ON CONFLICT (org_id) DO UPDATE SET n = c.n + EXCLUDED.n;
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER sims_online_insert AFTER INSERT ON sims REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION sim_online_counts_apply();
CREATE TRIGGER sims_online_update AFTER UPDATE ON sims REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION sim_online_counts_apply();
CREATE TRIGGER sims_online_delete AFTER DELETE ON sims REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION sim_online_counts_apply();

-- The card was the index's only reader. Without it, a change of connection_status touches no index, so the network's
-- frequent connection updates can stay heap-only (HOT).
DROP INDEX sims_org_online_idx;
