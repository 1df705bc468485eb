/** The words of the CDR detail, SIM summary, provider log, notifications and enterprise screens and panels, fetched with them. */
import { pageTexts } from '../../components/page-texts';

const texts = pageTexts(import.meta.glob<Record<string, unknown>>('./locales/*.json', { import: 'default' }), 'calls.details');
export const loadCallsTexts = texts.load;
export const useCallsTexts = texts.useReady;
