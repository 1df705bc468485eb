/**
 * Result codes carried in the envelope's status.code. SPEC.md section 8 fixes 0131-0135 and 0502;
 * the rest are ours. Each code has a message key under "errors." in common/locales.
 */
export const CODES = {
  ok: 'CB-00-0000',
  badRequest: 'CB-00-0400',
  validation: 'CB-00-0422',
  tokenUnauthorised: 'CB-00-0401',
  autoflowWriteMissing: 'CB-00-0402',
  unauthenticated: 'CB-00-0410',
  permissionDenied: 'CB-00-0403',
  notFound: 'CB-00-0404',
  conflict: 'CB-00-0409',
  /** A record other rows still refer to (a foreign key): not deleted. */
  recordInUse: 'CB-00-0419',
  tooManyRequests: 'CB-00-0429',
  internal: 'CB-00-0500',
  /** A part the call needs (Redis, for sign-in) does not answer for a moment. */
  serviceUnavailable: 'CB-00-0503',
  sessionExpired: '0502',
  orgFirstLevelPermission: '0131',
  orgCannotDelete: '0132',
  orgSettlementName: '0133',
  orgInsufficientPermission: '0134',
  orgNameExists: '0135',
  wrongCredentials: 'CB-01-0001',
  wrongVerificationCode: 'CB-01-0002',
  termsNotAgreed: 'CB-01-0003',
  accountLocked: 'CB-01-0004',
  accountDisabled: 'CB-01-0005',
  oldPasswordWrong: 'CB-01-0006',
  resetCodeInvalid: 'CB-01-0007',
  accountAlreadyRegistered: 'CB-01-0010',
  alreadyMember: 'CB-01-0011',
  maxAccounts: 'CB-01-0012',
  maxOrganisations: 'CB-01-0013',
  superadminCannotBeRemoved: 'CB-01-0014',
  invitationNotFound: 'CB-01-0015',
  refreshTokenError: 'CB-01-0016',
  autoflowNameExists: 'CB-07-0001',
  maxAutoflows: 'CB-07-0002',
} as const;
export type Code = (typeof CODES)[keyof typeof CODES];

/** The message key of a code, looked up in common/locales under errors.<key>. */
export function messageKeyOf(code: string): string {
  const entry = Object.entries(CODES).find(([, c]) => c === code);
  return `errors.${entry ? entry[0] : 'internal'}`;
}
