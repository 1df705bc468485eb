/** i18next with the console's strings (src/locales) merged with the shared messages (common/locales). */
import i18n from 'i18next';
import { initReactI18next } from 'react-i18next';
import { COMMON_MESSAGES } from '../common/i18n';
import { DEFAULT_LANGUAGE, LANGUAGES, pickLanguage, type Language } from '../common/limits';
import enUS from './locales/en-US.json';
import zhCN from './locales/zh-CN.json';
import zhTW from './locales/zh-TW.json';
import esES from './locales/es-ES.json';

const CONSOLE: Record<Language, Record<string, unknown>> = { 'en-US': enUS, 'zh-CN': zhCN, 'zh-TW': zhTW, 'es-ES': esES };

/** Console keys win over shared ones where both exist (e.g. the password rule). */
function merge(a: Record<string, unknown>, b: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...a };
  for (const [k, v] of Object.entries(b)) {
    out[k] = v && typeof v === 'object' && out[k] && typeof out[k] === 'object' ? merge(out[k] as Record<string, unknown>, v as Record<string, unknown>) : v;
  }
  return out;
}

/** The language of a first visit: the stored one, else the browser's. */
export function initialLanguage(): Language {
  return pickLanguage(localStorage.getItem('lang') ?? navigator.language);
}

void i18n.use(initReactI18next).init({
  resources: Object.fromEntries(LANGUAGES.map((l) => [l, { translation: merge(COMMON_MESSAGES[l], CONSOLE[l]) }])),
  lng: initialLanguage(),
  fallbackLng: DEFAULT_LANGUAGE,
  interpolation: { escapeValue: false },
});

export default i18n;
