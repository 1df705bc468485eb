-- Live events for the console (SSE at /api/identity/sse/connect). Every instance polls this table and pushes new rows
-- to the connections it holds, so an event written by one instance reaches a browser connected to another.
-- Rows are written in the transaction of the change they announce: an event exists only if its change committed.
CREATE TABLE live_events (
  id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  org_id      text,
  account_id  text,
  type        text NOT NULL CHECK (type IN ('permissions', 'task')),
  data        jsonb NOT NULL DEFAULT '{}'::jsonb,
  created_at  timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT live_events_target_ck CHECK (org_id IS NOT NULL OR account_id IS NOT NULL)
);
CREATE INDEX live_events_created_idx ON live_events (created_at);

-- Whatever changes a membership (role, status, removal, a new organisation) tells that account to refresh its rules.
CREATE OR REPLACE FUNCTION memberships_announce() RETURNS trigger AS $$
DECLARE
  r memberships;
BEGIN
  IF TG_OP = 'DELETE' THEN r := OLD; ELSE r := NEW; END IF;
  IF TG_OP = 'UPDATE' AND NEW.role = OLD.role AND NEW.status = OLD.status THEN RETURN NULL; END IF;
  INSERT INTO live_events (org_id, account_id, type, data)
    VALUES (r.org_id, r.account_id, 'permissions', jsonb_build_object('orgId', r.org_id, 'change', lower(TG_OP)));
  RETURN NULL;
END $$ LANGUAGE plpgsql;

CREATE TRIGGER memberships_announce AFTER INSERT OR UPDATE OR DELETE ON memberships
  FOR EACH ROW EXECUTE FUNCTION memberships_announce();
