-- The brand an unknown host gets (127.0.0.1, a new domain before its brand row exists): the whole default brand,
-- support button and contact included, instead of nothing. At most one brand is the default.
ALTER TABLE brands ADD COLUMN is_default boolean NOT NULL DEFAULT false;
CREATE UNIQUE INDEX brands_one_default_idx ON brands (is_default) WHERE is_default;
UPDATE brands SET is_default = true WHERE id = 'brand-default';
