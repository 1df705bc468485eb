/**
 * SPEC.md section 7 calls that are not routes of the server yet, each with why (docs/decisions.md "SPEC.md section
 * 7's calls and the routes"). Keys: "METHOD path", parameters written :p. tests/unit/spec-calls.test.ts fails when a
 * call is neither a route nor listed here; `npx tsx scripts/spec-calls.ts` also names entries a route now answers.
 */
export const SPEC_CALL_EXCEPTIONS: Record<string, string> = {
  // None since GET /shared_pool/cube/dashboard/{id}/pools answers an organisation's pools (docs/decisions.md).
};
