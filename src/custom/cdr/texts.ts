/** The words of a call and data record's detail and of a SIM's record summary, fetched with them. */
import { pageTexts } from '../../components/page-texts';

const texts = pageTexts(import.meta.glob<Record<string, unknown>>('./locales/*.json', { import: 'default' }), 'cdrDetail.title');
export const loadCdrTexts = texts.load;
export const useCdrTexts = texts.useReady;
