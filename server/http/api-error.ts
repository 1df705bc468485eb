/** The one error type routes throw; the error handler turns it into the envelope. */
import { CODES, messageKeyOf } from '../../common/errors.js';

export class ApiError extends Error {
  constructor(
    readonly statusCode: number,
    readonly code: string,
    readonly params: Record<string, unknown> = {},
    readonly messageKey: string = messageKeyOf(code),
    readonly data: unknown = null,
  ) {
    super(messageKey);
  }
}

/** A 400 naming the field and the rule (rule is a key under "rules."). */
export const invalid = (field: string, rule: string, params: Record<string, unknown> = {}) =>
  new ApiError(400, CODES.validation, { field, ruleKey: rule, ...params });
export const denied = () => new ApiError(403, CODES.permissionDenied);
/** What a missing record is called in a 404 ("SIM 8949… does not exist"): a key under "entities." in common/locales. */
export type Entity =
  | 'sim'
  | 'account'
  | 'organisation'
  | 'task'
  | 'report'
  | 'invoice'
  | 'pool'
  | 'brand'
  | 'invitation'
  | 'record'
  | 'membership'
  | 'notificationKey'
  | 'notificationLog'
  | 'apiKey'
  | 'sms'
  | 'scheduledSms'
  | 'autoflowRule'
  | 'autoflowRun'
  | 'subscriptionGroup';
/** A 404 naming the record that does not exist, so a wrong id reads differently from a wrong URL. */
export const notFound = (entity: Entity, id: string) => new ApiError(404, CODES.notFound, { entityKey: entity, id }, 'errors.recordMissing', { entity, id });
