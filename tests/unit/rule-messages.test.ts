/**
 * The refusals of our own checks (rules.* in common/locales, said by ruleMessage in common/validation-messages.ts):
 * in each of the four languages every rule is a whole sentence, either naming the field as its subject ("Time zone
 * must be an IANA time zone such as Europe/Berlin", "阈值不能早于当前时间") or complete without it (the password
 * rule) — never a field's name, a colon and a fragment ("Rule name: must be at least 1 character"), never an English
 * word in Chinese or Spanish. Every rule the server's code names has its words, and every field it names a label.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { COMMON_MESSAGES, translate } from '../../common/i18n.js';
import { LANGUAGES, type Language } from '../../common/limits.js';
import { ruleMessage, WORDED_KEYWORDS } from '../../common/validation-messages.js';
import { REASONS } from '../../common/permissions.js';

type Tree = { [k: string]: string | Tree };
const keys = (tree: Tree, prefix = ''): string[] =>
  Object.entries(tree).flatMap(([k, v]) => (typeof v === 'string' ? [`${prefix}${k}`] : keys(v, `${prefix}${k}.`)));
const RULES = keys(COMMON_MESSAGES['en-US'].rules as Tree);
/** The rules, without their singular forms (picked by count). */
const BASE_RULES = RULES.filter((r) => !r.endsWith('_one'));

/** Rules said as a sentence of their own, without the field's name (it is clear from the rule). */
const WHOLE = [
  'badUrl',
  'password',
  'passwordMismatch',
  'msisdn.format',
  'msisdn.countryCode',
  'msisdn.length',
  'xlsxLines',
  'oneEnabled',
  'poolUnknown',
  'iban',
];
/** A field's label in the language; parameters without words of their own. */
const FIELD: Record<Language, string> = { 'en-US': 'Threshold', 'zh-CN': '阈值', 'zh-TW': '閾值', 'es-ES': 'Umbral' };
const PARAMS = { limit: '7', days: 31, types: '.csv, .txt', type: '.xlsx', column: 'ICCID', list: '3, 5', lines: '2, 4', value: '4915', count: 2 };
/** English words that must not appear in a Chinese or Spanish message (the JSON type names among them). */
const ENGLISH =
  /\b(must|is|be|has|have|not|the|on|lines?|rows?|required|integer|string|number|boolean|array|object|null|characters?|entries|format|valid|address|least|most|text|list|field|wrong|one of|already|taken|duplicates?)\b/i;

const say = (lang: Language, rule: string, params: Record<string, unknown> = PARAMS) =>
  ruleMessage((k, p) => translate(lang, k, p), lang, FIELD[lang], rule, params);

describe('rule messages', () => {
  it('cover what they must: the whole sentences are rules, the rules checked by keyword words are not', () => {
    for (const r of WHOLE) expect(RULES, r).toContain(r);
    expect(RULES.filter((r) => (WORDED_KEYWORDS as readonly string[]).includes(r) || r === 'email' || r === 'unique')).toEqual([]);
  });

  describe.each(LANGUAGES)('in %s', (lang) => {
    it.each(BASE_RULES)('%s is a sentence', (rule) => {
      for (const count of [1, 2]) {
        const said = say(lang, rule, { ...PARAMS, count });
        const what = `${rule} (count ${count}): ${said}`;
        expect(said, what).not.toMatch(/\{\{|\}\}|rules\.|undefined|NaN/);
        if (WHOLE.includes(rule)) expect(said, what).not.toContain(FIELD[lang]);
        else expect(said, what).toContain(FIELD[lang]);
        // No "Field: rule" joint, in either script.
        expect(said, what).not.toMatch(new RegExp(`${FIELD[lang]}»?\\s*[:：]`));
        expect(said, what).not.toMatch(/^[^\s:：]+[:：]\s/);
        if (lang === 'en-US' || lang === 'es-ES') expect(said.replace(/^[«“¡¿"']+/, ''), what).toMatch(/^[\p{Lu}\d]/u);
        if (lang !== 'en-US') expect(said, what).not.toMatch(ENGLISH);
      }
    });
  });

  it('reads as the rest of the product speaks, in the singular where one line is meant', () => {
    expect(say('en-US', 'timezone')).toBe('Threshold must be an IANA time zone such as Europe/Berlin');
    expect(say('zh-CN', 'notBeforeNow')).toBe('阈值不能早于当前时间');
    expect(say('es-ES', 'notBeforeNow')).toBe('El campo «Umbral» no puede ser anterior a ahora');
    expect(say('en-US', 'iccidInvalid', { lines: '3', count: 1 })).toBe('Threshold has an invalid ICCID on line 3');
    expect(say('en-US', 'iccidInvalid', { lines: '3, 4', count: 2 })).toBe('Threshold has invalid ICCIDs on lines 3, 4');
    expect(say('es-ES', 'duplicateLines', { lines: '3', count: 1 })).toBe('«Umbral» tiene un duplicado en la línea 3');
    // Rules that are schema keywords say the keyword's sentence, with numbers in the language's way.
    expect(say('en-US', 'required')).toBe('Threshold is required');
    expect(say('en-US', 'maximum', { limit: 10000 })).toBe('Threshold must be at most 10,000');
    expect(say('zh-CN', 'minLength', { limit: 5 })).toBe('阈值至少需要 5 个字符');
    expect(say('es-ES', 'unique')).toBe('El valor de «Umbral» ya está en uso');
    expect(say('en-US', 'enum', { values: 'deviceName, notes, tags' })).toBe('Threshold must be one of: deviceName, notes, tags');
    expect(say('en-US', 'email')).toBe('Threshold must be a valid e-mail address');
    expect(say('en-US', 'password')).toBe('Password must be 6-12 digits and include letter, number and symbol!');
  });
});

/** The server's code: each refusal it throws by rule (invalid, badLines, offenders, the permission file's reasons). */
const serverDir = path.join(import.meta.dirname, '../../server');
const files = (dir: string): string[] =>
  fs
    .readdirSync(dir, { withFileTypes: true })
    .flatMap((e) => (e.isDirectory() ? files(path.join(dir, e.name)) : e.name.endsWith('.ts') ? [path.join(dir, e.name)] : []));
const THROWN = files(serverDir).flatMap((file) =>
  [...fs.readFileSync(file, 'utf8').matchAll(/\b(?:invalid|badLines|offenders)\(\s*(?:'([^']+)'|`[^`]*`|[\w.]+),\s*'([^']+)'/g)].map((m) => ({
    file: path.relative(serverDir, file),
    field: m[1],
    rule: m[2],
  })),
);

describe('the rules the server names', () => {
  it('are found in its code', () => {
    expect(THROWN.length).toBeGreaterThan(50);
    expect(THROWN.map((t) => t.rule)).toEqual(expect.arrayContaining(['required', 'duplicateLines', 'iccidForeign', 'duplicateIccids', 'notPast']));
  });

  it('each have words', () => {
    const said = (rule: string) => (WORDED_KEYWORDS as readonly string[]).includes(rule) || rule === 'email' || rule === 'unique' || RULES.includes(rule);
    const reasons = Object.values(REASONS).flatMap((r) => ('rule' in r && r.rule ? [{ file: 'common/permissions.ts', field: r.field, rule: r.rule }] : []));
    expect([...THROWN, ...reasons].filter((t) => !said(t.rule))).toEqual([]);
  });

  it('name each field by a label in every language', () => {
    // Fields of an autoflow rule's nested parts are labelled by the rule routes (LABELS in server/autoflow/rule-routes.ts).
    const own = THROWN.filter((t) => t.field && !/^(trigger|scope|actions)\./.test(t.field));
    const unlabelled = own.flatMap((t) =>
      LANGUAGES.filter((lang) => translate(lang, '{{field}}', { field: t.field }) === t.field).map((lang) => `${lang} ${t.field} (${t.file})`),
    );
    expect(unlabelled).toEqual([]);
  });
});
