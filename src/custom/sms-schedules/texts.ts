/** The scheduled SMS pages' words, fetched with the pages (src/components/page-texts.ts). */
import { pageTexts } from '../../components/page-texts';

const texts = pageTexts(import.meta.glob<Record<string, unknown>>('./locales/*.json', { import: 'default' }), 'smsSchedules.new');
export const loadScheduleTexts = texts.load;
export const useScheduleTexts = texts.useReady;
