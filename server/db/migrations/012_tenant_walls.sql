-- Tenant walls: an organisation's name is unique inside one customer's tree (a first-level organisation
-- and its sub-organisations), not across customers, so that creating or renaming one tells nothing about another
-- customer's names. Each organisation records the first-level organisation of its tree; the unique index on
-- (root_id, lower(name)) is what makes two creations at once in one tree end with one winner (docs/decisions.md).

ALTER TABLE organisations ADD COLUMN root_id text;

WITH RECURSIVE tree AS (
  SELECT id, id AS root_id FROM organisations WHERE parent_id IS NULL
  UNION ALL
  SELECT o.id, tree.root_id FROM organisations o JOIN tree ON o.parent_id = tree.id
)
UPDATE organisations o SET root_id = tree.root_id FROM tree WHERE tree.id = o.id;

-- Filled on insert from the parent (or the row itself at the first level); no code path moves an organisation.
CREATE FUNCTION organisations_root() RETURNS trigger AS $$
BEGIN
  IF NEW.parent_id IS NULL THEN
    NEW.root_id := NEW.id;
  ELSE
    SELECT root_id INTO NEW.root_id FROM organisations WHERE id = NEW.parent_id;
  END IF;
  RETURN NEW;
END;
$$ LANGUAGE plpgsql;
CREATE TRIGGER organisations_root BEFORE INSERT ON organisations
  FOR EACH ROW EXECUTE FUNCTION organisations_root();

ALTER TABLE organisations ALTER COLUMN root_id SET NOT NULL;

DROP INDEX organisations_name_uq;
CREATE UNIQUE INDEX organisations_root_name_uq ON organisations (root_id, lower(name));
