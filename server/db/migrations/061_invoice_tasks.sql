-- Invoices in the task center (docs/decisions.md "Invoices on demand and large details in the task
-- center"): `invoice_run` makes an organisation's invoice of a closed month on request, through the same run and
-- unique key as the monthly job. (`invoice_export`, a large invoice's details file, was allowed already.)
ALTER TABLE tasks DROP CONSTRAINT tasks_kind_check;
ALTER TABLE tasks ADD CONSTRAINT tasks_kind_check CHECK (kind IN ('sim_export', 'sim_activate', 'sim_suspend', 'sim_resume', 'sim_reset', 'sim_transfer',
  'sim_info_upload', 'cdr_export', 'sms_export', 'sms_report', 'bundle_export', 'report', 'invoice_export', 'autoflow_sims_export',
  'cycle_export', 'device_bundle_export', 'coverage_export', 'invoice_run'));
