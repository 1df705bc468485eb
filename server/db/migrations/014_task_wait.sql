-- A task waiting on something outside (an activation's answers from the network) is not held by a worker while it
-- waits: its claim is released and it is claimed again from run_after on (server/job/worker.ts, JobResult.laterMs).
ALTER TABLE tasks ADD COLUMN run_after timestamptz;
