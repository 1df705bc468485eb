-- SMS: the organisation's SMS quota as a balance consumed by sending, binary content as hex, and the
-- All SMS list's searches.

-- The quota (organisations.sms_quota, set by the parent organisation for its sub-organisations) is an allowance;
-- sms_used counts the SMS handed to the network against it. Remaining = sms_quota - sms_used (never below zero when
-- shown: a quota lowered under what was used leaves nothing to send). Sending takes units under the organisation's
-- row lock (server/sms/quota.ts), so two senders cannot overdraw it.
ALTER TABLE organisations ADD COLUMN sms_used int NOT NULL DEFAULT 0 CHECK (sms_used >= 0);

-- Content: text up to 140 characters; binary as hex digits in pairs, up to 140 octets (common/sms.ts). The CHECKs
-- of 002_fleet.sql allowed 140 characters of either, which a 140-octet binary (280 hex digits) exceeds.
ALTER TABLE sms_records DROP CONSTRAINT IF EXISTS sms_records_content_check;
ALTER TABLE sms_records ADD CONSTRAINT sms_records_content_ck CHECK (
  (sms_type = 'text' AND char_length(content) <= 140) OR (sms_type = 'binary' AND content ~ '^([0-9A-F]{2}){0,140}$'));
ALTER TABLE sms_schedules DROP CONSTRAINT IF EXISTS sms_schedules_content_check;
ALTER TABLE sms_schedules ADD CONSTRAINT sms_schedules_content_ck CHECK (
  (sms_type = 'text' AND char_length(content) BETWEEN 1 AND 140) OR (sms_type = 'binary' AND content ~ '^([0-9A-F]{2}){1,140}$'));

-- All SMS: a search by the whole ICCID or MSISDN or its trailing digits (SPEC.md section 5) is a prefix of the
-- reversed value, answered by a btree range scan; the organisation leads.
CREATE INDEX sms_records_org_iccid_rev_idx ON sms_records (org_id, reverse(iccid) text_pattern_ops);
CREATE INDEX sms_records_org_msisdn_rev_idx ON sms_records (org_id, reverse(msisdn) text_pattern_ops) WHERE msisdn IS NOT NULL;
