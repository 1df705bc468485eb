/**
 * The labels the server shares with the console (common/locales/<lang>.json): a resource's fields and enum values
 * (<i18n>.fields.<field>, <i18n>.enum.<field>.<value>) and the few other words its files and messages print, so that the
 * server names a field the way the page does ("Device name: must be at most 40 characters"). The server never reads
 * the console's own src/locales (tests/unit/rooms.test.ts).
 */
import type { Language } from '../../common/limits.js';
import type { ResourceSchema } from '../../common/resources.js';
import enUS from '../../common/locales/en-US.json' with { type: 'json' };
import esES from '../../common/locales/es-ES.json' with { type: 'json' };
import zhCN from '../../common/locales/zh-CN.json' with { type: 'json' };
import zhTW from '../../common/locales/zh-TW.json' with { type: 'json' };

export const CONSOLE_LABELS: Record<Language, Record<string, unknown>> = { 'en-US': enUS, 'zh-CN': zhCN, 'zh-TW': zhTW, 'es-ES': esES };

/** A console label by key, in the language or else in English; undefined when neither has it. */
export function consoleLabel(lang: Language, key: string): string | undefined {
  const find = (table: Record<string, unknown>) => {
    let node: unknown = table;
    for (const part of key.split('.')) node = node && typeof node === 'object' ? (node as Record<string, unknown>)[part] : undefined;
    return typeof node === 'string' ? node : undefined;
  };
  return find(CONSOLE_LABELS[lang]) ?? find(CONSOLE_LABELS['en-US']);
}

/** Field labels by language for a route's messages (RouteDef.labels). */
export function fieldLabels(r: ResourceSchema): Record<string, Record<string, string>> {
  const prefix = r['x-admin'].i18n;
  return Object.fromEntries(
    (Object.keys(CONSOLE_LABELS) as Language[]).map((lang) => [
      lang,
      Object.fromEntries(
        Object.keys(r.properties).flatMap((f) => {
          const label = consoleLabel(lang, `${prefix}.fields.${f}`);
          return label ? [[f, label]] : [];
        }),
      ),
    ]),
  );
}
