/** The words of issue 20's screens and panels (CDR detail, SIM summary, provider log, notifications, enterprise), fetched with them. */
import { pageTexts } from '../../components/page-texts';

const texts = pageTexts(import.meta.glob<Record<string, unknown>>('./locales/*.json', { import: 'default' }), 'calls.details');
export const loadCallsTexts = texts.load;
export const useCallsTexts = texts.useReady;
