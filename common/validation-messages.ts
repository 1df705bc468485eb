/**
 * The sentence a failed schema check is said in, naming its field: "Threshold must be between 1 and 1,073,741,824 KB",
 * "Rule name is required", "Threshold must be a whole number". One function for the console's schema forms, the rule
 * builder and the server's answer to a body its schema refuses, so the three say the same words in every language
 * (the texts are validation.* in common/locales). A range is said with both of its ends when the field's schema has
 * both, and numbers are written in the language's own way. A rule of our own code (rules.* in common/locales: a file's
 * type, lines of a list that break a check, a time in the past) is a sentence too, said by ruleMessage.
 */

/** A translator: i18next's t in the console, common/i18n.ts's translate bound to a language on the server. */
export type Translate = (key: string, params?: Record<string, unknown>) => string;

/** One failed check of a JSON Schema keyword (ajv's keyword and params, as the console's validator reports them too). */
export interface SchemaProblem {
  keyword: string;
  params?: Record<string, unknown>;
  /** The schema of the value checked: both ends of a range come from it. */
  schema?: Record<string, unknown>;
  /** The unit a number is counted in ("KB"), said after it. */
  unit?: string;
}

/** The JSON Schema keywords this function has words for; a schema of ours using another is caught by a unit test. */
export const WORDED_KEYWORDS = [
  'required',
  'type',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'multipleOf',
  'minLength',
  'maxLength',
  'pattern',
  'format',
  'enum',
  'const',
  'additionalProperties',
  'minItems',
  'maxItems',
  'uniqueItems',
  'minProperties',
  'maxProperties',
] as const;

/** Keywords that only combine or steer others: their failure is reported by the keyword inside them. */
export const STRUCTURAL_KEYWORDS = [
  'properties',
  'items',
  'allOf',
  'anyOf',
  'oneOf',
  'if',
  'then',
  'else',
  'not',
  'additionalItems',
  'patternProperties',
  'dependencies',
  '$ref',
  'definitions',
  '$schema',
  '$id',
  'title',
  'description',
  'default',
  'examples',
  'readOnly',
  'writeOnly',
  'nullable',
] as const;

/** The JSON types a field may be said to need. */
export const JSON_TYPES = ['integer', 'number', 'string', 'boolean', 'array', 'object', 'null'] as const;
/** Formats with words of their own; others are "has the wrong format". */
export const WORDED_FORMATS = ['date-time', 'date', 'email', 'uri'] as const;

const num = (lang: string, v: unknown) => (typeof v === 'number' ? new Intl.NumberFormat(lang).format(v) : String(v ?? ''));

/** The message for one failed check of `field` (its label, already in the interface language). */
export function schemaMessage(t: Translate, lang: string, field: string, problem: SchemaProblem): string {
  const p = problem.params ?? {};
  const s = problem.schema ?? {};
  const unit = problem.unit ? ` ${problem.unit}` : '';
  const limit = p.limit;
  const say = (key: string, extra: Record<string, unknown> = {}) => t(`validation.${key}`, { field, unit, ...extra });
  /** Singular forms (validation.<key>_one) for a limit of 1. */
  const counted = (key: string) => say(limit === 1 ? `${key}_one` : key, { limit: num(lang, limit) });
  switch (problem.keyword) {
    case 'required':
      return say('required');
    case 'minimum':
    case 'maximum':
    case 'exclusiveMinimum':
    case 'exclusiveMaximum': {
      if (typeof s.minimum === 'number' && typeof s.maximum === 'number') return say('range', { min: num(lang, s.minimum), max: num(lang, s.maximum) });
      return say(problem.keyword, { limit: num(lang, limit) });
    }
    case 'multipleOf':
      return say('multipleOf', { limit: num(lang, p.multipleOf ?? limit) });
    case 'minLength':
      // Nothing typed where something must be: the field is simply required.
      if (limit === 1) return say('required');
      if (typeof s.maxLength === 'number') return say('lengthRange', { min: num(lang, limit), max: num(lang, s.maxLength) });
      return counted('minLength');
    case 'maxLength':
      return counted('maxLength');
    case 'minItems':
      return counted('minItems');
    case 'maxItems':
    case 'maxProperties':
      return counted(problem.keyword);
    case 'type': {
      const types = (Array.isArray(p.type) ? p.type : String(p.type ?? '').split(',')).map(String).filter((x) => x !== 'null');
      const type = types[0] && (JSON_TYPES as readonly string[]).includes(types[0]) ? types[0] : 'string';
      return say(`type.${type}`);
    }
    case 'format': {
      const format = (WORDED_FORMATS as readonly string[]).includes(String(p.format)) ? String(p.format) : 'other';
      return say(`format.${format}`);
    }
    case 'enum':
      return say('enum', { values: ((p.allowedValues as unknown[] | undefined) ?? []).join(', ') });
    case 'const':
      return say('const', { value: String(p.allowedValue ?? '') });
    case 'additionalProperties':
    case 'uniqueItems':
    case 'minProperties':
      return say(problem.keyword);
    default:
      return say('pattern');
  }
}

/**
 * The message for a rule a check of our own code names (invalid(field, rule) on the server, a form's x-rule): a rule
 * that is a schema keyword (and "email", "unique") in the keyword's words above, so that a limit checked by code reads
 * as one checked by the schema; any other as its own sentence, rules.<rule>, which names the field where it is about
 * one ("{{field}} must be an IANA time zone such as Europe/Berlin") or is whole without it (rules.password).
 * `params.count` of 1 picks the rule's singular form (rules.<rule>_one) on the server as i18next does in the console.
 */
export function ruleMessage(t: Translate, lang: string, field: string, rule: string, params: Record<string, unknown> = {}): string {
  if (rule === 'email') return schemaMessage(t, lang, field, { keyword: 'format', params: { format: 'email' } });
  if (rule === 'unique') return t('validation.unique', { field });
  // A list of values the code checked by hand comes as one text ("a, b, c").
  if (rule === 'enum' && params.allowedValues === undefined)
    return schemaMessage(t, lang, field, { keyword: 'enum', params: { allowedValues: String(params.values ?? '').split(', ') } });
  if ((WORDED_KEYWORDS as readonly string[]).includes(rule)) return schemaMessage(t, lang, field, { keyword: rule, params });
  return t(`rules.${rule}`, { ...params, field });
}
