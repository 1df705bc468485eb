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

/**
 * Money crosses the server as integer minor units (cents; common/currencies.ts offers only currencies with a hundredth
 * as their minor unit). `major` writes an amount of minor units as the two-decimal text a numeric column and an
 * event take ("12.34", "-0.50"); `minorOf` reads such text (or a numeric column's text) back, exactly.
 */
export const major = (minor: number): string => (minor / 100).toFixed(2);
export const minorOf = (text: string): number => Math.round(Number(text) * 100);

/** An invoice a deposit's payment drew on (the settle answer's depositDraws): how much, and whether that paid it. */
export interface DepositDraw {
  invoiceId: string;
  billId: string;
  amount: number;
  currency: string;
  paid: boolean;
}
