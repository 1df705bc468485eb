/**
 * SPEC.md section 9: an invoice is due 10 days after it is issued or at the end of that month, whichever is earlier.
 * Dates are calendar days in UTC (the billing day cut-off); the result is the due day as YYYY-MM-DD.
 */
const DAY = 86_400_000;

export function dueDateOf(issued: Date): string {
  const day = Date.UTC(issued.getUTCFullYear(), issued.getUTCMonth(), issued.getUTCDate());
  const monthEnd = Date.UTC(issued.getUTCFullYear(), issued.getUTCMonth() + 1, 0);
  return new Date(Math.min(day + 10 * DAY, monthEnd)).toISOString().slice(0, 10);
}
