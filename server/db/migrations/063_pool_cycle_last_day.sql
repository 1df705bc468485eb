-- A pool's cycle runs [cycle_start, cycle_end): cycle_end is the first day of the next cycle, which the engine's
-- comparisons want. People read a cycle by its last day ("Nov 1, 2026 to Nov 30, 2026", as invoices' cycle_end is),
-- so the pool's page and dashboard show cycle_last_day, derived here once.
ALTER TABLE shared_pools ADD COLUMN cycle_last_day date GENERATED ALWAYS AS (cycle_end - 1) STORED;
