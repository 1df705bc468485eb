/**
 * Namespaces of common/locales that only the server words (mails, PDFs, the diagnose report, upload result files, the
 * event catalogue the developer page gets already worded from /developer/log/notification/type, the invoice details
 * file's own column words): the console's language chunks leave them out (vite.config.ts, scripts/console-locales.ts),
 * so the sign-in page, held to a download budget (tests/budget/), does not download them. tests/unit/i18n.test.ts
 * checks that no console file uses one.
 */
export const SERVER_ONLY_NAMESPACES = [
  'mail',
  'pdf',
  'diagnose',
  'upload',
  'areas',
  'taskLog',
  'usageExport',
  'eventTypes',
  'eventSubtypes',
  'invoiceDetails',
] as const;
