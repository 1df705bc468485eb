-- A SIM's data policy has three causes: its bundle's overage (overage_control), an attach out of coverage
-- (coverage_barred) and an automation rule's throttle action (rule_control, new). The network is told the strongest:
-- a stop before a 128 kbps throttle before a 256 kbps one. A rule's throttle stays until someone lifts it; a cycle's
-- rollover releases only the overage.
ALTER TABLE sims ADD COLUMN rule_control text NOT NULL DEFAULT 'none' CHECK (rule_control IN ('none', 'throttle_128', 'throttle_256'));

CREATE FUNCTION flow_control_of(barred boolean, overage text, rule text) RETURNS text
  LANGUAGE sql IMMUTABLE AS
$$
  SELECT CASE WHEN barred OR overage = 'stop' THEN 'stop'
              WHEN overage = 'throttle_128' OR rule = 'throttle_128' THEN 'throttle_128'
              WHEN overage = 'throttle_256' OR rule = 'throttle_256' THEN 'throttle_256'
              ELSE 'none' END
$$;

ALTER TABLE sims DROP CONSTRAINT sims_flow_control_ck;
ALTER TABLE sims ADD CONSTRAINT sims_flow_control_ck CHECK (flow_control_policy = flow_control_of(coverage_barred, overage_control, rule_control));
