/** The words of an organisation's enterprise details (the drawer and its button), fetched with them. */
import { pageTexts } from '../../components/page-texts';

const texts = pageTexts(import.meta.glob<Record<string, unknown>>('./locales/*.json', { import: 'default' }), 'enterprise.title');
export const loadEnterpriseTexts = texts.load;
export const useEnterpriseTexts = texts.useReady;
