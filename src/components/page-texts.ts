/**
 * Words that come with their pages: a chunk per language fetched with the pages that use them, not with
 * src/locales, which the sign-in page downloads whole. The pages wait for them in the current language, and again
 * after a switch. Each page folder names its files with its own `import.meta.glob` (Vite reads it where it is
 * written) and a key its words hold, by which to tell they are there.
 */
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { pickLanguage } from '../../common/limits';
import i18n from '../i18n';

type Files = Record<string, () => Promise<Record<string, unknown>>>;

export function pageTexts(files: Files, probeKey: string): { load: (language: string) => Promise<void>; useReady: () => boolean } {
  const loading = new Map<string, Promise<void>>();
  const fileOf = (lang: string) => Object.entries(files).find(([path]) => path.endsWith(`/${lang}.json`))?.[1];

  /** Add the words of a language to i18next once (a failed fetch is tried again next time). */
  const load = (language: string): Promise<void> => {
    const lang = pickLanguage(language);
    let pending = loading.get(lang);
    if (!pending) {
      const file = fileOf(lang);
      pending = file
        ? file().then((words) => void i18n.addResourceBundle(lang, 'translation', words, true, false))
        : Promise.reject(new Error(`no words for ${lang}`));
      pending.catch(() => loading.delete(lang));
      loading.set(lang, pending);
    }
    return pending;
  };

  /** Whether the words of the current language are there (they are fetched when not). */
  const useReady = (): boolean => {
    const { i18n: current } = useTranslation();
    const lang = pickLanguage(current.language);
    const [ready, setReady] = useState(() => current.exists(probeKey, { lng: lang }));
    useEffect(() => {
      let live = true;
      if (!current.exists(probeKey, { lng: lang })) setReady(false);
      void load(lang).then(
        () => live && setReady(true),
        () => undefined,
      );
      return () => void (live = false);
    }, [lang, current]);
    return ready;
  };
  return { load, useReady };
}
