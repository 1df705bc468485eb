/**
 * The SQL of notification subscription groups (their calls: ./subscriptions.ts), and the telling of a task's end to
 * the groups that take it, in the transaction that ends the task (server/job/worker.ts).
 */
import { translate } from '../../common/i18n.js';
import type { Language } from '../../common/limits.js';
import type { SubscriptionChannel } from '../../common/subscriptions.js';
import type { Queryable } from '../db/db.js';
import { consoleLabel } from '../http/labels.js';

const COLUMNS = `id, channel, name, notifications, recipients, enabled, language, created_at AS "createdAt", updated_at AS "updatedAt"`;

/** The organisation's groups (of one channel, or all), by channel and age. */
export async function groupsOf(q: Queryable, orgId: string, channel: string | null) {
  return (
    await q.query(`SELECT ${COLUMNS} FROM subscription_groups WHERE org_id = $1 AND ($2::text IS NULL OR channel = $2) ORDER BY channel, created_at, id`, [
      orgId,
      channel,
    ])
  ).rows;
}

/** Lock the organisation for the transaction (one group made at a time) and count its groups of a channel. */
export async function lockAndCountGroups(q: Queryable, orgId: string, channel: SubscriptionChannel): Promise<number> {
  await q.query('SELECT id FROM organisations WHERE id = $1 FOR UPDATE', [orgId]);
  return (await q.query<{ n: number }>('SELECT count(*)::int AS n FROM subscription_groups WHERE org_id = $1 AND channel = $2', [orgId, channel])).rows[0].n;
}

export interface NewGroup {
  orgId: string;
  id: string;
  channel: SubscriptionChannel;
  name: string;
  notifications: string[];
  recipients: string[];
  enabled: boolean;
  language: Language;
  createdBy: string;
}

/** A new group, as the calls answer it (a name taken in the organisation fails with a unique violation). */
export async function insertGroup(q: Queryable, g: NewGroup) {
  return (
    await q.query(
      `INSERT INTO subscription_groups (org_id, id, channel, name, notifications, recipients, enabled, language, created_by)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING ${COLUMNS}`,
      [g.orgId, g.id, g.channel, g.name, g.notifications, g.recipients, g.enabled, g.language, g.createdBy],
    )
  ).rows[0] as Record<string, unknown>;
}

/** A group of the organisation, locked for the transaction; undefined when it has none by that id. */
export async function groupForUpdate(q: Queryable, orgId: string, id: string) {
  return (
    await q.query<{ channel: SubscriptionChannel } & Record<string, unknown>>(
      `SELECT ${COLUMNS} FROM subscription_groups WHERE org_id = $1 AND id = $2 FOR UPDATE`,
      [orgId, id],
    )
  ).rows[0];
}

/** Change a group: each field given (not null) replaces its value. */
export async function updateGroup(
  q: Queryable,
  orgId: string,
  id: string,
  c: { name: string | null; notifications: string[] | null; recipients: string[] | null; enabled: boolean | null; language: Language | null },
) {
  return (
    await q.query(
      `UPDATE subscription_groups SET name = coalesce($3, name), notifications = coalesce($4, notifications), recipients = coalesce($5, recipients),
              enabled = coalesce($6, enabled), language = coalesce($7, language), updated_at = now()
        WHERE org_id = $1 AND id = $2
        RETURNING ${COLUMNS}`,
      [orgId, id, c.name, c.notifications, c.recipients, c.enabled, c.language],
    )
  ).rows[0] as Record<string, unknown>;
}

/** What notifySubscribers needs of the task that ended. */
export interface EndedTask {
  id: string;
  org_id: string;
  kind: string;
}

/**
 * Tell the organisation's enabled groups that take this kind of notice that a task ended, in q's transaction (the one
 * that ends the task): e-mails into the outbox (the mailer sends those when SMTP is configured), SMS into sms_outbox.
 */
export async function notifySubscribers(q: Queryable, task: EndedTask, status: 'done' | 'issues'): Promise<void> {
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
    const params = {
      reference: ref,
      task: consoleLabel(g.language, `tasks.kinds.${task.kind}`) ?? task.kind,
      status: translate(g.language, `taskLog.status.${status}`),
    };
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
      task.org_id,
      sms.map((m) => m[0]),
      sms.map((m) => m[1]),
    ]);
  }
}
