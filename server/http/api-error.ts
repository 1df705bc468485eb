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
export const notFound = () => new ApiError(404, CODES.notFound);
