/**
 * SPEC.md section 7 calls that are not routes of the server yet, each with why (docs/decisions.md "SPEC.md section
 * 7's calls and the routes"). Keys: "METHOD path", parameters written :p. tests/unit/spec-calls.test.ts fails when a
 * call is neither a route nor listed here; `npx tsx scripts/spec-calls.ts` also names entries a route now answers.
 */
export const SPEC_CALL_EXCEPTIONS: Record<string, string> = {
  // Listed among the shared-pool calls as "/{id}/pools" without saying whose id: every pool list the console needs
  // (an organisation's pools, a rule's pool choice) is answered by /shared_pool/cube/dashboard/pools and
  // /auto_flow/cube/pools for the organisation the caller works in (docs/decisions.md).
  'GET /:p/pools': 'SPEC names it without saying whose id it takes; the organisation’s pools are answered by /shared_pool/cube/dashboard/pools.',
};
