/**
 * Notification subscription groups (SPEC.md section 7, Jobs: GET, PUT and POST /rest/subscribe/group, with the SMS
 * variant): who in the organisation hears of which of its tasks' ends, by e-mail or by SMS. The groups are the
 * organisation's, kept by its administrators (the permission file's "subscription"); a task's end is told to them in
 * the transaction that ends it (server/job/worker.ts), e-mail through the mailer's outbox, SMS into sms_outbox for the
 * gateway (docs/decisions.md "Notification subscription groups").
 */
import { CODES } from '../../common/errors.js';
import { translate } from '../../common/i18n.js';
import { EMAIL_PATTERN, LIMITS, type Language } from '../../common/limits.js';
import { checkMsisdn } from '../../common/msisdn.js';
import { GROUP_NAME, GROUPS_MAX, NOTIFICATION_KINDS, RECIPIENTS_MAX, SUBSCRIPTION_CHANNELS, type SubscriptionChannel } from '../../common/subscriptions.js';
import type { Queryable } from '../db/db.js';
import { newId } from '../db/ids.js';
import { ApiError, invalid, notFound } from '../http/api-error.js';
import { audit } from '../http/audit.js';
import { defineRoutes } from '../http/route.js';
import { arrayOf, listOf, obj, subjectRoutes, typed } from '../http/shapes.js';
import { appendEvents } from '../events/event-log.js';
import { consoleLabel } from '../http/labels.js';
import type { TaskRow } from './worker.js';

const CHANNEL = { type: 'string', enum: [...SUBSCRIPTION_CHANNELS] };
const TEXTS = arrayOf({ type: 'string' });
const TIME = { type: 'string', format: 'date-time' };
const GROUP = typed({ id: 'string', channel: CHANNEL, name: 'string', notifications: TEXTS, recipients: TEXTS, enabled: 'boolean', language: 'string', createdAt: TIME, updatedAt: TIME });

const fields = {
  name: { type: 'string', minLength: GROUP_NAME.min, maxLength: GROUP_NAME.max },
  notifications: { type: 'array', minItems: 1, maxItems: NOTIFICATION_KINDS.length, uniqueItems: true, items: { type: 'string', enum: [...NOTIFICATION_KINDS] } },
  // E-mail addresses or numbers: each checked by the channel's rule in the handler.
  recipients: { type: 'array', minItems: 1, maxItems: RECIPIENTS_MAX, items: { type: 'string', minLength: 1, maxLength: LIMITS.email } },
  enabled: { type: 'boolean' },
  language: { type: 'string', enum: ['en-US', 'zh-CN', 'zh-TW', 'es-ES'] },
} as const;

const SELECT = `SELECT id, channel, name, notifications, recipients, enabled, language, created_at AS "createdAt", updated_at AS "updatedAt" FROM subscription_groups`;

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
      const r = await req.server.db.query(`${SELECT} WHERE org_id = $1 AND ($2::text IS NULL OR channel = $2) ORDER BY channel, created_at, id`, [auth.orgId, channel ?? null]);
      return { items: r.rows, kinds: [...NOTIFICATION_KINDS], max: GROUPS_MAX };
    },
  }),
  route('POST', '/rest/subscribe/group', 'create', {
    summary: 'Create a notification subscription group',
    schema: { body: obj({ channel: CHANNEL, ...fields }, ['channel', 'name', 'notifications', 'recipients']), response: GROUP },
    handler: async (req) => {
      const auth = req.requireAuth();
      const body = req.body as { channel: SubscriptionChannel; name: string; notifications: string[]; recipients: string[]; enabled?: boolean; language?: Language };
      const name = body.name.trim();
      if (!name) throw invalid('name', 'required');
      const recipients = cleanRecipients(body.channel, body.recipients);
      const id = newId();
      try {
        return await req.server.db.tx(async (q) => {
          // One group at a time per organisation: the count and the insert cannot race past the cap.
          await q.query('SELECT id FROM organisations WHERE id = $1 FOR UPDATE', [auth.orgId]);
          const n = (await q.query<{ n: number }>('SELECT count(*)::int AS n FROM subscription_groups WHERE org_id = $1 AND channel = $2', [auth.orgId, body.channel])).rows[0].n;
          if (n >= GROUPS_MAX) throw new ApiError(400, CODES.validation, { field: 'name', max: GROUPS_MAX }, 'errors.subscriptionGroupsFull', { field: 'name', rule: 'maxItems' });
          const row = (
            await q.query(
              `INSERT INTO subscription_groups (org_id, id, channel, name, notifications, recipients, enabled, language, created_by)
               VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING id, channel, name, notifications, recipients, enabled, language, created_at AS "createdAt", updated_at AS "updatedAt"`,
              [auth.orgId, id, body.channel, name, body.notifications, recipients, body.enabled ?? true, body.language ?? req.lang, auth.accountId],
            )
          ).rows[0];
          await audit(q, req, { action: 'create', entity: 'subscription_group', entityId: id, after: row as Record<string, unknown> });
          await appendEvents(q, [{ orgId: auth.orgId, type: 'org', subtype: 'subscription_group_created', subject: id, data: { channel: body.channel, notifications: body.notifications } }]);
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
          const before = (await q.query<{ channel: SubscriptionChannel } & Record<string, unknown>>(`${SELECT} WHERE org_id = $1 AND id = $2 FOR UPDATE`, [auth.orgId, body.id])).rows[0];
          if (!before) throw notFound('subscriptionGroup', body.id);
          const recipients = body.recipients ? cleanRecipients(before.channel, body.recipients) : null;
          const row = (
            await q.query(
              `UPDATE subscription_groups SET name = coalesce($3, name), notifications = coalesce($4, notifications), recipients = coalesce($5, recipients),
                      enabled = coalesce($6, enabled), language = coalesce($7, language), updated_at = now()
                WHERE org_id = $1 AND id = $2
                RETURNING id, channel, name, notifications, recipients, enabled, language, created_at AS "createdAt", updated_at AS "updatedAt"`,
              [auth.orgId, body.id, name ?? null, body.notifications ?? null, recipients, body.enabled ?? null, body.language ?? null],
            )
          ).rows[0];
          await audit(q, req, { action: 'update', entity: 'subscription_group', entityId: body.id, before, after: row as Record<string, unknown> });
          await appendEvents(q, [{ orgId: auth.orgId, type: 'org', subtype: 'subscription_group_updated', subject: body.id, data: { enabled: (row as { enabled: boolean }).enabled } }]);
          return row;
        });
      } catch (err) {
        if (isUniqueViolation(err)) throw nameTaken();
        throw err;
      }
    },
  }),
]);

/**
 * Tell the organisation's enabled groups that take this kind of notice that a task ended, in q's transaction (the one
 * that ends the task): e-mails into the outbox (the mailer sends those when SMTP is configured), SMS into sms_outbox.
 */
export async function notifySubscribers(q: Queryable, task: TaskRow, status: 'done' | 'issues'): Promise<void> {
  const kind = status === 'done' ? 'task_done' : 'task_issues';
  const groups = (
    await q.query<{ channel: SubscriptionChannel; recipients: string[]; language: Language }>(
      `SELECT channel, recipients, language FROM subscription_groups WHERE org_id = $1 AND enabled AND $2 = ANY(notifications)`,
      [task.org_id, kind],
    )
  ).rows;
  if (!groups.length) return;
  const ref = (await q.query<{ reference_id: string }>('SELECT reference_id FROM tasks WHERE id = $1', [task.id])).rows[0]?.reference_id ?? task.id;
  const mails: Array<[string, string, string]> = [];
  const sms: Array<[string, string]> = [];
  for (const g of groups) {
    const params = { reference: ref, task: consoleLabel(g.language, `tasks.kinds.${task.kind}`) ?? task.kind, status: translate(g.language, `taskLog.status.${status}`) };
    const subject = translate(g.language, 'mail.taskEndedSubject', params);
    for (const r of g.recipients) {
      if (g.channel === 'email') mails.push([r, subject, translate(g.language, 'mail.taskEndedBody', params)]);
      else sms.push([r, subject.slice(0, 140)]);
    }
  }
  if (mails.length) {
    await q.query(
      `INSERT INTO outbox (to_address, subject, body, kind) SELECT x.a, x.s, x.b, 'notice' FROM unnest($1::text[], $2::text[], $3::text[]) AS x(a, s, b)`,
      [mails.map((m) => m[0]), mails.map((m) => m[1]), mails.map((m) => m[2])],
    );
  }
  if (sms.length) {
    await q.query(`INSERT INTO sms_outbox (org_id, to_msisdn, body, kind) SELECT $1, x.t, x.b, 'notice' FROM unnest($2::text[], $3::text[]) AS x(t, b)`, [
      task.org_id, sms.map((m) => m[0]), sms.map((m) => m[1]),
    ]);
  }
}
