/** The pool dashboard's and settings' words, fetched with them (src/components/page-texts.ts). */
import { pageTexts } from '../../components/page-texts';

const texts = pageTexts(import.meta.glob<Record<string, unknown>>('./locales/*.json', { import: 'default' }), 'poolDash.realTime');
export const usePoolTexts = texts.useReady;
