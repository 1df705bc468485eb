-- The other invoice types of SPEC.md section 3 made for real (docs/decisions.md "Advance, credit and
-- predeposit invoices, and the settlement details").
--
-- advance:    made by the monthly job from the prepaid bundle orders placed in the closed month, at their price
--             (the post-payment invoice keeps pricing them 0, so nothing is charged twice).
-- credit:     a credit note an administrator issues against a published or paid invoice; its amounts are negative,
--             and what all notes against one invoice credit never exceeds that invoice's total.
-- predeposit: a deposit an administrator requests; once paid it counts into the organisation's deposit.
-- Each keeps the unique key (organisation, month, type, version): the n-th credit note or deposit of a month is its
-- version n, under its own bill id.

-- The invoice a credit note credits: only a credit note names one, and a credit note's amounts are never positive.
ALTER TABLE invoices
  ADD COLUMN credit_for text REFERENCES invoices(id),
  ADD CONSTRAINT invoices_credit_for_ck CHECK (credit_for IS NULL OR (type = 'credit' AND amount_incl_tax <= 0 AND amount_excl_tax <= 0 AND tax_amount <= 0));
CREATE INDEX invoices_org_credit_for_idx ON invoices (org_id, credit_for) WHERE credit_for IS NOT NULL;

-- admin: issued by an administrator (a credit note, a deposit request), beside the job's and the seed's.
ALTER TABLE invoices DROP CONSTRAINT IF EXISTS invoices_origin_check;
ALTER TABLE invoices ADD CONSTRAINT invoices_origin_check CHECK (origin IN ('seed', 'job', 'admin'));
