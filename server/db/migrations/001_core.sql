-- Core: brands, organisations, accounts, memberships, identity, audit. Runs unchanged on PGlite and PostgreSQL.

CREATE TABLE settings (
  key   text PRIMARY KEY,
  value text NOT NULL
);

CREATE TABLE brands (
  id            text PRIMARY KEY,
  partner_code  text NOT NULL UNIQUE,
  host          text UNIQUE,
  variant       text NOT NULL DEFAULT 'default' CHECK (variant IN ('default', 'nova', 'aurora', 'terra')),
  reports_enabled boolean NOT NULL DEFAULT true,
  theme         jsonb NOT NULL DEFAULT '{}'::jsonb,
  created_at    timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE organisations (
  id            text PRIMARY KEY,
  code          text NOT NULL UNIQUE CHECK (code ~ '^[A-Za-z0-9_-]{3,40}$'),
  name          text NOT NULL CHECK (char_length(name) BETWEEN 5 AND 40),
  country       text NOT NULL DEFAULT 'DE' CHECK (country ~ '^[A-Z]{2}$'),
  parent_id     text REFERENCES organisations(id) ON DELETE RESTRICT,
  level         int  NOT NULL DEFAULT 1 CHECK (level >= 1),
  brand_id      text NOT NULL REFERENCES brands(id),
  sms_quota     int  NOT NULL DEFAULT 0 CHECK (sms_quota >= 0),
  settlement    boolean NOT NULL DEFAULT false,
  account_cap   int,
  org_cap       int,
  created_at    timestamptz NOT NULL DEFAULT now(),
  updated_at    timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX organisations_name_uq ON organisations (lower(name));
CREATE INDEX organisations_parent_idx ON organisations (parent_id);

CREATE TABLE accounts (
  id             text PRIMARY KEY,
  email          text NOT NULL CHECK (char_length(email) BETWEEN 3 AND 254 AND email = lower(email)),
  first_name     text NOT NULL CHECK (char_length(first_name) BETWEEN 1 AND 30),
  last_name      text NOT NULL CHECK (char_length(last_name) BETWEEN 1 AND 30),
  password_hash  text,
  locale         text NOT NULL DEFAULT 'en-US' CHECK (locale IN ('en-US', 'zh-CN', 'zh-TW', 'es-ES')),
  status         text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'disabled')),
  oversight      boolean NOT NULL DEFAULT false,
  logins_count   int NOT NULL DEFAULT 0,
  last_sign_in_at timestamptz,
  password_changed_at timestamptz,
  created_at     timestamptz NOT NULL DEFAULT now(),
  updated_at     timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX accounts_email_uq ON accounts (email);

CREATE TABLE memberships (
  account_id   text NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  org_id       text NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  role         text NOT NULL CHECK (role IN ('user', 'operator', 'admin', 'superadmin')),
  is_default   boolean NOT NULL DEFAULT false,
  status       text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'pending')),
  invited_by   text REFERENCES accounts(id) ON DELETE SET NULL,
  invite_token_hash text,
  invited_at   timestamptz,
  accepted_at  timestamptz,
  created_at   timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (org_id, account_id)
);
CREATE INDEX memberships_account_idx ON memberships (account_id);
-- At most one default organisation per account.
CREATE UNIQUE INDEX memberships_default_uq ON memberships (account_id) WHERE is_default;

-- Image challenges for sign-in and forgot-password; the answer is stored hashed and used once.
CREATE TABLE challenges (
  id           text PRIMARY KEY,
  answer_hash  text NOT NULL,
  expires_at   timestamptz NOT NULL,
  used_at      timestamptz,
  created_at   timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX challenges_expires_idx ON challenges (expires_at);

-- A session is one sign-in; its access tokens carry its id so that sign-out or a replayed refresh token ends it.
CREATE TABLE sessions (
  id           text PRIMARY KEY,
  account_id   text NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  created_at   timestamptz NOT NULL DEFAULT now(),
  revoked_at   timestamptz,
  revoked_reason text
);
CREATE INDEX sessions_account_idx ON sessions (account_id);

-- Refresh tokens: stored hashed, rotated on every use; a replayed one revokes its family.
CREATE TABLE refresh_tokens (
  id           text PRIMARY KEY,
  token_hash   text NOT NULL UNIQUE,
  family_id    text NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
  account_id   text NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  org_id       text REFERENCES organisations(id) ON DELETE SET NULL,
  expires_at   timestamptz NOT NULL,
  used_at      timestamptz,
  revoked_at   timestamptz,
  created_at   timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX refresh_tokens_family_idx ON refresh_tokens (family_id);
CREATE INDEX refresh_tokens_account_idx ON refresh_tokens (account_id);

-- Failed sign-ins, per account (e-mail) and per address, for rate limiting shared by every instance.
CREATE TABLE sign_in_failures (
  id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  email       text NOT NULL,
  ip          text NOT NULL,
  at          timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX sign_in_failures_email_idx ON sign_in_failures (email, at);
CREATE INDEX sign_in_failures_ip_idx ON sign_in_failures (ip, at);

-- Forgot-password codes, hashed, short-lived, single use.
CREATE TABLE password_resets (
  id          text PRIMARY KEY,
  account_id  text NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  code_hash   text NOT NULL,
  attempts    int NOT NULL DEFAULT 0,
  expires_at  timestamptz NOT NULL,
  used_at     timestamptz,
  created_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX password_resets_account_idx ON password_resets (account_id, created_at);

-- Mail that is not sent through SMTP_URL lands here (README: how to read it).
CREATE TABLE outbox (
  id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  to_address  text NOT NULL,
  subject     text NOT NULL,
  body        text NOT NULL,
  kind        text NOT NULL,
  sent_at     timestamptz,
  created_at  timestamptz NOT NULL DEFAULT now()
);

-- Append-only audit trail: who, which organisation, what, when, before and after.
CREATE TABLE audit_log (
  id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  at          timestamptz NOT NULL DEFAULT now(),
  account_id  text,
  org_id      text,
  action      text NOT NULL,
  entity      text NOT NULL,
  entity_id   text,
  before      jsonb,
  after       jsonb,
  request_id  text,
  ip          text
);
CREATE INDEX audit_log_org_idx ON audit_log (org_id, at DESC);
CREATE OR REPLACE FUNCTION audit_log_append_only() RETURNS trigger AS $$
BEGIN
  RAISE EXCEPTION 'audit_log is append-only';
END;
$$ LANGUAGE plpgsql;
CREATE TRIGGER audit_log_no_update BEFORE UPDATE OR DELETE ON audit_log
  FOR EACH ROW EXECUTE FUNCTION audit_log_append_only();

CREATE TABLE page_views (
  id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  at          timestamptz NOT NULL DEFAULT now(),
  account_id  text,
  org_id      text,
  path        text NOT NULL CHECK (char_length(path) <= 500),
  language    text,
  referrer    text
);
CREATE INDEX page_views_at_idx ON page_views (at);

CREATE TABLE error_reports (
  id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  at          timestamptz NOT NULL DEFAULT now(),
  account_id  text,
  org_id      text,
  message     text NOT NULL,
  url         text,
  status      int,
  detail      jsonb
);
