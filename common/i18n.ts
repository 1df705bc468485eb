/** Messages both sides show (errors, validation): one table per language, en-US the fallback. */
import enUS from './locales/en-US.json' with { type: 'json' };
import zhCN from './locales/zh-CN.json' with { type: 'json' };
import zhTW from './locales/zh-TW.json' with { type: 'json' };
import esES from './locales/es-ES.json' with { type: 'json' };
import type { Language } from './limits.js';

export const COMMON_MESSAGES: Record<Language, Record<string, unknown>> = {
  'en-US': enUS,
  'zh-CN': zhCN,
  'zh-TW': zhTW,
  'es-ES': esES,
};

function lookup(table: Record<string, unknown>, key: string): string | undefined {
  let node: unknown = table;
  for (const part of key.split('.')) {
    if (node && typeof node === 'object' && part in (node as Record<string, unknown>)) node = (node as Record<string, unknown>)[part];
    else return undefined;
  }
  return typeof node === 'string' ? node : undefined;
}

/** Translate a key with {{name}} placeholders; falls back to en-US, then to the key itself. */
export function translate(lang: Language, key: string, params: Record<string, unknown> = {}): string {
  // A limit or a count of exactly 1 reads in the singular where the language has a singular form (<key>_one), as
  // i18next picks it by count in the console.
  const singular =
    params.limit === 1 || params.count === 1 ? (lookup(COMMON_MESSAGES[lang], `${key}_one`) ?? lookup(COMMON_MESSAGES['en-US'], `${key}_one`)) : undefined;
  const template = singular ?? lookup(COMMON_MESSAGES[lang], key) ?? lookup(COMMON_MESSAGES['en-US'], key) ?? key;
  return template.replace(/\{\{\s*(\w+)\s*\}\}/g, (_, name: string) => {
    const value = params[name];
    if (value === undefined) return `{{${name}}}`;
    // A field name is itself translated when a label exists for it.
    if (name === 'field' && typeof value === 'string')
      return lookup(COMMON_MESSAGES[lang], `fields.${value}`) ?? lookup(COMMON_MESSAGES['en-US'], `fields.${value}`) ?? value;
    return String(value);
  });
}
