/// <reference types="vite/client" />
/**
 * i18next with the console's strings (src/locales) merged with the shared messages (common/locales), one language at a
 * time: a language's messages and antd's locale are separate chunks, fetched when the language is first used (and
 * dayjs's locale once signed in) (so the sign-in page loads no other language's resources). `i18n.changeLanguage(lang)` fetches them
 * before it switches, so every caller (the switcher, the /{lang}/ prefix, Refine's i18nProvider, tests) stays as it
 * was; `i18nReady` settles when the first language is in place, and main.tsx draws nothing before it.
 */
import i18n from 'i18next';
import { initReactI18next } from 'react-i18next';
import type { Locale } from 'antd/es/locale';
// antd's and dayjs's own default is English: its locale costs nothing more. antd's CommonJS locales (antd/locale/*)
// arrive wrapped in a second default under Vite and antd silently falls back to English; the ES modules do not.
import antdEnUS from 'antd/es/locale/en_US';
import { LANGUAGES, pickLanguage, type Language } from '../common/limits';

type Messages = Record<string, unknown>;

// One chunk per file (Vite splits each glob match into its own chunk).
const CONSOLE = import.meta.glob<Messages>('./locales/*.json', { import: 'default' });
const COMMON = import.meta.glob<Messages>('../common/locales/*.json', { import: 'default' });

const ANTD: Record<Language, () => Promise<Locale>> = {
  'en-US': async () => antdEnUS,
  'zh-CN': () => import('antd/es/locale/zh_CN').then((m) => m.default),
  'zh-TW': () => import('antd/es/locale/zh_TW').then((m) => m.default),
  'es-ES': () => import('antd/es/locale/es_ES').then((m) => m.default),
};

/** dayjs's name of each language, and its locale module (the date pickers' month and day names). */
const DAYJS: Record<Language, { name: string; load: () => Promise<unknown> }> = {
  'en-US': { name: 'en', load: async () => undefined },
  'zh-CN': { name: 'zh-cn', load: () => import('dayjs/locale/zh-cn') },
  'zh-TW': { name: 'zh-tw', load: () => import('dayjs/locale/zh-tw') },
  'es-ES': { name: 'es', load: () => import('dayjs/locale/es') },
};

const antdLocales = new Map<Language, Locale>([['en-US', antdEnUS]]);

/** Console keys win over shared ones where both exist (e.g. the password rule). */
function merge(a: Messages, b: Messages): Messages {
  const out: Messages = { ...a };
  for (const [k, v] of Object.entries(b)) {
    out[k] = v && typeof v === 'object' && out[k] && typeof out[k] === 'object' ? merge(out[k] as Messages, v as Messages) : v;
  }
  return out;
}

const isLanguage = (value: unknown): value is Language => (LANGUAGES as readonly unknown[]).includes(value);

/** The language of a first visit: the stored one, else the browser's. */
export function initialLanguage(): Language {
  return pickLanguage(localStorage.getItem('lang') ?? navigator.language);
}

/** The language to draw the first page in: the address's /{lang}/ prefix when it names one, else the first visit's. */
function startLanguage(): Language {
  const prefix = typeof window === 'undefined' ? undefined : window.location.pathname.split('/')[1];
  return isLanguage(prefix) ? prefix : initialLanguage();
}

const loading = new Map<Language, Promise<void>>();

/** Fetch a language's messages and locales once (a failed fetch is tried again next time). */
export function loadLanguage(lang: Language): Promise<void> {
  let pending = loading.get(lang);
  if (!pending) {
    pending = Promise.all([CONSOLE[`./locales/${lang}.json`](), COMMON[`../common/locales/${lang}.json`](), ANTD[lang]()]).then(([console, common, antd]) => {
      // deep, without overwriting: a resource schema's labels for this language may have arrived first.
      i18n.addResourceBundle(lang, 'translation', merge(common, console), true, false);
      antdLocales.set(lang, antd);
    });
    pending.catch(() => loading.delete(lang));
    loading.set(lang, pending);
  }
  return pending;
}

/** antd's locale of a loaded language (English until it is). */
export const antdLocaleOf = (lang: string): Locale => antdLocales.get(lang as Language) ?? antdEnUS;
// dayjs is used by the signed-in pages only (date pickers, the CDR chart's range): the signed-in routes' chunk turns
// its locales on (followDayjsLocale), then each language's dayjs locale comes with it; never while the console stays in
// English, dayjs's own default; never on the sign-in page.
let dayjsWanted = false;
let dayjsChanged = false;
function setDayjsLocale(lang: Language): void {
  if (!dayjsWanted || (lang === 'en-US' && !dayjsChanged)) return;
  dayjsChanged = true;
  void Promise.all([import('dayjs'), DAYJS[lang].load()]).then(
    ([m]) => {
      // A later switch may have finished first.
      if (i18n.language === lang) m.default.locale(DAYJS[lang].name);
    },
    () => undefined,
  );
}

/** Called by the signed-in routes' chunk: dayjs follows the language from now on. */
export function followDayjsLocale(): void {
  dayjsWanted = true;
  if (isLanguage(i18n.language)) setDayjsLocale(i18n.language);
}

const first = startLanguage();
void i18n.use(initReactI18next).init({
  // Filled by loadLanguage; i18next has no backend, so it never waits for one.
  resources: {},
  lng: first,
  // Every language holds every key (tests/unit/i18n.test.ts): no second language is fetched as a fallback.
  fallbackLng: false,
  interpolation: { escapeValue: false },
});

// Switching fetches the language first: i18next announces the change (and React draws it) once the words are there.
const switchTo = i18n.changeLanguage.bind(i18n);
i18n.changeLanguage = (async (lng?: string, callback?: Parameters<typeof switchTo>[1]) => {
  if (isLanguage(lng)) {
    try {
      await loadLanguage(lng);
    } catch {
      // Offline or a chunk gone after a deploy: stay in the current language rather than show bare keys.
      return i18n.t.bind(i18n);
    }
  }
  const t = await switchTo(lng, callback);
  if (isLanguage(lng)) setDayjsLocale(lng);
  return t;
}) as typeof i18n.changeLanguage;

/** Settles once the first language's messages are in place. */
export const i18nReady: Promise<void> = loadLanguage(first).catch(() => undefined);

export default i18n;
