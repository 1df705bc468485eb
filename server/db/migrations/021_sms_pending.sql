-- SMS left pending by a process that stopped between storing them and handing them to the network (server/sms/send.ts)
-- are found by the hourly sweep (server/sms/pending-sweep.ts) without reading the whole table: pending ones are few.
CREATE INDEX sms_records_pending_idx ON sms_records (created_at) WHERE status = 'pending';
