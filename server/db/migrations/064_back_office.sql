-- The provider's back office: an account flagged here makes, corrects, credits and settles invoices (common/permissions.ts,
-- docs/decisions.md "Invoices are changed by the provider's back office"). No route writes the flag: the provider sets it
-- in the database. A back-office account's memberships are not the customer's: its account list and seats leave them out.
ALTER TABLE accounts ADD COLUMN back_office boolean NOT NULL DEFAULT false;
