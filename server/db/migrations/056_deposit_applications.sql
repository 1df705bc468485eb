-- A paid deposit drawn on by the post-payment invoices (docs/decisions.md "A paid deposit drawn on when a
-- post-payment invoice is issued").
--
-- A deposit application is a payment (settle) of kind 'deposit' on the invoice it pays, recorded when the invoice is
-- published: min(the organisation's deposit left, what the invoice asks), in whole cents. At most one per invoice
-- version (the unique index below), so a retried or concurrent publish never draws twice. The organisation's deposit
-- left is what its paid deposit invoices paid less the deposit settles of its invoices that are not obsolete: a
-- correction obsoletes the version it replaces and so gives that version's application back, and the new version
-- draws again when it is published.
ALTER TABLE invoice_settles ADD COLUMN kind text NOT NULL DEFAULT 'payment' CHECK (kind IN ('payment', 'deposit'));
CREATE UNIQUE INDEX invoice_settles_deposit_uq ON invoice_settles (org_id, invoice_id) WHERE kind = 'deposit';
