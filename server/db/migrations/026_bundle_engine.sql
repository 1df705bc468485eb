-- Bundles that act (docs/decisions.md "Bundle cycles and overage enforcement").
--
-- A SIM's cycle is that of its base bundle in use (the first by activation, the test bundle aside): its reset rule and
-- anchor are copied onto the SIM, with the cycle's bounds, so that the rollover of a million SIMs is one indexed
-- single-table UPDATE (server/network/bundle-engine.ts). The cycle's usage is the sum of the CDRs that started inside
-- [cycle_started_at, cycle_ends_at).
--
-- What the network is told to do with a SIM's data (flow_control_policy) is derived from two causes, each kept on its
-- own: the overage policy of this cycle (overage_control, released at the next cycle) and the out-of-coverage policy
-- (coverage_barred, lifted when the SIM attaches in a covered country). policy_unsent marks a SIM whose
-- flow_control_policy changed and has not yet been accepted by the network adapter: an outbox the bundle job drains.

-- Cycle bounds in UTC whatever the session's TimeZone: DAY and MONTH are calendar ones (SIM pages end the day at
-- 23:59 UTC+0), DAY_24H, MONTH_31D and YEAR_366D are 24 hours, 31 days and 366 days long from the anchor.
CREATE FUNCTION cycle_length_s(reset text) RETURNS bigint LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE reset WHEN 'DAY_24H' THEN 86400 WHEN 'MONTH_31D' THEN 31 * 86400 WHEN 'YEAR_366D' THEN 366 * 86400 END::bigint
$$;
CREATE FUNCTION cycle_start_at(reset text, anchor timestamptz, at timestamptz) RETURNS timestamptz LANGUAGE sql STABLE PARALLEL SAFE AS $$
  SELECT CASE reset
    WHEN 'DAY' THEN date_trunc('day', at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'
    WHEN 'MONTH' THEN date_trunc('month', at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'
    ELSE anchor + (cycle_length_s(reset) * greatest(0, floor(extract(epoch FROM at - anchor) / cycle_length_s(reset)))) * interval '1 second'
  END
$$;
CREATE FUNCTION cycle_end_at(reset text, anchor timestamptz, at timestamptz) RETURNS timestamptz LANGUAGE sql STABLE PARALLEL SAFE AS $$
  SELECT CASE reset
    WHEN 'DAY' THEN (date_trunc('day', at AT TIME ZONE 'UTC') + interval '1 day') AT TIME ZONE 'UTC'
    WHEN 'MONTH' THEN (date_trunc('month', at AT TIME ZONE 'UTC') + interval '1 month') AT TIME ZONE 'UTC'
    ELSE cycle_start_at(reset, anchor, at) + cycle_length_s(reset) * interval '1 second'
  END
$$;

-- Whatever the network was told before this migration is forgotten: the engine decides again from usage.
UPDATE sims SET flow_control_policy = 'none' WHERE flow_control_policy <> 'none';

ALTER TABLE sims
  ADD COLUMN cycle_reset text CHECK (cycle_reset IN ('DAY', 'DAY_24H', 'MONTH', 'MONTH_31D', 'YEAR_366D')),
  ADD COLUMN cycle_anchor timestamptz,
  ADD COLUMN cycle_started_at timestamptz,
  ADD COLUMN cycle_ends_at timestamptz,
  -- When this cycle's allowance was reached (null before, and again after the rollover).
  ADD COLUMN overage_at timestamptz,
  ADD COLUMN overage_control text NOT NULL DEFAULT 'none' CHECK (overage_control IN ('none', 'throttle_128', 'throttle_256', 'stop')),
  -- The SIM attached in a country its bundle does not cover (since when, where); barred when the policy is shut_down.
  ADD COLUMN out_of_coverage_at timestamptz,
  ADD COLUMN out_of_coverage_country text CHECK (out_of_coverage_country ~ '^[A-Z]{2}$'),
  ADD COLUMN coverage_barred boolean NOT NULL DEFAULT false,
  ADD COLUMN flow_control_at timestamptz,
  ADD COLUMN policy_unsent boolean NOT NULL DEFAULT false,
  ADD CONSTRAINT sims_flow_control_ck CHECK (flow_control_policy = CASE WHEN coverage_barred THEN 'stop' ELSE overage_control END),
  ADD CONSTRAINT sims_cycle_ck CHECK ((cycle_reset IS NULL) = (cycle_started_at IS NULL) AND (cycle_started_at IS NULL) = (cycle_ends_at IS NULL) AND (cycle_ends_at IS NULL OR cycle_ends_at > cycle_started_at));

-- The rollover's scan: cycles that have ended, oldest first. The outbox of commands for the network.
CREATE INDEX sims_cycle_ends_idx ON sims (cycle_ends_at) WHERE cycle_ends_at IS NOT NULL;
CREATE INDEX sims_policy_unsent_idx ON sims (org_id, id) WHERE policy_unsent;
-- The bundle job's scans: bundles that reach their expiry, and SIMs waiting for a pending bundle.
-- SIMs whose test or pre-activated period may end (a few of a million): the job's scan of periods.
CREATE INDEX sims_periods_idx ON sims (id) WHERE sub_status IN ('test', 'active_test', 'quiet');
CREATE INDEX bundle_orders_due_idx ON bundle_orders (expected_expire_at) WHERE status IN ('PENDING', 'IN_USE');
CREATE INDEX bundle_orders_pending_idx ON bundle_orders (org_id, sim_id, ordered_at) WHERE status = 'PENDING';
CREATE INDEX bundle_orders_in_use_idx ON bundle_orders (org_id, sim_id, activated_at) WHERE status = 'IN_USE';

-- Existing SIMs in service take their cycle from their base bundle in use.
UPDATE sims s SET cycle_reset = b.reset_cycle, cycle_anchor = b.activated_at,
       cycle_started_at = cycle_start_at(b.reset_cycle, b.activated_at, now()), cycle_ends_at = cycle_end_at(b.reset_cycle, b.activated_at, now())
  FROM (SELECT DISTINCT ON (sim_id) sim_id, reset_cycle, activated_at FROM bundle_orders
         WHERE status = 'IN_USE' AND type <> 'BEFORE_TEST' AND activated_at IS NOT NULL ORDER BY sim_id, activated_at, id) b
 WHERE b.sim_id = s.id AND s.status IN ('active', 'paused');

-- Scheduled jobs that must run once across instances: one row per job, held by one instance until lease_until
-- (database time).
CREATE TABLE job_leases (
  name        text PRIMARY KEY CHECK (name ~ '^[a-z_]{1,40}$'),
  lease_owner text,
  lease_until timestamptz,
  last_run_at timestamptz
);
