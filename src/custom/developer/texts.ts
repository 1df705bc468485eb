/** The words of the notification groups page, fetched with it. */
import { pageTexts } from '../../components/page-texts';

const texts = pageTexts(import.meta.glob<Record<string, unknown>>('./locales/*.json', { import: 'default' }), 'notificationGroups.title');
export const loadNotificationGroupsTexts = texts.load;
export const useNotificationGroupsTexts = texts.useReady;
