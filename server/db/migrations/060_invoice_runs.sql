-- The monthly invoice job writes an invoice's lines in short transactions (docs/decisions.md "Invoice lines
-- in batches"). One transaction per organisation took 38 s at 1,000,000 SIMs on PostgreSQL and held back
-- the event-log consumers of the server, whose horizon is the oldest running transaction.
--
-- A run claims the invoice's key (organisation, month, type, version) here, writes its lines in batches of SIMs in
-- id order, recording the last SIM written in the same transaction as the batch, and inserts the invoice itself only
-- in the last, short transaction with its pools, totals and event. So no reader, route or publish ever sees a
-- half-made invoice: until then there is no invoice row, only lines under an id no invoice has yet.
-- A run whose instance died is taken over when its heartbeat is older than the job's lease and resumes after its last
-- SIM; the owner check in each batch's update keeps two instances from writing the same run.
CREATE TABLE invoice_runs (
  org_id        text NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  billing_cycle text NOT NULL,
  type          text NOT NULL,
  version       int NOT NULL,
  invoice_id    text NOT NULL UNIQUE,
  owner         text NOT NULL,
  last_sim_id   text,
  lines         bigint NOT NULL DEFAULT 0,
  started_at    timestamptz NOT NULL,
  beat_at       timestamptz NOT NULL,
  PRIMARY KEY (org_id, billing_cycle, type, version)
);

-- The lines of a run exist before their invoice: the reference is checked by the run's last transaction, which inserts
-- the invoice, and the job's lines are only ever read through their invoice. Deleting an invoice still deletes its
-- lines (the trigger below), as the dropped ON DELETE CASCADE did.
ALTER TABLE invoice_lines DROP CONSTRAINT IF EXISTS invoice_lines_invoice_id_fkey;
CREATE FUNCTION invoice_lines_cascade() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM invoice_lines WHERE org_id = OLD.org_id AND invoice_id = OLD.id;
  RETURN OLD;
END $$;
CREATE TRIGGER invoices_delete_lines AFTER DELETE ON invoices FOR EACH ROW EXECUTE FUNCTION invoice_lines_cascade();
CREATE INDEX invoice_lines_org_invoice_sim_idx ON invoice_lines (org_id, invoice_id, sim_id);

-- A pool's overage is charged on the invoice as a pool line (docs/decisions.md "Pool overage charged as a pool line"):
-- no SIM, the pool it charges, its usage and the overage beyond the pool's size.
ALTER TABLE invoice_lines ADD COLUMN pool_id text;
