-- The rate limits' counters are written by every API call (server/http/rate-limit.ts). They need no durability: after
-- a crash the windows start again empty, which is what an UNLOGGED table does. Its writes leave no WAL, so a call's
-- count does not wait for a WAL flush (docs/decisions.md, "Throughput under load").
ALTER TABLE rate_limits SET UNLOGGED;
