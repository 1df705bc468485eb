-- Invoices made from usage (docs/decisions.md "Invoices made by the monthly job").
--
-- The monthly job (server/billing/invoice-job.ts) makes, for each organisation with billable usage in a closed UTC
-- month, one post-payment invoice (version 1, draft) from its bundle orders and the usage_daily rollup. An invoice is
-- unique per organisation, month, type and version, so a second run or a second instance finds it made and does
-- nothing. A correction is a new version of the same bill id; the old one is kept, obsolete and no longer current.

-- What an organisation is billed in: currency, tax rate, the overage price per MB in minor units, the settlement
-- party and its bank. An organisation without a row is billed with the defaults of the job (EUR, 19 %, 2 per MB).
CREATE TABLE billing_profiles (
  org_id               text PRIMARY KEY REFERENCES organisations(id) ON DELETE CASCADE,
  currency             text NOT NULL DEFAULT 'EUR' CHECK (currency ~ '^[A-Z]{3}$'),
  tax_rate             numeric(6, 4) NOT NULL DEFAULT 0.19 CHECK (tax_rate >= 0 AND tax_rate < 1),
  overage_minor_per_mb int NOT NULL DEFAULT 2 CHECK (overage_minor_per_mb >= 0),
  settlement_customer  text CHECK (char_length(settlement_customer) <= 100),
  bank_details         jsonb NOT NULL DEFAULT '{}'::jsonb,
  credit_limit         numeric(14, 2)
);
INSERT INTO billing_profiles (org_id, currency, tax_rate)
SELECT id, CASE country WHEN 'GB' THEN 'GBP' ELSE 'EUR' END, CASE country WHEN 'GB' THEN 0.20 WHEN 'ES' THEN 0.21 ELSE 0.19 END
  FROM organisations ON CONFLICT DO NOTHING;

ALTER TABLE invoices
  -- The version shown for the bill id; an earlier version superseded by a correction is not current (and obsolete).
  ADD COLUMN is_current boolean NOT NULL DEFAULT true,
  ADD COLUMN supersedes text REFERENCES invoices(id),
  ADD COLUMN correction_reason text CHECK (char_length(correction_reason) <= 200),
  -- job: made by the monthly job (or a correction); seed: demo rows.
  ADD COLUMN origin text NOT NULL DEFAULT 'seed' CHECK (origin IN ('seed', 'job'));
CREATE UNIQUE INDEX invoices_org_cycle_type_version_uq ON invoices (org_id, billing_cycle, type, version);
CREATE UNIQUE INDEX invoices_org_bill_current_uq ON invoices (org_id, bill_id) WHERE is_current;

-- Payments recorded against an invoice (SPEC.md section 7, Billing "settles"): when they reach its total it is paid.
CREATE TABLE invoice_settles (
  org_id       text NOT NULL REFERENCES organisations(id),
  id           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  invoice_id   text NOT NULL REFERENCES invoices(id) ON DELETE CASCADE,
  amount       numeric(14, 2) NOT NULL CHECK (amount > 0),
  currency     text NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
  paid_on      date NOT NULL,
  reference    text NOT NULL CHECK (char_length(reference) BETWEEN 1 AND 64),
  recorded_by  text,
  recorded_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX invoice_settles_org_invoice_idx ON invoice_settles (org_id, invoice_id, recorded_at);

-- The job's read of a month's bundles per organisation.
CREATE INDEX bundle_orders_org_activated_idx ON bundle_orders (org_id, activated_at) WHERE activated_at IS NOT NULL;
