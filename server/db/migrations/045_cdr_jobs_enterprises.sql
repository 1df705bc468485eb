-- CDRs and the remaining calls of SPEC.md section 7: one CDR by its id, a job's provider log, notification subscription
-- groups and an organisation's enterprise (settlement) details. Runs unchanged on PGlite and PostgreSQL 15.

-- GET /stdcdrs/{id}: a CDR is found by its organisation and id. The primary key leads with start_at (the partition
-- key), so without this index one CDR would be looked for in every monthly partition's rows.
CREATE INDEX cdrs_org_id_idx ON cdrs (org_id, id);

-- GET /rest/logs/provider/result/{id}: what the providers of a job said while it ran, line by line: the job worker
-- (which instance claimed it, a takeover, a wait, the end) and the network (the operator's answers for its SIMs).
CREATE TABLE task_logs (
  org_id        text NOT NULL REFERENCES organisations(id),
  task_id       text NOT NULL REFERENCES tasks(id) ON DELETE CASCADE,
  id            bigint GENERATED ALWAYS AS IDENTITY,
  at            timestamptz NOT NULL DEFAULT now(),
  provider      text NOT NULL CHECK (provider IN ('worker', 'network')),
  level         text NOT NULL DEFAULT 'info' CHECK (level IN ('info', 'warn', 'error')),
  -- A message key (console words "taskLog.<key>") and its values, so each reader sees it in their own language.
  message       text NOT NULL CHECK (message ~ '^[a-zA-Z]{1,40}$'),
  detail        jsonb NOT NULL DEFAULT '{}'::jsonb,
  PRIMARY KEY (org_id, task_id, id)
);

-- GET/PUT/POST /rest/subscribe/group: who receives which notifications, by e-mail or (the SMS variant) by SMS.
CREATE TABLE subscription_groups (
  org_id        text NOT NULL REFERENCES organisations(id),
  id            text PRIMARY KEY CHECK (id ~ '^[A-Za-z0-9]{18,22}$'),
  channel       text NOT NULL CHECK (channel IN ('email', 'sms')),
  name          text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 50),
  -- Kinds of common/subscriptions.ts (the server checks the list; a feature adds its kind there, not here).
  notifications text[] NOT NULL CHECK (cardinality(notifications) BETWEEN 1 AND 10 AND array_to_string(notifications, ',') ~ '^[a-z_]{1,30}(,[a-z_]{1,30})*$'),
  -- E-mail addresses (channel email) or MSISDNs in international format without plus (channel sms); up to 10.
  recipients    text[] NOT NULL CHECK (cardinality(recipients) BETWEEN 1 AND 10),
  enabled       boolean NOT NULL DEFAULT true,
  -- The language its messages are written in.
  language      text NOT NULL DEFAULT 'en-US' CHECK (language IN ('en-US', 'zh-CN', 'zh-TW', 'es-ES')),
  created_by    text REFERENCES accounts(id) ON DELETE SET NULL,
  created_at    timestamptz NOT NULL DEFAULT now(),
  updated_at    timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX subscription_groups_org_idx ON subscription_groups (org_id, channel, created_at);
CREATE UNIQUE INDEX subscription_groups_name_uq ON subscription_groups (org_id, channel, lower(name));

-- SMS notifications wait here for the SMS gateway (no gateway is configured in the demo; the settings page says so).
CREATE TABLE sms_outbox (
  id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  org_id      text NOT NULL REFERENCES organisations(id),
  to_msisdn   text NOT NULL CHECK (to_msisdn ~ '^[1-9][0-9]{6,14}$'),
  body        text NOT NULL CHECK (char_length(body) <= 140),
  kind        text NOT NULL,
  sent_at     timestamptz,
  created_at  timestamptz NOT NULL DEFAULT now()
);

-- GET /enterprises/selectByOrgCode/{code}, PUT /enterprises: the legal and settlement details of an organisation
-- (what an invoice names as its settlement customer, bank details and credit limit). One row per organisation.
CREATE TABLE enterprises (
  org_id          text PRIMARY KEY REFERENCES organisations(id) ON DELETE CASCADE,
  legal_name      text NOT NULL CHECK (char_length(legal_name) BETWEEN 1 AND 100),
  tax_id          text CHECK (char_length(tax_id) BETWEEN 1 AND 30),
  address         text CHECK (char_length(address) <= 200),
  billing_email   text CHECK (char_length(billing_email) BETWEEN 3 AND 254),
  phone           text CHECK (phone ~ '^[1-9][0-9]{6,14}$'),
  currency        text NOT NULL DEFAULT 'EUR' CHECK (currency ~ '^[A-Z]{3}$'),
  invoice_type    text NOT NULL DEFAULT 'post_payment' CHECK (invoice_type IN ('post_payment', 'advance', 'credit', 'predeposit')),
  -- Money in integer minor units (cents), never floating point.
  credit_limit_minor bigint CHECK (credit_limit_minor BETWEEN 0 AND 100000000000),
  bank_name       text CHECK (char_length(bank_name) <= 100),
  iban            text CHECK (iban ~ '^[A-Z]{2}[0-9]{2}[A-Z0-9]{11,30}$'),
  bic             text CHECK (bic ~ '^[A-Z]{6}[A-Z0-9]{2}([A-Z0-9]{3})?$'),
  updated_by      text REFERENCES accounts(id) ON DELETE SET NULL,
  updated_at      timestamptz NOT NULL DEFAULT now()
);
