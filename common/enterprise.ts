/** An organisation's enterprise and settlement details (GET /enterprises/selectByOrgCode, PUT /enterprises). */

/** Invoice types of SPEC.md section 3, as an enterprise's default. */
export const INVOICE_TYPES = ['post_payment', 'advance', 'credit', 'predeposit'] as const;
/** Credit limit in minor units (cents): up to one billion in major units. */
export const CREDIT_MAX_MINOR = 100_000_000_000;

/** ISO 13616: the IBAN's check digits (mod 97 of the rearranged number is 1). */
export function ibanOk(iban: string): boolean {
  const moved = iban.slice(4) + iban.slice(0, 4);
  let rest = 0;
  for (const ch of moved) {
    const v = ch >= 'A' ? String(ch.charCodeAt(0) - 55) : ch;
    for (const d of v) rest = (rest * 10 + Number(d)) % 97;
  }
  return rest === 1;
}

/** An invoice's settlement details, as the settlement routes and the invoice page read and write them. */
export interface Settlement {
  settlementCustomer: string | null;
  bankName: string | null;
  iban: string | null;
  bic: string | null;
  creditLimitMinor: number | null;
  currency: string;
  /** The tax rate in basis points (19 % is 1900). */
  taxRateBp: number;
}
