/**
 * Validation messages (common/validation-messages.ts): every JSON Schema keyword our schemas use (the resources of
 * schemas/, the rule document, every route's body, query and params) has words, and in each of the four languages
 * they are a whole sentence naming the field: no placeholder or key left, no English word in Chinese or Spanish.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { AUTOFLOW_RULE_SCHEMA } from '../../common/autoflow-rule.js';
import { translate } from '../../common/i18n.js';
import { LANGUAGES, type Language } from '../../common/limits.js';
import { JSON_TYPES, schemaMessage, STRUCTURAL_KEYWORDS, WORDED_FORMATS, WORDED_KEYWORDS } from '../../common/validation-messages.js';
import { ALL_ROUTES } from '../../server/routes.js';

/** The keywords used anywhere in a schema (property names under `properties` are names, not keywords). */
function keywordsOf(schema: unknown, into = new Set<string>()): Set<string> {
  if (Array.isArray(schema)) {
    for (const s of schema) keywordsOf(s, into);
    return into;
  }
  if (!schema || typeof schema !== 'object') return into;
  for (const [k, v] of Object.entries(schema)) {
    into.add(k);
    if (k === 'properties' || k === 'patternProperties' || k === 'definitions' || k === 'dependencies')
      for (const sub of Object.values(v as object)) keywordsOf(sub, into);
    else if (k === 'enum' || k === 'const' || k === 'required' || k === 'examples' || k === 'default' || k.startsWith('x-')) continue;
    else keywordsOf(v, into);
  }
  return into;
}

const schemasDir = path.join(import.meta.dirname, '../../schemas');
const resourceSchemas = fs
  .readdirSync(schemasDir)
  .filter((f) => f.endsWith('.json'))
  .map((f) => JSON.parse(fs.readFileSync(path.join(schemasDir, f), 'utf8')) as unknown);
const routeSchemas = ALL_ROUTES.flatMap((r) => {
  const s = (r.schema ?? {}) as unknown as Record<string, unknown>;
  return [s.body, s.querystring, s.params].filter(Boolean);
});
const USED = keywordsOf([...resourceSchemas, AUTOFLOW_RULE_SCHEMA, ...routeSchemas]);
const SKIPPED = new Set<string>([...STRUCTURAL_KEYWORDS, 'type', 'format']);

/** A field's label in the language, and sample parameters with no letters of their own. */
const FIELD: Record<Language, string> = { 'en-US': 'Threshold', 'zh-CN': '阈值', 'zh-TW': '閾值', 'es-ES': 'Umbral' };
const PARAMS: Record<string, Record<string, unknown>> = {
  minimum: { limit: 1 },
  maximum: { limit: 1_073_741_824 },
  exclusiveMinimum: { limit: 0 },
  exclusiveMaximum: { limit: 100 },
  multipleOf: { multipleOf: 5 },
  minLength: { limit: 3 },
  maxLength: { limit: 100 },
  minItems: { limit: 2 },
  maxItems: { limit: 10 },
  maxProperties: { limit: 20 },
  enum: { allowedValues: [1, 2, 3] },
  const: { allowedValue: 7 },
};
/** English words that must not appear in a Chinese or Spanish message (the untranslated JSON type names among them). */
const ENGLISH =
  /\b(must|is|be|required|integer|string|number|boolean|array|object|null|between|characters?|entries|entry|format|valid|address|least|most|whole|text|list|field|wrong|one of)\b/i;

/** Every way one keyword can be said: each type, each format, each limit of 1 (singular) and more. */
function cases(keyword: string): Array<{ keyword: string; params: Record<string, unknown>; schema?: Record<string, unknown>; unit?: string }> {
  if (keyword === 'type') return JSON_TYPES.map((type) => ({ keyword, params: { type } }));
  if (keyword === 'format') return [...WORDED_FORMATS, 'ipv4'].map((format) => ({ keyword, params: { format } }));
  const base = { keyword, params: PARAMS[keyword] ?? {} };
  const out: Array<{ keyword: string; params: Record<string, unknown>; schema?: Record<string, unknown>; unit?: string }> = [
    base,
    { ...base, params: { ...base.params, limit: 1 } },
  ];
  if (keyword === 'minimum' || keyword === 'maximum') out.push({ ...base, schema: { minimum: 1, maximum: 1_073_741_824 }, unit: 'KB' });
  if (keyword === 'minLength') out.push({ ...base, schema: { minLength: 3, maxLength: 40 } });
  return out;
}

describe('validation messages', () => {
  it('have words for every keyword our schemas use', () => {
    const unworded = [...USED].filter((k) => !k.startsWith('x-') && !SKIPPED.has(k) && !(WORDED_KEYWORDS as readonly string[]).includes(k));
    expect(unworded).toEqual([]);
    // The walk reads real schemas: the keywords of a range, a length and a list are among them.
    for (const k of ['minimum', 'maximum', 'minLength', 'maxLength', 'maxItems', 'pattern', 'enum']) expect(USED.has(k), k).toBe(true);
  });

  describe.each(LANGUAGES)('in %s', (lang) => {
    const t = (key: string, params?: Record<string, unknown>) => translate(lang, key, params);
    const keywords = [...new Set([...WORDED_KEYWORDS, ...[...USED].filter((k) => (WORDED_KEYWORDS as readonly string[]).includes(k))])];
    it.each(keywords)('%s is a sentence naming the field', (keyword) => {
      for (const c of cases(keyword)) {
        const said = schemaMessage(t, lang, FIELD[lang], c);
        const what = `${keyword} ${JSON.stringify(c)}: ${said}`;
        expect(said, what).toContain(FIELD[lang]);
        expect(said, what).not.toMatch(/\{\{|\}\}|validation\.|undefined|NaN/);
        if (lang !== 'en-US') expect(said, what).not.toMatch(ENGLISH);
        if (lang.startsWith('zh')) expect(said.replace(/KB/g, ''), what).not.toMatch(/[A-Za-z]{2,}/);
      }
    });
  });

  it('says a range whole, with numbers in the language’s way and the unit', () => {
    const say = (lang: Language, v: Record<string, unknown>) =>
      schemaMessage((k, p) => translate(lang, k, p), lang, FIELD[lang], {
        keyword: 'minimum',
        params: { limit: 1 },
        schema: { minimum: 1, maximum: 1_073_741_824 },
        unit: 'KB',
        ...v,
      });
    expect(say('en-US', {})).toBe('Threshold must be between 1 and 1,073,741,824 KB');
    expect(say('zh-CN', {})).toBe('阈值必须在 1 到 1,073,741,824 KB 之间');
    expect(say('es-ES', {})).toBe('El campo «Umbral» debe estar entre 1 y 1.073.741.824 KB');
    expect(schemaMessage((k, p) => translate('en-US', k, p), 'en-US', 'Rule name', { keyword: 'minLength', params: { limit: 1 } })).toBe(
      'Rule name is required',
    );
    expect(schemaMessage((k, p) => translate('zh-CN', k, p), 'zh-CN', '阈值', { keyword: 'type', params: { type: 'integer' } })).toBe('阈值必须是整数');
    expect(schemaMessage((k, p) => translate('es-ES', k, p), 'es-ES', 'Umbral', { keyword: 'type', params: { type: 'integer' } })).toBe(
      'El campo «Umbral» debe ser un número entero',
    );
  });
});
