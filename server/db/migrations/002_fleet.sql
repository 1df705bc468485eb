-- Fleet: SIMs, bundles, CDRs and rollups, pools, autoflow, SMS, developer keys and logs, invoices, reports,
-- tasks (durable jobs) and stored files. Runs unchanged on PGlite and PostgreSQL 15.
--
-- Conventions: every organisation-owned table starts with org_id, and org_id leads its indexes (it is the
-- distribution key should the database ever be sharded). User-facing records have text ids of 20
-- alphanumerics made by the app; high-volume append-only rows (CDRs, events, runs, logs) have bigint identities.
-- Limits of SPEC.md section 5 are CHECKs here as well as in common/limits.ts, so no path around the API can
-- store a value the API would refuse. Times are timestamptz, stored in UTC.

-- ---------------------------------------------------------------------------------------------------------
-- Checks shared by several tables (IMMUTABLE, so CHECK constraints and indexes may use them).

-- Luhn check over 2-20 digits whose last digit is the check digit (ICCID per ITU-T E.118, IMEI).
-- Single expressions without subqueries, so the planner inlines them: several times cheaper than a
-- generate_series loop, which matters when a million SIMs are loaded. luhn_sum_reversed takes the digits
-- reversed and zero-padded to 20 (leading zeros do not change a Luhn sum); a doubled digit maps to its digit sum.
CREATE FUNCTION luhn_sum_reversed(r text) RETURNS int LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT substr(r, 1, 1)::int + translate(substr(r, 2, 1), '0123456789', '0246813579')::int
    + substr(r, 3, 1)::int + translate(substr(r, 4, 1), '0123456789', '0246813579')::int
    + substr(r, 5, 1)::int + translate(substr(r, 6, 1), '0123456789', '0246813579')::int
    + substr(r, 7, 1)::int + translate(substr(r, 8, 1), '0123456789', '0246813579')::int
    + substr(r, 9, 1)::int + translate(substr(r, 10, 1), '0123456789', '0246813579')::int
    + substr(r, 11, 1)::int + translate(substr(r, 12, 1), '0123456789', '0246813579')::int
    + substr(r, 13, 1)::int + translate(substr(r, 14, 1), '0123456789', '0246813579')::int
    + substr(r, 15, 1)::int + translate(substr(r, 16, 1), '0123456789', '0246813579')::int
    + substr(r, 17, 1)::int + translate(substr(r, 18, 1), '0123456789', '0246813579')::int
    + substr(r, 19, 1)::int + translate(substr(r, 20, 1), '0123456789', '0246813579')::int
$$;
CREATE FUNCTION luhn_ok(d text) RETURNS boolean LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE WHEN d ~ '^[0-9]{2,20}$' THEN luhn_sum_reversed(reverse(lpad(d, 20, '0'))) % 10 = 0 ELSE false END
$$;

-- SPEC.md section 5: up to 10 tags, each 1-10 characters, no NULL tag.
CREATE FUNCTION sim_tags_ok(tags text[]) RETURNS boolean LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT tags IS NULL OR (
    coalesce(array_ndims(tags), 1) = 1
    AND coalesce(cardinality(tags), 0) <= 10
    AND NOT EXISTS (SELECT 1 FROM unnest(tags) AS t(v) WHERE v IS NULL OR char_length(v) NOT BETWEEN 1 AND 10)
  )
$$;

-- An array of ISO 3166 alpha-2 country codes.
CREATE FUNCTION country_codes_ok(codes text[]) RETURNS boolean LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT codes IS NULL OR NOT EXISTS (SELECT 1 FROM unnest(codes) AS c(v) WHERE v IS NULL OR v !~ '^[A-Z]{2}$')
$$;

-- ---------------------------------------------------------------------------------------------------------
-- Shared pools (created before sims, which point at their pool).

CREATE TABLE shared_pools (
  org_id            text NOT NULL REFERENCES organisations(id),
  id                text PRIMARY KEY CHECK (id ~ '^[A-Za-z0-9]{18,22}$'),
  name              text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 100),
  bundle_name       text NOT NULL,
  bundle_sku        text NOT NULL,
  base_bundle_kb    bigint NOT NULL CHECK (base_bundle_kb > 0),
  total_sims        int NOT NULL DEFAULT 0 CHECK (total_sims >= 0),
  activated_sims    int NOT NULL DEFAULT 0 CHECK (activated_sims >= 0 AND activated_sims <= total_sims),
  -- SPEC.md section 9: pool size = activated SIMs x bundle size, updated daily.
  limit_kb          bigint NOT NULL DEFAULT 0 CHECK (limit_kb >= 0),
  usage_kb          bigint NOT NULL DEFAULT 0 CHECK (usage_kb >= 0),
  cycle_start       date NOT NULL,
  cycle_end         date NOT NULL CHECK (cycle_end > cycle_start),
  overage_policy    text NOT NULL DEFAULT 'no_limit' CHECK (overage_policy IN ('no_limit', 'stop_overage_sims')),
  opt_in_mode       text NOT NULL DEFAULT 'automatic' CHECK (opt_in_mode IN ('automatic', 'manual')),
  activation_rule   text NOT NULL DEFAULT 'standard' CHECK (activation_rule IN ('standard', 'tenth', 'pro_rata')),
  status            text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'pending', 'closed')),
  -- A pool overage event happens once per cycle: the cycle in which it last happened.
  overage_cycle     date,
  effective_from    date NOT NULL,
  created_at        timestamptz NOT NULL DEFAULT now(),
  updated_at        timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX shared_pools_org_name_uq ON shared_pools (org_id, lower(name));
CREATE INDEX shared_pools_org_idx ON shared_pools (org_id, created_at DESC, id);

-- ---------------------------------------------------------------------------------------------------------
-- SIMs.

CREATE TABLE sims (
  org_id            text NOT NULL REFERENCES organisations(id),
  id                text PRIMARY KEY CHECK (id ~ '^[A-Za-z0-9]{18,22}$'),
  -- An ICCID exists once in the world, so it is unique across organisations (a transfer moves the row).
  iccid             text NOT NULL UNIQUE CHECK (iccid ~ '^89[0-9]{17,18}$' AND luhn_ok(iccid)),
  imsi              text CHECK (imsi ~ '^[0-9]{15}$'),
  msisdn            text CHECK (msisdn ~ '^[1-9][0-9]{5,14}$'),
  -- The last IMEI the network reported (14-16 digits: IMEI without or with check digit, or IMEISV).
  imei              text CHECK (imei ~ '^[0-9]{14,16}$'),
  device_name       text CHECK (char_length(device_name) <= 40),
  notes             text CHECK (char_length(notes) <= 140),
  tags              text[] NOT NULL DEFAULT '{}' CHECK (sim_tags_ok(tags)),
  status            text NOT NULL DEFAULT 'inactive'
                    CHECK (status IN ('inactive', 'pre_activated', 'active', 'paused', 'expired', 'terminated')),
  -- The finer view of SPEC.md section 4; it must agree with status.
  sub_status        text NOT NULL DEFAULT 'inactive',
  technology        text NOT NULL CHECK (technology IN ('OTA', 'OTA_BIP', 'ONE_IMSI', 'MULTI_IMSI')),
  product_type      text NOT NULL DEFAULT 'industrial' CHECK (product_type IN ('consumer', 'industrial', 'automotive')),
  batch_no          text CHECK (char_length(batch_no) <= 64),
  delivery_note     text CHECK (char_length(delivery_note) <= 64),
  shipment_date     date,
  pool_id           text REFERENCES shared_pools(id) ON DELETE SET NULL,
  activated_at      timestamptz,
  cycle_start       date,
  cycle_usage_kb    bigint NOT NULL DEFAULT 0 CHECK (cycle_usage_kb >= 0),
  cycle_limit_kb    bigint CHECK (cycle_limit_kb >= 0),
  test_data_status  text NOT NULL DEFAULT 'not_started' CHECK (test_data_status IN ('not_started', 'in_test', 'exhausted', 'ended')),
  test_data_kb      bigint CHECK (test_data_kb >= 0),
  test_period_days  int CHECK (test_period_days BETWEEN 0 AND 366),
  test_started_at   timestamptz,
  pre_activated_at  timestamptz,
  pre_activated_period_days int CHECK (pre_activated_period_days BETWEEN 0 AND 366),
  deactivated_at    timestamptz,
  deactivated_period_days int CHECK (deactivated_period_days BETWEEN 0 AND 3660),
  connection_status text NOT NULL DEFAULT 'unknown' CHECK (connection_status IN ('online', 'connected', 'offline', 'unknown')),
  apn               text CHECK (char_length(apn) <= 100),
  ip                text CHECK (char_length(ip) <= 45),
  network           text CHECK (char_length(network) <= 100),
  last_session_at   timestamptz,
  last_session_kb   bigint CHECK (last_session_kb >= 0),
  lat               double precision CHECK (lat BETWEEN -90 AND 90),
  lon               double precision CHECK (lon BETWEEN -180 AND 180),
  location_at       timestamptz,
  flow_control_policy text NOT NULL DEFAULT 'none' CHECK (flow_control_policy IN ('none', 'throttle_128', 'throttle_256', 'stop')),
  expires_at        timestamptz,
  -- One operation at a time (SPEC.md section 8: "last request still processing"): set with
  -- UPDATE ... WHERE operation IS NULL, cleared when the operation's task ends.
  operation         text CHECK (operation IN ('activate', 'suspend', 'resume', 'reset', 'transfer', 'info_upload', 'terminate')),
  operation_task_id text,
  operation_started_at timestamptz,
  created_at        timestamptz NOT NULL DEFAULT now(),
  updated_at        timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT sims_sub_status_ck CHECK (
       (status = 'inactive'      AND sub_status = 'inactive')
    OR (status = 'pre_activated' AND sub_status IN ('test', 'quiet'))
    OR (status = 'active'        AND sub_status IN ('active_ready', 'active_test', 'active_live'))
    OR (status IN ('paused', 'expired', 'terminated') AND sub_status = status)
  ),
  CONSTRAINT sims_operation_ck CHECK ((operation IS NULL) = (operation_started_at IS NULL)),
  CONSTRAINT sims_location_ck CHECK ((lat IS NULL) = (lon IS NULL))
);
-- Paging 1,000,000 SIMs per organisation: keyset on iccid, per status, per pool.
CREATE INDEX sims_org_iccid_idx ON sims (org_id, iccid);
CREATE INDEX sims_org_status_iccid_idx ON sims (org_id, status, iccid);
CREATE INDEX sims_org_pool_idx ON sims (org_id, pool_id, iccid) WHERE pool_id IS NOT NULL;
CREATE INDEX sims_org_expires_idx ON sims (org_id, expires_at) WHERE expires_at IS NOT NULL;
-- Search by the whole value or its trailing digits (SPEC.md section 5): a suffix is a prefix of the reversed
-- value, so WHERE reverse(iccid) LIKE reverse($1) || '%' uses a btree range scan.
CREATE INDEX sims_org_iccid_rev_idx ON sims (org_id, reverse(iccid) text_pattern_ops);
CREATE INDEX sims_org_imei_rev_idx ON sims (org_id, reverse(imei) text_pattern_ops) WHERE imei IS NOT NULL;
CREATE INDEX sims_org_msisdn_rev_idx ON sims (org_id, reverse(msisdn) text_pattern_ops) WHERE msisdn IS NOT NULL;
CREATE INDEX sims_org_device_name_rev_idx ON sims (org_id, reverse(lower(device_name)) text_pattern_ops) WHERE device_name IS NOT NULL;
CREATE INDEX sims_org_imsi_idx ON sims (org_id, imsi) WHERE imsi IS NOT NULL;

-- Status trace and other SIM events (SPEC.md /sim/event, /sim/statusTrace).
CREATE TABLE sim_events (
  org_id        text NOT NULL REFERENCES organisations(id),
  id            bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  sim_id        text NOT NULL REFERENCES sims(id) ON DELETE CASCADE,
  iccid         text NOT NULL,
  type          text NOT NULL CHECK (type IN ('status_change', 'imei_change', 'bundle_change', 'transfer', 'location', 'session', 'tag_change', 'info_change')),
  from_status   text CHECK (from_status IN ('inactive', 'pre_activated', 'active', 'paused', 'expired', 'terminated')),
  to_status     text CHECK (to_status IN ('inactive', 'pre_activated', 'active', 'paused', 'expired', 'terminated')),
  detail        jsonb NOT NULL DEFAULT '{}'::jsonb,
  account_id    text REFERENCES accounts(id) ON DELETE SET NULL,
  source        text NOT NULL DEFAULT 'system' CHECK (source IN ('system', 'console', 'api', 'autoflow', 'network')),
  at            timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX sim_events_org_sim_idx ON sim_events (org_id, sim_id, at DESC);
CREATE INDEX sim_events_org_at_idx ON sim_events (org_id, at DESC);

-- ---------------------------------------------------------------------------------------------------------
-- Bundle orders (SPEC.md section 3 "Bundle order").

CREATE TABLE bundle_orders (
  org_id            text NOT NULL REFERENCES organisations(id),
  id                text PRIMARY KEY CHECK (id ~ '^[A-Za-z0-9]{18,22}$'),
  sim_id            text NOT NULL REFERENCES sims(id) ON DELETE CASCADE,
  iccid             text NOT NULL,
  type              text NOT NULL CHECK (type IN ('BEFORE_TEST', 'BEFORE_BASIC', 'BEFORE_SUPPLEMENT', 'AFTER_FLOW', 'AFTER_BUNDLE', 'AFTER_SHARE', 'BEFORE_SHARE')),
  payment_mode      text NOT NULL CHECK (payment_mode IN ('prepaid', 'postpaid')),
  name              text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 100),
  sku               text NOT NULL CHECK (char_length(sku) BETWEEN 1 AND 64),
  service_type      text NOT NULL DEFAULT 'data' CHECK (service_type IN ('data', 'sms', 'data_sms')),
  ordered_at        timestamptz NOT NULL,
  activated_at      timestamptz,
  expected_expire_at timestamptz,
  expired_at        timestamptz,
  sales_order_id    text CHECK (char_length(sales_order_id) <= 64),
  quota_kb          bigint CHECK (quota_kb >= 0),
  used_kb           bigint NOT NULL DEFAULT 0 CHECK (used_kb >= 0),
  reset_cycle       text NOT NULL CHECK (reset_cycle IN ('DAY', 'DAY_24H', 'MONTH', 'MONTH_31D', 'YEAR_366D')),
  -- SPEC.md section 9 overage policies.
  overage_policy    text NOT NULL DEFAULT 'stop'
                    CHECK (overage_policy IN ('stop', 'billing', 'billing_speed_decrease', 'billing_throttle_after_threshold', 'billing_stop_after_allowance')),
  throttle_kbps     int CHECK (throttle_kbps IN (128, 256)),
  overage_threshold_kb bigint CHECK (overage_threshold_kb >= 0),
  out_of_coverage   text NOT NULL DEFAULT 'not_applicable' CHECK (out_of_coverage IN ('billing', 'shut_down', 'not_applicable')),
  coverage_countries text[] NOT NULL DEFAULT '{}' CHECK (country_codes_ok(coverage_countries)),
  status            text NOT NULL DEFAULT 'PENDING' CHECK (status IN ('PENDING', 'IN_USE', 'EXPIRED', 'CANCELLED')),
  pool_id           text REFERENCES shared_pools(id) ON DELETE SET NULL,
  price             numeric(12, 4) CHECK (price >= 0),
  currency          text CHECK (currency ~ '^[A-Z]{3}$'),
  created_at        timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT bundle_orders_dates_ck CHECK (expected_expire_at IS NULL OR activated_at IS NULL OR expected_expire_at >= activated_at),
  CONSTRAINT bundle_orders_throttle_ck CHECK (overage_policy NOT IN ('billing_speed_decrease', 'billing_throttle_after_threshold') OR throttle_kbps IS NOT NULL)
);
CREATE INDEX bundle_orders_org_sim_idx ON bundle_orders (org_id, sim_id, ordered_at DESC);
CREATE INDEX bundle_orders_org_ordered_idx ON bundle_orders (org_id, ordered_at DESC, id);
CREATE INDEX bundle_orders_org_status_idx ON bundle_orders (org_id, status, ordered_at DESC);
CREATE INDEX bundle_orders_org_iccid_idx ON bundle_orders (org_id, iccid);

-- ---------------------------------------------------------------------------------------------------------
-- CDRs, partitioned by month of start_at. The primary key must hold the partition key.

CREATE TABLE cdrs (
  org_id        text NOT NULL REFERENCES organisations(id),
  id            bigint GENERATED ALWAYS AS IDENTITY,
  -- No foreign key to sims: a CDR is a historical fact that outlives transfers and deletions, and the
  -- check would cost every insert on the largest table.
  sim_id        text NOT NULL,
  iccid         text NOT NULL,
  imsi          text,
  network       text NOT NULL CHECK (char_length(network) <= 100),
  mcc_mnc       text CHECK (mcc_mnc ~ '^[0-9]{5,6}$'),
  country       text CHECK (country ~ '^[A-Z]{2}$'),
  plan_code     text CHECK (char_length(plan_code) <= 64),
  direction     text NOT NULL CHECK (direction IN ('uplink', 'downlink')),
  rat           text NOT NULL DEFAULT 'undetermined' CHECK (rat IN ('2G', '3G', 'LTE', 'CATM', 'NBIoT', 'undetermined')),
  volume_kb     bigint NOT NULL CHECK (volume_kb >= 0),
  start_at      timestamptz NOT NULL,
  end_at        timestamptz NOT NULL,
  duration_s    int NOT NULL CHECK (duration_s >= 0),
  CONSTRAINT cdrs_times_ck CHECK (end_at >= start_at),
  PRIMARY KEY (org_id, start_at, id)
) PARTITION BY RANGE (start_at);
CREATE INDEX cdrs_org_iccid_idx ON cdrs (org_id, iccid, start_at DESC);
CREATE INDEX cdrs_org_sim_idx ON cdrs (org_id, sim_id, start_at DESC);

-- Rows outside every monthly partition land here rather than failing; a maintenance job creates next
-- month's partition ahead of time with cdr_ensure_partition (a new partition over rows already sitting
-- in the default one is refused, so it must come first).
CREATE TABLE cdrs_default PARTITION OF cdrs DEFAULT;

-- Create the monthly partition cdrs_yYYYYmMM holding [month, month + 1) if it is missing; returns its name.
CREATE FUNCTION cdr_ensure_partition(month date) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  from_day date := date_trunc('month', month)::date;
  to_day date := (date_trunc('month', month) + interval '1 month')::date;
  part text := format('cdrs_y%sm%s', to_char(from_day, 'YYYY'), to_char(from_day, 'MM'));
BEGIN
  IF to_regclass(part) IS NULL THEN
    -- Bounds carry an explicit +00 so the session's TimeZone cannot shift them.
    EXECUTE format('CREATE TABLE %I PARTITION OF cdrs FOR VALUES FROM (%L) TO (%L)',
      part, to_char(from_day, 'YYYY-MM-DD') || ' 00:00:00+00', to_char(to_day, 'YYYY-MM-DD') || ' 00:00:00+00');
  END IF;
  RETURN part;
END;
$$;

-- Monthly partitions for 2026 and 2027 (the demo period and the year after). Bounds are UTC midnights.
DO $$
DECLARE m date;
BEGIN
  FOR m IN SELECT generate_series(date '2026-01-01', date '2027-12-01', interval '1 month')::date LOOP
    PERFORM cdr_ensure_partition(m);
  END LOOP;
END;
$$;

-- Rollups, kept by the writer of CDRs in the same transaction, so that pages never scan raw CDRs.
-- day is the UTC day (SIM pages end the day at 23:59 UTC+0).
CREATE TABLE usage_daily (
  org_id        text NOT NULL REFERENCES organisations(id),
  sim_id        text NOT NULL,
  day           date NOT NULL,
  iccid         text NOT NULL,
  uplink_kb     bigint NOT NULL DEFAULT 0 CHECK (uplink_kb >= 0),
  downlink_kb   bigint NOT NULL DEFAULT 0 CHECK (downlink_kb >= 0),
  volume_kb     bigint NOT NULL DEFAULT 0 CHECK (volume_kb >= 0),
  cdr_count     int NOT NULL DEFAULT 0 CHECK (cdr_count >= 0),
  sms_mo        int NOT NULL DEFAULT 0 CHECK (sms_mo >= 0),
  sms_mt        int NOT NULL DEFAULT 0 CHECK (sms_mt >= 0),
  PRIMARY KEY (org_id, sim_id, day)
);
CREATE INDEX usage_daily_org_day_idx ON usage_daily (org_id, day, volume_kb DESC);

-- Per organisation and UTC hour: the dashboard's UTC+8 day and any other cut-off are sums of hours.
CREATE TABLE usage_hourly (
  org_id        text NOT NULL REFERENCES organisations(id),
  hour          timestamptz NOT NULL CHECK (date_part('minute', hour AT TIME ZONE 'UTC') = 0 AND date_part('second', hour AT TIME ZONE 'UTC') = 0),
  uplink_kb     bigint NOT NULL DEFAULT 0 CHECK (uplink_kb >= 0),
  downlink_kb   bigint NOT NULL DEFAULT 0 CHECK (downlink_kb >= 0),
  volume_kb     bigint NOT NULL DEFAULT 0 CHECK (volume_kb >= 0),
  cdr_count     int NOT NULL DEFAULT 0 CHECK (cdr_count >= 0),
  active_sims   int NOT NULL DEFAULT 0 CHECK (active_sims >= 0),
  sms_mo        int NOT NULL DEFAULT 0 CHECK (sms_mo >= 0),
  sms_mt        int NOT NULL DEFAULT 0 CHECK (sms_mt >= 0),
  PRIMARY KEY (org_id, hour)
);

-- ---------------------------------------------------------------------------------------------------------
-- Pool members and events.

CREATE TABLE pool_members (
  org_id        text NOT NULL REFERENCES organisations(id),
  pool_id       text NOT NULL REFERENCES shared_pools(id) ON DELETE CASCADE,
  sim_id        text NOT NULL REFERENCES sims(id) ON DELETE CASCADE,
  iccid         text NOT NULL,
  joined_at     timestamptz NOT NULL DEFAULT now(),
  left_at       timestamptz,
  cycle_usage_kb bigint NOT NULL DEFAULT 0 CHECK (cycle_usage_kb >= 0),
  stopped       boolean NOT NULL DEFAULT false,
  PRIMARY KEY (org_id, pool_id, sim_id),
  CONSTRAINT pool_members_dates_ck CHECK (left_at IS NULL OR left_at >= joined_at)
);
-- A SIM is a current member of at most one pool.
CREATE UNIQUE INDEX pool_members_current_uq ON pool_members (org_id, sim_id) WHERE left_at IS NULL;

CREATE TABLE pool_events (
  org_id        text NOT NULL REFERENCES organisations(id),
  id            bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  pool_id       text NOT NULL REFERENCES shared_pools(id) ON DELETE CASCADE,
  type          text NOT NULL CHECK (type IN ('setup', 'sim_enrolment', 'sim_exit', 'limit_increase', 'limit_decrease', 'overage',
                                              'overage_recovery', 'new_pool_launch', 'manage_sims_add', 'scheduled_scan')),
  state         text NOT NULL DEFAULT 'created' CHECK (state IN ('created', 'effected', 'modified')),
  sim_count     int CHECK (sim_count >= 0),
  limit_kb      bigint CHECK (limit_kb >= 0),
  detail        jsonb NOT NULL DEFAULT '{}'::jsonb,
  account_id    text REFERENCES accounts(id) ON DELETE SET NULL,
  at            timestamptz NOT NULL DEFAULT now(),
  effective_at  timestamptz
);
CREATE INDEX pool_events_org_pool_idx ON pool_events (org_id, pool_id, at DESC);

-- ---------------------------------------------------------------------------------------------------------
-- Autoflow rules and their runs.

CREATE TABLE autoflow_rules (
  org_id        text NOT NULL REFERENCES organisations(id),
  id            text PRIMARY KEY CHECK (id ~ '^[A-Za-z0-9]{18,22}$'),
  name          text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 100),
  trigger       text NOT NULL CHECK (trigger IN ('data_usage', 'data_usage_percent', 'status_change', 'sms_mo', 'sms_mt',
                                                 'expiry_reminder', 'imei_change', 'network_change', 'pool_usage', 'session_start')),
  -- Threshold, unit, from/to status...: validated by the rule engine (SPEC.md section 5 ranges).
  condition     jsonb NOT NULL DEFAULT '{}'::jsonb CHECK (jsonb_typeof(condition) = 'object'),
  -- Which SIMs: all, iccids, imeis, tags, product type, pool, file.
  scope         jsonb NOT NULL DEFAULT '{"type": "all"}'::jsonb CHECK (jsonb_typeof(scope) = 'object'),
  action        jsonb NOT NULL CHECK (jsonb_typeof(action) = 'object' AND action ? 'type'),
  action_type   text NOT NULL CHECK (action_type IN ('email', 'webhook', 'sms', 'suspend', 'resume', 'activate', 'throttle', 'tag')),
  status        text NOT NULL DEFAULT 'enabled' CHECK (status IN ('enabled', 'disabled', 'deleted')),
  activation_at timestamptz,
  expiry_at     timestamptz,
  created_by    text REFERENCES accounts(id) ON DELETE SET NULL,
  origin        text NOT NULL DEFAULT 'console' CHECK (origin IN ('console', 'api', 'template', 'system')),
  last_run_at   timestamptz,
  run_count     int NOT NULL DEFAULT 0 CHECK (run_count >= 0),
  deleted_at    timestamptz,
  created_at    timestamptz NOT NULL DEFAULT now(),
  updated_at    timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT autoflow_rules_period_ck CHECK (expiry_at IS NULL OR activation_at IS NULL OR expiry_at > activation_at),
  CONSTRAINT autoflow_rules_deleted_ck CHECK ((status = 'deleted') = (deleted_at IS NOT NULL))
);
-- "Autoflow name already exists": unique among the organisation's rules that are not deleted.
CREATE UNIQUE INDEX autoflow_rules_org_name_uq ON autoflow_rules (org_id, name) WHERE status <> 'deleted';
CREATE INDEX autoflow_rules_org_created_idx ON autoflow_rules (org_id, created_at DESC, id);
CREATE INDEX autoflow_rules_org_trigger_idx ON autoflow_rules (org_id, trigger) WHERE status = 'enabled';

CREATE TABLE autoflow_runs (
  org_id        text NOT NULL REFERENCES organisations(id),
  id            bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  rule_id       text NOT NULL REFERENCES autoflow_rules(id) ON DELETE CASCADE,
  sim_id        text,
  iccid         text,
  trigger       text NOT NULL,
  detail        jsonb NOT NULL DEFAULT '{}'::jsonb,
  status        text NOT NULL DEFAULT 'success' CHECK (status IN ('success', 'failed', 'skipped')),
  at            timestamptz NOT NULL DEFAULT now()
);
-- Run history is kept 30 days (SPEC.md section 9): a sweep deletes by (org_id, at).
CREATE INDEX autoflow_runs_org_rule_idx ON autoflow_runs (org_id, rule_id, at DESC);
CREATE INDEX autoflow_runs_org_at_idx ON autoflow_runs (org_id, at);

-- ---------------------------------------------------------------------------------------------------------
-- SMS: scheduled tasks, their executions, and every SMS sent or received.

CREATE TABLE sms_schedules (
  org_id        text NOT NULL REFERENCES organisations(id),
  id            text PRIMARY KEY CHECK (id ~ '^[A-Za-z0-9]{18,22}$'),
  name          text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 50),
  content       text NOT NULL CHECK (char_length(content) BETWEEN 1 AND 140),
  sms_type      text NOT NULL DEFAULT 'text' CHECK (sms_type IN ('text', 'binary')),
  mode          text NOT NULL CHECK (mode IN ('once', 'repeated')),
  -- ISO weekdays, 1 = Monday ... 7 = Sunday; required for repeated schedules.
  weekdays      int[] NOT NULL DEFAULT '{}' CHECK (weekdays <@ ARRAY[1, 2, 3, 4, 5, 6, 7]),
  send_time     time NOT NULL DEFAULT '09:00',
  timezone      text NOT NULL DEFAULT 'UTC',
  start_at      timestamptz NOT NULL,
  end_at        timestamptz,
  never_ends    boolean NOT NULL DEFAULT false,
  target_iccids text[] NOT NULL DEFAULT '{}' CHECK (cardinality(target_iccids) <= 100000),
  email_notify  boolean NOT NULL DEFAULT false,
  notify_emails text[] NOT NULL DEFAULT '{}' CHECK (cardinality(notify_emails) <= 10),
  status        text NOT NULL DEFAULT 'enabled' CHECK (status IN ('enabled', 'disabled')),
  -- A once-only schedule that is executing cannot be edited or deleted (SPEC.md section 4).
  executing     boolean NOT NULL DEFAULT false,
  next_run_at   timestamptz,
  last_run_at   timestamptz,
  created_by    text REFERENCES accounts(id) ON DELETE SET NULL,
  created_at    timestamptz NOT NULL DEFAULT now(),
  updated_at    timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT sms_schedules_weekdays_ck CHECK (mode = 'once' OR cardinality(weekdays) >= 1),
  CONSTRAINT sms_schedules_end_ck CHECK (mode = 'once' OR never_ends OR end_at IS NOT NULL),
  CONSTRAINT sms_schedules_never_ck CHECK (NOT (never_ends AND end_at IS NOT NULL))
);
CREATE INDEX sms_schedules_org_created_idx ON sms_schedules (org_id, created_at DESC, id);
CREATE INDEX sms_schedules_org_next_idx ON sms_schedules (org_id, next_run_at) WHERE status = 'enabled';

CREATE TABLE sms_schedule_runs (
  org_id        text NOT NULL REFERENCES organisations(id),
  id            bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  schedule_id   text NOT NULL REFERENCES sms_schedules(id) ON DELETE CASCADE,
  at            timestamptz NOT NULL DEFAULT now(),
  status        text NOT NULL CHECK (status IN ('running', 'done', 'partial', 'failed')),
  targets       int NOT NULL DEFAULT 0 CHECK (targets >= 0),
  sent          int NOT NULL DEFAULT 0 CHECK (sent >= 0),
  failed        int NOT NULL DEFAULT 0 CHECK (failed >= 0),
  detail        jsonb NOT NULL DEFAULT '{}'::jsonb
);
CREATE INDEX sms_schedule_runs_org_schedule_idx ON sms_schedule_runs (org_id, schedule_id, at DESC);

CREATE TABLE sms_records (
  org_id        text NOT NULL REFERENCES organisations(id),
  id            text PRIMARY KEY CHECK (id ~ '^[A-Za-z0-9]{18,22}$'),
  sim_id        text REFERENCES sims(id) ON DELETE SET NULL,
  iccid         text NOT NULL,
  msisdn        text,
  direction     text NOT NULL CHECK (direction IN ('MT', 'MO')),
  content       text NOT NULL CHECK (char_length(content) <= 140),
  sms_type      text NOT NULL DEFAULT 'text' CHECK (sms_type IN ('text', 'binary')),
  status        text NOT NULL CHECK (status IN ('pending', 'sent', 'delivered', 'failed', 'received')),
  schedule_id   text REFERENCES sms_schedules(id) ON DELETE SET NULL,
  -- An MT reply points at the MO it answers.
  reply_to_id   text REFERENCES sms_records(id) ON DELETE SET NULL,
  account_id    text REFERENCES accounts(id) ON DELETE SET NULL,
  error         text,
  created_at    timestamptz NOT NULL DEFAULT now(),
  sent_at       timestamptz,
  delivered_at  timestamptz,
  CONSTRAINT sms_records_direction_ck CHECK ((direction = 'MO') = (status = 'received'))
);
CREATE INDEX sms_records_org_created_idx ON sms_records (org_id, created_at DESC, id);
CREATE INDEX sms_records_org_iccid_idx ON sms_records (org_id, iccid, created_at DESC);
CREATE INDEX sms_records_org_reply_idx ON sms_records (org_id, reply_to_id) WHERE reply_to_id IS NOT NULL;
CREATE INDEX sms_records_org_schedule_idx ON sms_records (org_id, schedule_id) WHERE schedule_id IS NOT NULL;

-- ---------------------------------------------------------------------------------------------------------
-- Developer keys and logs.

CREATE TABLE api_keys (
  org_id        text NOT NULL REFERENCES organisations(id),
  id            text PRIMARY KEY CHECK (id ~ '^[A-Za-z0-9]{18,22}$'),
  account_id    text NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  name          text CHECK (char_length(name) BETWEEN 1 AND 60),
  -- Public key id, looked up before the organisation is known, hence unique on its own.
  key_id        text NOT NULL UNIQUE CHECK (key_id ~ '^[A-Za-z0-9]{16,40}$'),
  -- 1024-bit RSA public key (PEM); the private key is shown once and never stored.
  public_key    text NOT NULL,
  last_used_at  timestamptz,
  revoked_at    timestamptz,
  created_at    timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX api_keys_org_account_idx ON api_keys (org_id, account_id, created_at DESC);

CREATE TABLE notification_keys (
  org_id        text NOT NULL REFERENCES organisations(id),
  id            text PRIMARY KEY CHECK (id ~ '^[A-Za-z0-9]{18,22}$'),
  account_id    text NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  key_id        text NOT NULL UNIQUE CHECK (key_id ~ '^[A-Za-z0-9]{16,40}$'),
  -- Signing secret for webhook bodies.
  secret        text NOT NULL,
  webhook_url   text CHECK (webhook_url ~ '^https://[^\s/?#]+[^\s]*$' AND char_length(webhook_url) <= 2048),
  status        text NOT NULL DEFAULT 'disabled' CHECK (status IN ('enabled', 'disabled')),
  created_at    timestamptz NOT NULL DEFAULT now(),
  updated_at    timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT notification_keys_enabled_ck CHECK (status = 'disabled' OR webhook_url IS NOT NULL)
);
-- One notification key per developer (account) in an organisation.
CREATE UNIQUE INDEX notification_keys_org_account_uq ON notification_keys (org_id, account_id);

CREATE TABLE api_logs (
  org_id        text NOT NULL REFERENCES organisations(id),
  id            bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  api_key_id    text,
  ip            text,
  trace_id      text NOT NULL,
  at            timestamptz NOT NULL DEFAULT now(),
  http_code     int NOT NULL CHECK (http_code BETWEEN 100 AND 599),
  method        text NOT NULL CHECK (method IN ('GET', 'POST', 'PUT', 'PATCH', 'DELETE')),
  path          text NOT NULL,
  headers       jsonb NOT NULL DEFAULT '{}'::jsonb,
  body          text,
  response      text,
  duration_ms   int CHECK (duration_ms >= 0)
);
CREATE INDEX api_logs_org_at_idx ON api_logs (org_id, at DESC);
CREATE INDEX api_logs_org_trace_idx ON api_logs (org_id, trace_id);

CREATE TABLE notification_logs (
  org_id        text NOT NULL REFERENCES organisations(id),
  id            bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  notification_key_id text REFERENCES notification_keys(id) ON DELETE SET NULL,
  url           text NOT NULL,
  event_type    text NOT NULL,
  subtype       text,
  payload       jsonb NOT NULL DEFAULT '{}'::jsonb,
  sent_at       timestamptz NOT NULL DEFAULT now(),
  http_code     int CHECK (http_code BETWEEN 100 AND 599),
  response      text,
  attempt       int NOT NULL DEFAULT 1 CHECK (attempt >= 1)
);
CREATE INDEX notification_logs_org_sent_idx ON notification_logs (org_id, sent_at DESC);
CREATE INDEX notification_logs_org_type_idx ON notification_logs (org_id, event_type, sent_at DESC);

-- ---------------------------------------------------------------------------------------------------------
-- Invoices and their per-SIM lines.

CREATE TABLE invoices (
  org_id            text NOT NULL REFERENCES organisations(id),
  id                text PRIMARY KEY CHECK (id ~ '^[A-Za-z0-9]{18,22}$'),
  bill_id           text NOT NULL CHECK (char_length(bill_id) BETWEEN 1 AND 40),
  status            text NOT NULL DEFAULT 'draft' CHECK (status IN ('draft', 'published', 'obsolete', 'paid')),
  type              text NOT NULL CHECK (type IN ('post_payment', 'advance', 'credit', 'predeposit')),
  cycle_start       date NOT NULL,
  cycle_end         date NOT NULL,
  billing_cycle     text NOT NULL CHECK (billing_cycle ~ '^[0-9]{4}-[0-9]{2}$'),
  billing_date      date NOT NULL,
  issued_at         timestamptz,
  -- SPEC.md section 9: 10 days after issue or month end, whichever is earlier (set by billing).
  due_date          date NOT NULL,
  paid_at           timestamptz,
  currency          text NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
  amount_excl_tax   numeric(14, 2) NOT NULL,
  tax_rate          numeric(6, 4) NOT NULL CHECK (tax_rate >= 0 AND tax_rate < 1),
  tax_amount        numeric(14, 2) NOT NULL,
  amount_incl_tax   numeric(14, 2) NOT NULL,
  unit_price        numeric(12, 4),
  settlement_customer text,
  bank_details      jsonb NOT NULL DEFAULT '{}'::jsonb,
  credit_limit      numeric(14, 2),
  sku               text,
  version           int NOT NULL DEFAULT 1 CHECK (version >= 1),
  bundle_quantity   int NOT NULL DEFAULT 0 CHECK (bundle_quantity >= 0),
  bundle_price      numeric(14, 2) NOT NULL DEFAULT 0,
  overage_quantity_kb bigint NOT NULL DEFAULT 0 CHECK (overage_quantity_kb >= 0),
  overage_price     numeric(14, 2) NOT NULL DEFAULT 0,
  pool_info         jsonb,
  usage_kb          bigint NOT NULL DEFAULT 0 CHECK (usage_kb >= 0),
  sim_count         int NOT NULL DEFAULT 0 CHECK (sim_count >= 0),
  created_at        timestamptz NOT NULL DEFAULT now(),
  updated_at        timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT invoices_cycle_ck CHECK (cycle_end >= cycle_start),
  CONSTRAINT invoices_due_ck CHECK (due_date >= billing_date),
  CONSTRAINT invoices_total_ck CHECK (amount_incl_tax = amount_excl_tax + tax_amount),
  CONSTRAINT invoices_paid_ck CHECK ((status = 'paid') = (paid_at IS NOT NULL))
);
CREATE UNIQUE INDEX invoices_org_bill_version_uq ON invoices (org_id, bill_id, version);
CREATE INDEX invoices_org_date_idx ON invoices (org_id, billing_date DESC, id);
CREATE INDEX invoices_org_status_idx ON invoices (org_id, status, billing_date DESC);

CREATE TABLE invoice_lines (
  org_id          text NOT NULL REFERENCES organisations(id),
  id              bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  invoice_id      text NOT NULL REFERENCES invoices(id) ON DELETE CASCADE,
  sim_id          text,
  iccid           text NOT NULL,
  sku             text,
  bundle_quantity int NOT NULL DEFAULT 1 CHECK (bundle_quantity >= 0),
  bundle_price    numeric(12, 4) NOT NULL DEFAULT 0,
  usage_kb        bigint NOT NULL DEFAULT 0 CHECK (usage_kb >= 0),
  overage_kb      bigint NOT NULL DEFAULT 0 CHECK (overage_kb >= 0),
  overage_amount  numeric(12, 4) NOT NULL DEFAULT 0,
  amount          numeric(12, 4) NOT NULL DEFAULT 0
);
CREATE INDEX invoice_lines_org_invoice_idx ON invoice_lines (org_id, invoice_id, iccid);

-- ---------------------------------------------------------------------------------------------------------
-- Stored files (exports, uploads, templates, PDFs) behind the storage interface; the bytes live in
-- DATA_DIR or an S3-compatible bucket under storage_key.

CREATE TABLE files (
  org_id        text NOT NULL REFERENCES organisations(id),
  id            text PRIMARY KEY CHECK (id ~ '^[A-Za-z0-9]{18,22}$'),
  account_id    text REFERENCES accounts(id) ON DELETE SET NULL,
  kind          text NOT NULL CHECK (kind IN ('export', 'upload', 'template', 'report', 'invoice_pdf', 'diagnose_pdf')),
  storage_key   text NOT NULL UNIQUE,
  name          text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 255),
  content_type  text NOT NULL,
  size_bytes    bigint NOT NULL CHECK (size_bytes >= 0),
  sha256        text CHECK (sha256 ~ '^[0-9a-f]{64}$'),
  expires_at    timestamptz,
  created_at    timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX files_org_created_idx ON files (org_id, created_at DESC);

-- ---------------------------------------------------------------------------------------------------------
-- Reports and their preference columns.

CREATE TABLE reports (
  org_id        text NOT NULL REFERENCES organisations(id),
  id            text PRIMARY KEY CHECK (id ~ '^[A-Za-z0-9]{18,22}$'),
  report        text NOT NULL CHECK (report IN ('monthly_usage', 'sim_inventory', 'sms_usage', 'bundle_usage', 'pool_usage')),
  period        text NOT NULL CHECK (period ~ '^[0-9]{4}-[0-9]{2}$'),
  status        text NOT NULL DEFAULT 'ready' CHECK (status IN ('pending', 'ready', 'failed')),
  file_id       text REFERENCES files(id) ON DELETE SET NULL,
  row_count     int CHECK (row_count >= 0),
  created_at    timestamptz NOT NULL DEFAULT now(),
  updated_at    timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX reports_org_report_period_uq ON reports (org_id, report, period);
CREATE INDEX reports_org_created_idx ON reports (org_id, created_at DESC, id);

CREATE TABLE report_preferences (
  org_id        text NOT NULL REFERENCES organisations(id),
  column_key    text NOT NULL CHECK (column_key ~ '^[a-z][a-z0-9_]{0,49}$'),
  enabled       boolean NOT NULL DEFAULT true,
  position      int NOT NULL DEFAULT 0 CHECK (position >= 0),
  updated_by    text REFERENCES accounts(id) ON DELETE SET NULL,
  updated_at    timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (org_id, column_key)
);

-- ---------------------------------------------------------------------------------------------------------
-- Tasks: durable jobs shown in the task center. A worker claims one with
--   SELECT ... FROM tasks WHERE status = 'processing' AND (claimed_by IS NULL OR heartbeat_at < now() - interval '1 minute')
--   ORDER BY created_at LIMIT 1 FOR UPDATE SKIP LOCKED
-- then sets claimed_by, claimed_at, heartbeat_at; a crashed worker's task is claimed again after the lease.

CREATE TABLE tasks (
  org_id        text NOT NULL REFERENCES organisations(id),
  id            text PRIMARY KEY CHECK (id ~ '^[A-Za-z0-9]{18,22}$'),
  account_id    text REFERENCES accounts(id) ON DELETE SET NULL,
  reference_id  text NOT NULL CHECK (char_length(reference_id) BETWEEN 1 AND 40),
  kind          text NOT NULL CHECK (kind IN ('sim_export', 'sim_activate', 'sim_suspend', 'sim_resume', 'sim_reset', 'sim_transfer',
                                              'sim_info_upload', 'cdr_export', 'sms_export', 'sms_report', 'bundle_export',
                                              'report', 'invoice_export', 'autoflow_sims_export')),
  quantity      int NOT NULL DEFAULT 0 CHECK (quantity >= 0),
  remark        text CHECK (char_length(remark) <= 500),
  status        text NOT NULL DEFAULT 'processing' CHECK (status IN ('processing', 'done', 'issues')),
  progress      int NOT NULL DEFAULT 0 CHECK (progress BETWEEN 0 AND 100),
  payload       jsonb NOT NULL DEFAULT '{}'::jsonb,
  result        jsonb,
  result_file_id text REFERENCES files(id) ON DELETE SET NULL,
  error         text,
  attempts      int NOT NULL DEFAULT 0 CHECK (attempts >= 0),
  claimed_by    text,
  claimed_at    timestamptz,
  heartbeat_at  timestamptz,
  started_at    timestamptz,
  ended_at      timestamptz,
  created_at    timestamptz NOT NULL DEFAULT now(),
  updated_at    timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT tasks_ended_ck CHECK ((status = 'processing') = (ended_at IS NULL)),
  CONSTRAINT tasks_done_progress_ck CHECK (status <> 'done' OR progress = 100),
  CONSTRAINT tasks_period_ck CHECK (ended_at IS NULL OR started_at IS NULL OR ended_at >= started_at)
);
CREATE INDEX tasks_org_account_idx ON tasks (org_id, account_id, created_at DESC);
CREATE INDEX tasks_org_created_idx ON tasks (org_id, created_at DESC, id);
-- The one index not led by org_id: workers claim across organisations, and it only holds open tasks.
CREATE INDEX tasks_claim_idx ON tasks (created_at) WHERE status = 'processing';
