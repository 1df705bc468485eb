/**
 * The automation rule pages' words (list, builder, history), a chunk per language fetched with the pages (not with
 * src/locales, which the sign-in page downloads whole): the pages wait for them in the current language, and again after a switch.
 */
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { pickLanguage } from '../../../common/limits';
import i18n from '../../i18n';

const FILES = import.meta.glob<Record<string, unknown>>('./locales/*.json', { import: 'default' });
const loading = new Map<string, Promise<void>>();

/** Add the words of a language to i18next once (a failed fetch is tried again next time). */
export function loadAutoflowTexts(language: string): Promise<void> {
  const lang = pickLanguage(language);
  let pending = loading.get(lang);
  if (!pending) {
    pending = FILES[`./locales/${lang}.json`]().then((words) => void i18n.addResourceBundle(lang, 'translation', words, true, false));
    pending.catch(() => loading.delete(lang));
    loading.set(lang, pending);
  }
  return pending;
}

/** Whether the words of the current language are there (they are fetched when not). */
export function useAutoflowTexts(): boolean {
  const { i18n: current } = useTranslation();
  const lang = pickLanguage(current.language);
  const [ready, setReady] = useState(() => current.hasResourceBundle(lang, 'translation') && current.exists('autoflow.newRule', { lng: lang }));
  useEffect(() => {
    let live = true;
    if (!current.exists('autoflow.newRule', { lng: lang })) setReady(false);
    void loadAutoflowTexts(lang).then(() => live && setReady(true), () => undefined);
    return () => void (live = false);
  }, [lang, current]);
  return ready;
}
