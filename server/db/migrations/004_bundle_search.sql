-- The bundle order list searches by the whole ICCID or its trailing digits, like the SIM list: a reversed-value index.
CREATE INDEX bundle_orders_org_iccid_rev_idx ON bundle_orders (org_id, reverse(iccid) text_pattern_ops);
