-- The network's look-ups across organisations (server/network): each step of the simulator, like a real network
-- adapter's housekeeping, asks for a bounded number of due rows, so these partial indexes hold only the rows that
-- can be due. They are not led by org_id, like the job-claim index: the network serves every organisation.

-- Bundles to expire: pending or in use, with an expected expiry.
CREATE INDEX bundle_orders_due_expiry_idx ON bundle_orders (expected_expire_at, id) WHERE status IN ('PENDING', 'IN_USE') AND expected_expire_at IS NOT NULL;
-- SIMs whose service ends (lifecycle expire applies to active and paused SIMs).
CREATE INDEX sims_due_expiry_idx ON sims (expires_at, id) WHERE status IN ('active', 'paused');
-- MT SMS handed to the network and not yet delivered.
CREATE INDEX sms_records_mt_sent_idx ON sms_records (sent_at, id) WHERE direction = 'MT' AND status = 'sent';
-- The SIMs an activation task holds (the job asks for them by task).
CREATE INDEX sims_operation_task_idx ON sims (org_id, operation_task_id) WHERE operation IS NOT NULL;
