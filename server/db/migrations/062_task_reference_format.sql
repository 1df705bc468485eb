-- One reference format for every task (server/job/task-reference.ts): PFX-YYYYMMDD-XXXXXX. Older demo tasks carried
-- T + day + counter (T202611271001) and report tasks the report's month (REP-202610-AB12CD); they keep their day and
-- their number or letters, so a reference someone noted is still recognisable.
UPDATE tasks SET reference_id =
  (CASE
     WHEN kind IN ('sim_export', 'cdr_export', 'sms_export', 'bundle_export', 'invoice_export', 'autoflow_sims_export', 'cycle_export',
                   'device_bundle_export', 'coverage_export') THEN 'EXP'
     WHEN kind = 'sim_activate' THEN 'ACT'
     WHEN kind = 'sim_suspend' THEN 'SUS'
     WHEN kind = 'sim_resume' THEN 'RES'
     WHEN kind = 'sim_reset' THEN 'RST'
     WHEN kind = 'sim_transfer' THEN 'TRF'
     WHEN kind = 'sim_info_upload' THEN 'UPL'
     WHEN kind = 'sms_report' THEN 'SMS'
     WHEN kind = 'report' THEN 'REP'
     WHEN kind = 'invoice_run' THEN 'RUN'
     ELSE 'TSK'
   END) || '-' || substr(reference_id, 2, 8) || '-' || lpad(right(substr(reference_id, 10), 6), 6, '0')
  WHERE reference_id ~ '^T[0-9]{9,}$';
UPDATE tasks SET reference_id = 'REP-' || to_char(created_at AT TIME ZONE 'UTC', 'YYYYMMDD') || '-' || substr(reference_id, 12)
  WHERE kind = 'report' AND reference_id ~ '^REP-[0-9]{6}-[0-9A-Z]{6}$';
-- An activation's remark names its SIMs; a state written there ("Activation in progress") outlived the task's end.
UPDATE tasks SET remark = payload->'iccids'->>0
  WHERE kind = 'sim_activate' AND remark = 'Activation in progress' AND jsonb_typeof(payload->'iccids') = 'array';
