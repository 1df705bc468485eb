/**
 * RJSF's ajv validator compiles each schema into a function with `new Function`, which the console's Content
 * Security Policy forbids (script-src 'self', no 'unsafe-eval'). This validator keeps RJSF's error handling but
 * checks data with @cfworker/json-schema, which interprets the schema instead of compiling it. The server keeps
 * ajv; both read the same schema.
 */
import { Validator, type OutputUnit } from '@cfworker/json-schema';
import { customizeValidator } from '@rjsf/validator-ajv8';
import type { RJSFSchema } from '@rjsf/utils';

/** Keywords whose error only says that something below failed; the failure itself is reported on its own. */
const WRAPPERS = new Set([
  'properties',
  'items',
  'allOf',
  'anyOf',
  'oneOf',
  'additionalItems',
  'prefixItems',
  '$ref',
  'not',
  'if',
  'then',
  'else',
  'dependentSchemas',
  'unevaluatedProperties',
  'unevaluatedItems',
  'patternProperties',
]);

const at = (schema: unknown, pointer: string): unknown =>
  pointer
    .replace(/^#\/?/, '')
    .split('/')
    .filter(Boolean)
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce<unknown>((node, key) => (node as Record<string, unknown> | undefined)?.[key], schema);

/** One interpreter error in the shape RJSF expects from ajv. */
function asAjvError(schema: RJSFSchema, u: OutputUnit) {
  const value = at(schema, u.keywordLocation);
  const parentSchema = at(schema, u.keywordLocation.replace(/\/[^/]*$/, ''));
  const params: Record<string, unknown> =
    u.keyword === 'required'
      ? { missingProperty: /"([^"]+)"/.exec(u.error)?.[1] ?? '' }
      : u.keyword === 'enum'
        ? { allowedValues: value }
        : u.keyword === 'type'
          ? { type: Array.isArray(value) ? value.join(',') : value }
          : u.keyword === 'pattern'
            ? { pattern: value }
            : u.keyword === 'format'
              ? { format: value }
              : { limit: value };
  return { instancePath: u.instanceLocation.replace(/^#/, ''), keyword: u.keyword, params, schemaPath: u.keywordLocation, message: u.error, parentSchema };
}

function check(schema: RJSFSchema, data: unknown): OutputUnit[] {
  const result = new Validator(schema as never, '7', false).validate(data);
  return result.errors.filter((e) => !WRAPPERS.has(e.keyword));
}

/** RJSF's validator with CSP-safe checking. */
export function cspSafeValidator() {
  const v = customizeValidator();
  v.rawValidation = ((schema: RJSFSchema, formData?: unknown) => ({
    errors: check(schema, formData).map((u) => asAjvError(schema, u)),
  })) as typeof v.rawValidation;
  v.isValid = (schema, formData) => check(schema, formData).length === 0;
  return v;
}
