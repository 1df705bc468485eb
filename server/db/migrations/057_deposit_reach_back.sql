-- A deposit paid after a post-payment invoice was issued reaches back to it (docs/decisions.md "A deposit
-- paid after the invoices were issued pays them").
--
-- When a deposit invoice becomes paid, the organisation's issued, not fully paid post-payment invoices in its currency
-- draw on the deposit, oldest due first. An invoice may so draw more than once: once when it is published (056) and
-- once for each deposit whose payment came after. deposit_id names the deposit invoice whose payment made the draw
-- (NULL for the draw at publish), and the unique index now keeps one draw per invoice and occasion: a retried or
-- concurrent publish, or the same deposit's payment seen twice, never draws twice.
ALTER TABLE invoice_settles ADD COLUMN deposit_id text REFERENCES invoices(id) ON DELETE CASCADE;
ALTER TABLE invoice_settles ADD CONSTRAINT invoice_settles_deposit_id_kind CHECK (deposit_id IS NULL OR kind = 'deposit');
DROP INDEX invoice_settles_deposit_uq;
CREATE UNIQUE INDEX invoice_settles_deposit_uq ON invoice_settles (org_id, invoice_id, (coalesce(deposit_id, ''))) WHERE kind = 'deposit';
