/**
 * Notification subscription groups (SPEC.md section 7, Jobs: GET, PUT, POST /rest/subscribe/group): who receives
 * which notifications, by e-mail or (the SMS variant) by SMS. Shared by the server's checks and the settings page.
 */
import { LIMITS } from './limits.js';

/** The notifications a group may take: a task of the organisation finished, or finished with issues. */
export const NOTIFICATION_KINDS = ['task_done', 'task_issues'] as const;
export type NotificationKind = (typeof NOTIFICATION_KINDS)[number];

export const SUBSCRIPTION_CHANNELS = ['email', 'sms'] as const;
export type SubscriptionChannel = (typeof SUBSCRIPTION_CHANNELS)[number];

/** Recipients per group: SPEC.md section 9's e-mails per group, also for numbers. */
export const RECIPIENTS_MAX = LIMITS.emailsPerGroup;
/** Groups per organisation and channel. */
export const GROUPS_MAX = 20;
/** A group's name, 1-50 characters. */
export const GROUP_NAME = { min: 1, max: 50 } as const;
