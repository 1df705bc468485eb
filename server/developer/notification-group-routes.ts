/**
 * Notification subscription groups (SPEC.md section 7, Jobs: GET, PUT and POST /rest/subscribe/group, with the SMS
 * variant): who in the organisation hears of which of its tasks' ends, by e-mail or by SMS. The groups are the
 * organisation's, kept by its administrators (the permission file's "subscription"); a task's end is told to them in
 * the transaction that ends it (server/job/worker.ts), e-mail through the mailer's outbox, SMS into sms_outbox for the
 * gateway (docs/decisions.md "Notification subscription groups"). The SQL, and the telling, are in ./subscription-repo.ts.
 */
import { CODES } from '../../common/errors.js';
import { EMAIL_PATTERN, LIMITS, type Language } from '../../common/limits.js';
import { checkMsisdn } from '../../common/msisdn.js';
import { GROUP_NAME, GROUPS_MAX, NOTIFICATION_KINDS, RECIPIENTS_MAX, SUBSCRIPTION_CHANNELS, type SubscriptionChannel } from '../../common/subscriptions.js';
import { newId } from '../db/ids.js';
import { ApiError, invalid, notFound } from '../http/api-error.js';
import { audit } from '../http/audit.js';
import { defineRoutes } from '../http/route.js';
import { arrayOf, listOf, obj, subjectRoutes, typed } from '../http/shapes.js';
import { appendEvents } from '../events/event-log.js';
import { groupForUpdate, groupsOf, insertGroup, lockAndCountGroups, updateGroup } from './notification-group-repo.js';

const CHANNEL = { type: 'string', enum: [...SUBSCRIPTION_CHANNELS] };
const TEXTS = arrayOf({ type: 'string' });
const TIME = { type: 'string', format: 'date-time' };
const GROUP = typed({
  id: 'string',
  channel: CHANNEL,
  name: 'string',
  notifications: TEXTS,
  recipients: TEXTS,
  enabled: 'boolean',
  language: 'string',
  createdAt: TIME,
  updatedAt: TIME,
});

const fields = {
  name: { type: 'string', minLength: GROUP_NAME.min, maxLength: GROUP_NAME.max },
  notifications: {
    type: 'array',
    minItems: 1,
    maxItems: NOTIFICATION_KINDS.length,
    uniqueItems: true,
    items: { type: 'string', enum: [...NOTIFICATION_KINDS] },
  },
  // E-mail addresses or numbers: each checked by the channel's rule in the handler.
  recipients: { type: 'array', minItems: 1, maxItems: RECIPIENTS_MAX, items: { type: 'string', minLength: 1, maxLength: LIMITS.email } },
  enabled: { type: 'boolean' },
  language: { type: 'string', enum: ['en-US', 'zh-CN', 'zh-TW', 'es-ES'] },
} as const;

/** The recipients of a channel, trimmed and checked: valid, and each listed once. */
function cleanRecipients(channel: SubscriptionChannel, raw: string[]): string[] {
  const list = raw.map((r) => r.trim());
  const email = new RegExp(EMAIL_PATTERN);
  for (const r of list) {
    if (channel === 'email' && !email.test(r)) throw invalid('recipients', 'email', { value: r });
    if (channel === 'sms') {
      const c = checkMsisdn(r);
      if (!c.ok) throw invalid('recipients', `msisdn.${c.rule}`, { value: r });
    }
  }
  const seen = new Set<string>();
  const dup = list.filter((r) => (seen.has(r.toLowerCase()) ? true : (seen.add(r.toLowerCase()), false)));
  if (dup.length) throw invalid('recipients', channel === 'email' ? 'duplicateEmails' : 'uniqueItems', { list: dup.join(', '), count: dup.length });
  return channel === 'email' ? list.map((r) => r.toLowerCase()) : list;
}

const isUniqueViolation = (err: unknown) => (err as { code?: string })?.code === '23505';
const nameTaken = () => invalid('name', 'unique');

const route = subjectRoutes('job', 'subscription');

export const subscriptionRoutes = defineRoutes([
  route('GET', '/rest/subscribe/group', 'read', {
    summary: 'Notification subscription groups',
    schema: { querystring: obj({ channel: CHANNEL }), response: listOf(GROUP, { kinds: TEXTS, max: { type: 'integer' } }) },
    handler: async (req) => {
      const auth = req.requireAuth();
      const { channel } = req.query as { channel?: string };
      return { items: await groupsOf(req.server.db, auth.orgId, channel ?? null), kinds: [...NOTIFICATION_KINDS], max: GROUPS_MAX };
    },
  }),
  route('POST', '/rest/subscribe/group', 'create', {
    summary: 'Create a notification subscription group',
    schema: { body: obj({ channel: CHANNEL, ...fields }, ['channel', 'name', 'notifications', 'recipients']), response: GROUP },
    handler: async (req) => {
      const auth = req.requireAuth();
      const body = req.body as {
        channel: SubscriptionChannel;
        name: string;
        notifications: string[];
        recipients: string[];
        enabled?: boolean;
        language?: Language;
      };
      const name = body.name.trim();
      if (!name) throw invalid('name', 'required');
      const recipients = cleanRecipients(body.channel, body.recipients);
      const id = newId();
      try {
        return await req.server.db.tx(async (q) => {
          // One group at a time per organisation: the count and the insert cannot race past the cap.
          const n = await lockAndCountGroups(q, auth.orgId, body.channel);
          if (n >= GROUPS_MAX)
            throw new ApiError(400, CODES.validation, { field: 'name', max: GROUPS_MAX }, 'errors.subscriptionGroupsFull', { field: 'name', rule: 'maxItems' });
          const row = await insertGroup(q, {
            orgId: auth.orgId,
            id,
            channel: body.channel,
            name,
            notifications: body.notifications,
            recipients,
            enabled: body.enabled ?? true,
            language: body.language ?? req.lang,
            createdBy: auth.accountId,
          });
          await audit(q, req, { action: 'create', entity: 'subscription_group', entityId: id, after: row as Record<string, unknown> });
          await appendEvents(q, [
            {
              orgId: auth.orgId,
              type: 'org',
              subtype: 'subscription_group_created',
              subject: id,
              data: { channel: body.channel, notifications: body.notifications },
            },
          ]);
          return row;
        });
      } catch (err) {
        if (isUniqueViolation(err)) throw nameTaken();
        throw err;
      }
    },
  }),
  route('PUT', '/rest/subscribe/group', 'update', {
    summary: 'Change a notification subscription group',
    schema: { body: { ...obj({ id: { type: 'string', pattern: '^[A-Za-z0-9]{18,22}$' }, ...fields }, ['id']), minProperties: 2 }, response: GROUP },
    handler: async (req) => {
      const auth = req.requireAuth();
      const body = req.body as { id: string; name?: string; notifications?: string[]; recipients?: string[]; enabled?: boolean; language?: Language };
      const name = body.name?.trim();
      if (body.name !== undefined && !name) throw invalid('name', 'required');
      try {
        return await req.server.db.tx(async (q) => {
          const before = await groupForUpdate(q, auth.orgId, body.id);
          if (!before) throw notFound('subscriptionGroup', body.id);
          const recipients = body.recipients ? cleanRecipients(before.channel, body.recipients) : null;
          const row = await updateGroup(q, auth.orgId, body.id, {
            name: name ?? null,
            notifications: body.notifications ?? null,
            recipients,
            enabled: body.enabled ?? null,
            language: body.language ?? null,
          });
          await audit(q, req, { action: 'update', entity: 'subscription_group', entityId: body.id, before, after: row as Record<string, unknown> });
          await appendEvents(q, [
            {
              orgId: auth.orgId,
              type: 'org',
              subtype: 'subscription_group_updated',
              subject: body.id,
              data: { enabled: (row as { enabled: boolean }).enabled },
            },
          ]);
          return row;
        });
      } catch (err) {
        if (isUniqueViolation(err)) throw nameTaken();
        throw err;
      }
    },
  }),
]);
