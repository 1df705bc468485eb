-- Snapshots of the dashboard's heavy figures (the top 10 and the heatmap) for large organisations
-- (server/main/dashboard-snapshots.ts). Above DASHBOARD_LIVE_SIMS SIMs these figures aggregate every SIM's rollup
-- rows in the period (seconds at a million SIMs), so a call reads the stored answer with the moment it was computed
-- (as_of, on the dashboard's clock) and one instance recomputes it in the background once it is older than
-- DASHBOARD_SNAPSHOT_SECONDS. refreshing_until is that instance's lease (database time): another instance takes over
-- a refresh whose instance stopped. shape is the version of body's layout the server that wrote it used: a server
-- of another version treats the row as missing, so a deploy never serves a body its console cannot read.
CREATE TABLE dashboard_snapshots (
  org_id            text NOT NULL REFERENCES organisations(id) ON DELETE CASCADE,
  kind              text NOT NULL CHECK (kind IN ('rank', 'heatmap')),
  view              text NOT NULL CHECK (view IN ('24h', 'week', '6months')),
  as_of             timestamptz NOT NULL,
  body              jsonb NOT NULL,
  shape             int NOT NULL,
  refreshing_until  timestamptz,
  PRIMARY KEY (org_id, kind, view)
);
