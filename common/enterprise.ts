/** An organisation's enterprise and settlement details (GET /enterprises/selectByOrgCode, PUT /enterprises). */

/** Invoice types of SPEC.md section 3, as an enterprise's default. */
export const INVOICE_TYPES = ['post_payment', 'advance', 'credit', 'predeposit'] as const;
/** Credit limit in minor units (cents): up to one billion in major units. */
export const CREDIT_MAX_MINOR = 100_000_000_000;
