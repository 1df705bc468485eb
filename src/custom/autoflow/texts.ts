/** The automation rule pages' words (list, builder, history), fetched with the pages (src/components/page-texts.ts). */
import { pageTexts } from '../../components/page-texts';

const texts = pageTexts(import.meta.glob<Record<string, unknown>>('./locales/*.json', { import: 'default' }), 'autoflow.newRule');
export const loadAutoflowTexts = texts.load;
export const useAutoflowTexts = texts.useReady;
