/**
 * A cycle's used, limit and left amounts in words that agree with each other. Rounded to one decimal, 1.05 GB (a 1 GB
 * bundle and a 50 MB top-up) and 1.0001 GB left after 49.9 MB would both read "1 GB", as if nothing had been used:
 * the amounts take as many decimals (up to three) as it takes for what is left to differ from the limit whenever
 * something worth a thousandth of it was used (a few kB of a gigabyte leave it, to the precision shown, as it was).
 */
import { formatKb } from '../../resources/cell';

export interface CycleAmounts {
  used: string;
  limit: string | null;
  left: string | null;
  over: string | null;
}

export function cycleAmounts(c: { usageKb: number; limitKb: number | null; remainingKb: number | null; overageKb: number | null }, lang: string): CycleAmounts {
  let digits = 1;
  if (c.limitKb !== null && c.remainingKb !== null && c.remainingKb !== c.limitKb) {
    while (digits < 3 && formatKb(c.remainingKb, lang, digits) === formatKb(c.limitKb, lang, digits)) digits++;
  }
  const f = (v: number | null) => (v === null ? null : formatKb(v, lang, digits));
  return { used: formatKb(c.usageKb, lang, digits), limit: f(c.limitKb), left: f(c.remainingKb), over: f(c.overageKb) };
}
