-- The heatmap (GET /dashboard/heatmap) counts an organisation's located SIMs into grid cells: this index holds
-- exactly the columns it reads, so the count is an index-only scan of the located SIMs, not a read of every SIM row.
CREATE INDEX sims_org_location_idx ON sims (org_id, lat, lon, id) WHERE lat IS NOT NULL;
