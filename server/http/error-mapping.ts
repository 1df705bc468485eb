/** Error mapping: which message and status a body that cannot be read, or a failed ajv check, is answered with. */
import type { FastifyError } from 'fastify';
import { BodyError } from './input-guard.js';

/** A body that could not be read, or is missing where the route needs one: which message says so, and the status. */
export function bodyProblemOf(fe: FastifyError, body: unknown): { key: string; status: number } | null {
  if (fe instanceof BodyError) return { key: fe.key, status: 400 };
  switch (fe.code) {
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return { key: 'bodyRequired', status: 400 };
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return { key: 'bodyNotJson', status: 400 };
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return { key: 'bodyMediaType', status: 415 };
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return { key: 'bodyTooLarge', status: 413 };
  }
  // A route that reads a JSON object got none: nothing at all, or text sent as text/plain.
  const first = fe.validation?.[0] as { instancePath?: string; keyword?: string } | undefined;
  if (first && fe.validationContext === 'body' && first.instancePath === '' && first.keyword === 'type') {
    if (body === undefined || body === null) return { key: 'bodyRequired', status: 400 };
    if (typeof body === 'string') return { key: 'bodyMediaType', status: 415 };
  }
  return null;
}

/** Turn an ajv error into the field it concerns and the rule it broke. */
export function describeAjvError(
  v: { keyword: string; instancePath: string; params: Record<string, unknown>; parentSchema?: Record<string, unknown> },
  where?: string,
): { field: string; rule: string; params: Record<string, unknown> } {
  const pathField = v.instancePath.split('/').filter(Boolean).join('.');
  // A property that names its own rule (x-rule: "password") is refused with that rule's message, whichever check failed.
  const own = v.parentSchema?.['x-rule'];
  if (typeof own === 'string' && v.keyword !== 'type' && v.keyword !== 'required') return { field: pathField || where || 'body', rule: own, params: {} };
  switch (v.keyword) {
    case 'required':
      return { field: String(v.params.missingProperty), rule: 'required', params: {} };
    case 'additionalProperties':
      return { field: String(v.params.additionalProperty), rule: 'additionalProperties', params: {} };
    case 'minLength':
    case 'maxLength':
    case 'minimum':
    case 'maximum':
    case 'minItems':
    case 'maxItems':
      return { field: pathField || where || 'body', rule: v.keyword, params: { limit: v.params.limit } };
    case 'enum':
      return { field: pathField || where || 'body', rule: 'enum', params: { values: (v.params.allowedValues as unknown[]).join(', ') } };
    case 'format':
      return { field: pathField || where || 'body', rule: v.params.format === 'email' ? 'email' : 'format', params: { format: v.params.format } };
    case 'type':
      return { field: pathField || where || 'body', rule: 'type', params: { type: v.params.type } };
    default:
      return { field: pathField || where || 'body', rule: v.keyword in RULES ? v.keyword : 'pattern', params: v.params };
  }
}
const RULES = { pattern: 1, const: 1, uniqueItems: 1, minProperties: 1 };
