-- Shared pools that act (docs/decisions.md "The pool engine"). The engine is
-- server/pool/pool-engine.ts, a job leased once across instances.
--
-- A SIM belongs to a pool when sims.pool_id names it (the pool's total SIMs); it is enrolled (counted in the pool's
-- size) while it has a current pool_members row, whose pool sims.pool_enrolled_in names, so that the job finds the SIMs
-- to enrol or to let go (out of service, removed, or moved to another pool) through two small partial indexes instead of
-- comparing a million rows each minute.

-- The pool's "stop overage SIMs" is the data policy's fourth cause: it bars data like an attach out of coverage, so the
-- network is told flow_control_of(coverage_barred OR pool_stopped, overage, rule). A cycle's rollover of the SIM's own
-- bundle leaves it; the pool's next cycle releases it.
ALTER TABLE sims
  ADD COLUMN pool_enrolled_in text,
  ADD COLUMN pool_stopped boolean NOT NULL DEFAULT false;
ALTER TABLE sims DROP CONSTRAINT sims_flow_control_ck;
ALTER TABLE sims ADD CONSTRAINT sims_flow_control_ck CHECK (flow_control_policy = flow_control_of(coverage_barred OR pool_stopped, overage_control, rule_control));

UPDATE sims s SET pool_enrolled_in = m.pool_id FROM pool_members m WHERE m.org_id = s.org_id AND m.sim_id = s.id AND m.left_at IS NULL;

-- SIMs of a pool in service that are not enrolled yet, and enrolled ones that left their pool or service.
CREATE INDEX sims_pool_enrol_idx ON sims (org_id, pool_id) WHERE pool_id IS NOT NULL AND pool_enrolled_in IS NULL AND status IN ('active', 'paused');
CREATE INDEX sims_pool_exit_idx ON sims (org_id, id) WHERE pool_enrolled_in IS NOT NULL AND (pool_id IS DISTINCT FROM pool_enrolled_in OR status NOT IN ('active', 'paused'));
CREATE INDEX sims_pool_stopped_idx ON sims (org_id, pool_id) WHERE pool_stopped;

ALTER TABLE shared_pools
  -- The UTC day of the last daily recompute of the pool's size.
  ADD COLUMN limit_computed_on date,
  -- When this cycle's usage passed the limit (overage_cycle says which cycle; one overage event per cycle).
  ADD COLUMN overage_at timestamptz;
CREATE INDEX shared_pools_cycle_end_idx ON shared_pools (cycle_end);

-- The ranking of a pool's SIMs by usage (the dashboard's top SIMs).
CREATE INDEX pool_members_rank_idx ON pool_members (org_id, pool_id, cycle_usage_kb DESC, sim_id) WHERE left_at IS NULL;
-- Enrolments and exits waiting for the daily recompute to take effect.
CREATE INDEX pool_events_created_idx ON pool_events (org_id, pool_id) WHERE state = 'created';

-- A SIM's share of its pool's size: the base bundle; under pro-rata, a SIM activated inside the cycle counts from its
-- activation day (days left in the cycle, that day included, over the cycle's days). "10th" is not supported and
-- counts as standard.
CREATE FUNCTION pool_share_kb(rule text, base bigint, activated timestamptz, cycle_start date, cycle_end date) RETURNS bigint
  LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE WHEN rule = 'pro_rata' AND activated IS NOT NULL AND (activated AT TIME ZONE 'UTC')::date > cycle_start
              THEN (base * greatest(0, cycle_end - (activated AT TIME ZONE 'UTC')::date)::numeric / (cycle_end - cycle_start))::bigint
              ELSE base END
$$;

-- Per pool and UTC day, what its enrolled SIMs carried: the dashboard's charts, kept by the writer of CDRs.
CREATE TABLE pool_usage_daily (
  org_id      text NOT NULL REFERENCES organisations(id),
  pool_id     text NOT NULL REFERENCES shared_pools(id) ON DELETE CASCADE,
  day         date NOT NULL,
  volume_kb   bigint NOT NULL DEFAULT 0 CHECK (volume_kb >= 0),
  sims        int NOT NULL DEFAULT 0 CHECK (sims >= 0),
  PRIMARY KEY (org_id, pool_id, day)
);

-- Rebuild the pools' rollups and figures of an organisation (or every one) from the SIMs' daily rollups: for seeds
-- and repairs. A member counts from the day it joined.
CREATE FUNCTION rebuild_pool_rollups(org text) RETURNS void LANGUAGE sql AS $$
  DELETE FROM pool_usage_daily WHERE org IS NULL OR org_id = org;
  INSERT INTO pool_usage_daily (org_id, pool_id, day, volume_kb, sims)
  SELECT m.org_id, m.pool_id, u.day, sum(u.volume_kb), count(*) FILTER (WHERE u.volume_kb > 0)
    FROM pool_members m JOIN usage_daily u ON u.org_id = m.org_id AND u.sim_id = m.sim_id
                                          AND u.day >= (m.joined_at AT TIME ZONE 'UTC')::date AND (m.left_at IS NULL OR u.day <= (m.left_at AT TIME ZONE 'UTC')::date)
   WHERE org IS NULL OR m.org_id = org
   GROUP BY 1, 2, 3;
  UPDATE pool_members m SET cycle_usage_kb = coalesce((SELECT sum(u.volume_kb) FROM usage_daily u
                                                        WHERE u.org_id = m.org_id AND u.sim_id = m.sim_id AND u.day >= p.cycle_start AND u.day < p.cycle_end
                                                          AND u.day >= (m.joined_at AT TIME ZONE 'UTC')::date), 0)
    FROM shared_pools p WHERE p.id = m.pool_id AND m.left_at IS NULL AND (org IS NULL OR m.org_id = org);
  UPDATE shared_pools p SET usage_kb = coalesce((SELECT sum(cycle_usage_kb) FROM pool_members m WHERE m.org_id = p.org_id AND m.pool_id = p.id AND m.left_at IS NULL), 0)
   WHERE org IS NULL OR p.org_id = org;
  UPDATE sims s SET pool_enrolled_in = (SELECT m.pool_id FROM pool_members m WHERE m.org_id = s.org_id AND m.sim_id = s.id AND m.left_at IS NULL)
   WHERE (org IS NULL OR s.org_id = org) AND (s.pool_id IS NOT NULL OR s.pool_enrolled_in IS NOT NULL);
$$;
SELECT rebuild_pool_rollups(NULL);

-- Pool events are log events (ARCHITECTURE.md "Events, webhooks and the public API"): a new one, and one whose state
-- moves (created → effected or modified), whoever writes it.
CREATE FUNCTION pool_events_to_log() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO events (org_id, type, subtype, subject, data, at)
      SELECT org_id, 'pool', type, pool_id,
             jsonb_strip_nulls(jsonb_build_object('poolId', pool_id, 'eventId', id::text, 'state', state, 'simCount', sim_count, 'limitKb', limit_kb,
               'detail', detail, 'accountId', account_id, 'effectiveAt', effective_at)),
             at
        FROM new_rows ORDER BY id;
  ELSE
    INSERT INTO events (org_id, type, subtype, subject, data, at)
      SELECT n.org_id, 'pool', n.type, n.pool_id,
             jsonb_strip_nulls(jsonb_build_object('poolId', n.pool_id, 'eventId', n.id::text, 'state', n.state, 'from', o.state, 'simCount', n.sim_count,
               'limitKb', n.limit_kb, 'detail', n.detail, 'effectiveAt', n.effective_at)),
             coalesce(n.effective_at, now())
        FROM new_rows n JOIN old_rows o ON o.id = n.id
       WHERE n.state IS DISTINCT FROM o.state ORDER BY n.id;
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER pool_events_log_insert AFTER INSERT ON pool_events REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION pool_events_to_log();
CREATE TRIGGER pool_events_log_update AFTER UPDATE ON pool_events REFERENCING NEW TABLE AS new_rows OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION pool_events_to_log();
