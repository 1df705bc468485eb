/** Every route of the API, service by service. The permission matrix test walks this list. */
import type { RouteDef } from './http/route.js';
import { identityRoutes } from './identity/routes.js';
import { inviteRoutes } from './identity/invite-routes.js';
import { orgRoutes } from './org/org-routes.js';
import { auditRoutes } from './audit/audit-routes.js';
import { accountRoutes } from './org/account-routes.js';
import { brandRoutes } from './brand/brand-routes.js';
import { telemetryRoutes } from './public/telemetry-routes.js';
import { sseRoutes } from './live/sse-routes.js';
import { taskRoutes } from './job/task-routes.js';
import { simRoutes } from './sim/sim-routes.js';
import { cdrRoutes } from './cdr/cdr-routes.js';
import { catalogRoute } from './schema/schema-routes.js';
import { poolEngineRoutes } from './pool/pool-engine-routes.js';
import { poolRoutes } from './pool/pool-routes.js';
import { billRoutes } from './billing/bill-routes.js';
import { invoiceTaskRoutes } from './billing/invoice-task-routes.js';
import { billTypeRoutes } from './billing/bill-types-routes.js';
import { reportRoutes } from './report/report-routes.js';
import { exportRoute } from './job/export-jobs.js';
import { simActionRoutes } from './sim/sim-action-routes.js';
import { simInfoRoutes } from './sim/sim-info-routes.js';
import { simDetailRoutes } from './sim/sim-detail-routes.js';
import { simDiagnoseRoutes } from './sim/sim-diagnose-routes.js';
import { simBundleRoutes } from './sim/sim-bundle-routes.js';
import { deviceRoutes } from './sim/device-routes.js';
import { deviceUsageRoutes } from './sim/device-usage-routes.js';
import { simServiceRoutes } from './sim/sim-service-routes.js';
import { simUploadRoutes } from './sim/sim-upload-routes.js';
import { dashboardRoutes } from './dashboard/dashboard-routes.js';
import { heatmapRoutes } from './dashboard/heatmap-routes.js';
import { notificationRoutes } from './developer/notification-routes.js';
import { apiKeyRoutes } from './developer/api-key-routes.js';
import { publicRoutes } from './developer/public-api.js';
import { openApiRoutes } from './developer/openapi.js';
import { referenceRoutes } from './developer/reference-page.js';
import { smsRoutes } from './sms/sms-routes.js';
import { scheduleRoutes } from './sms-schedules/schedule-routes.js';
import { taskReportRoutes } from './sms-schedules/task-reports.js';
import { ruleRoutes } from './autoflow/rule-routes.js';
import { uploadRoutes as autoflowUploadRoutes } from './autoflow/upload-routes.js';
import { cdrDetailRoutes } from './cdr/cdr-detail-routes.js';
import { taskLogRoutes } from './job/task-log.js';
import { subscriptionRoutes } from './developer/notification-group-routes.js';
import { enterpriseRoutes } from './org/enterprise-routes.js';

const CONSOLE_ROUTES: RouteDef[] = [
  ...identityRoutes,
  ...inviteRoutes,
  ...orgRoutes,
  ...accountRoutes,
  ...auditRoutes,
  ...brandRoutes,
  ...telemetryRoutes,
  ...sseRoutes,
  ...taskRoutes,
  ...simRoutes,
  ...cdrRoutes,
  ...poolRoutes,
  ...poolEngineRoutes,
  ...billRoutes,
  ...invoiceTaskRoutes,
  ...billTypeRoutes,
  ...reportRoutes,
  ...simActionRoutes,
  ...simInfoRoutes,
  ...simUploadRoutes,
  ...dashboardRoutes,
  catalogRoute,
  // The tabs of a SIM's page.
  ...simDetailRoutes,
  ...simDiagnoseRoutes,
  // What a SIM's bundles do to it now: its data policy and why, its coverage.
  ...simBundleRoutes,
  // The SIM's service, periods, card and bundle queue; a bundle's cycle.
  ...simServiceRoutes,
  // The organisation's tags, and which organisation holds a SIM.
  ...deviceRoutes,
  // Usage per cycle and per bundle, coverage, with their exports through the task center.
  ...deviceUsageRoutes,
  ...heatmapRoutes,
  // Developer: webhook settings and the notification log, API keys.
  ...notificationRoutes,
  ...apiKeyRoutes,
  // SMS: All SMS, instant send, replies, the quota balance (server/sms).
  ...smsRoutes,
  // Scheduled SMS (customer API) and its reports through the task center.
  ...scheduleRoutes,
  ...taskReportRoutes,
  // Autoflow: rules and their change records.
  ...ruleRoutes,
  ...autoflowUploadRoutes,
  // Exports through the task center (SPEC.md section 7's export calls).
  exportRoute('sim_export', 'main', '/sim/list/export/task'),
  exportRoute('bundle_export', 'main', '/sim/service/list/export'),
  exportRoute('cdr_export', 'cdr', '/export/distributor/:id/cdrs'),
  // CDRs: one CDR, countries and areas, one SIM's summary, and SPEC.md's two-segment CDR exports (organisation,
  // format): the ticked records, or every record of the filters (docs/decisions.md "The CDR calls' path segments").
  ...cdrDetailRoutes,
  exportRoute('cdr_export', 'cdr', '/export/distributor/:org/:format/cdrs', 'selected'),
  exportRoute('cdr_export', 'cdr', '/export/all/distributor/:org/:format/cdrs', 'all'),
  // Jobs: a task's provider log; notification subscription groups (e-mail and SMS).
  ...taskLogRoutes,
  ...subscriptionRoutes,
  // An organisation's enterprise and settlement details.
  ...enterpriseRoutes,
];

/** The console's routes and the public API's, which publish some of them under /api/public/v1 (server/developer/public-api.ts). */
export const ALL_ROUTES: RouteDef[] = [...CONSOLE_ROUTES, ...publicRoutes(CONSOLE_ROUTES), ...openApiRoutes(() => ALL_ROUTES), ...referenceRoutes];
