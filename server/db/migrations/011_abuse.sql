-- Request counters of the rate limits (server/http/rate-limit.ts), shared by every instance: one row per caller and
-- group of calls, a fixed window that starts again once reset_at has passed. Rows of past windows are pruned.
CREATE TABLE rate_limits (
  key       text PRIMARY KEY,
  hits      integer NOT NULL,
  reset_at  timestamptz NOT NULL
);
CREATE INDEX rate_limits_reset_idx ON rate_limits (reset_at);

-- Failed sign-ins are throttled per account and client address together (server/identity/sign-in-throttle.ts).
CREATE INDEX sign_in_failures_pair_idx ON sign_in_failures (email, ip, at);
