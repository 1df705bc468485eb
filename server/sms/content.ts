/** The server's side of common/sms.ts: content that does not comply is a 400 naming the field and the rule. */
import { CODES } from '../../common/errors.js';
import { checkSmsContent, showCharacter, type SmsEncoding, type SmsType } from '../../common/sms.js';
import { ApiError } from '../http/api-error.js';

/**
 * The content to store (binary normalised to upper-case hex) and its encoding; otherwise an ApiError whose message
 * is SPEC.md's "content does not comply" with the rule broken (empty, too long, not hex, characters the SMS alphabet
 * cannot carry). field names the request field in the error (default "content").
 */
export function assertSmsContent(content: string, type: SmsType, field = 'content'): { content: string; encoding: SmsEncoding } {
  const c = checkSmsContent(content, type);
  if (c.ok) return { content: c.content, encoding: c.encoding };
  const rule = c.rule === 'tooLong' && type === 'binary' ? 'tooLongBinary' : c.rule;
  const params = { field, limit: c.limit, length: c.length, characters: (c.offenders ?? []).slice(0, 5).map(showCharacter).join(' ') };
  return fail(rule, params);
}

function fail(rule: string, params: Record<string, unknown>): never {
  throw new ApiError(400, CODES.validation, params, `errors.sms.content.${rule}`, { field: params.field, rule: `smsContent.${rule}` });
}
