/** The words of a task's network log (the provider's answers), fetched with the task center. */
import { pageTexts } from '../../components/page-texts';

const texts = pageTexts(import.meta.glob<Record<string, unknown>>('./locales/*.json', { import: 'default' }), 'providerLog.title');
export const loadProviderLogTexts = texts.load;
export const useProviderLogTexts = texts.useReady;
