/**
 * The SQL of SMS (SPEC.md section 7): the All SMS list's spec (thread heads, filtered and sorted by server/db/listing.ts),
 * the replies under each listed message, and the look-ups of sending and replying. Every query names the organisation.
 */
import { LIMITS } from '../../common/limits.js';
import type { Queryable } from '../db/db.js';
import { checkSpec, type ListSpec } from '../db/listing.js';

/** The fields the All SMS list sorts by. */
export const SORTABLE = ['createdAt', 'iccid', 'msisdn', 'direction', 'status'] as const;

/**
 * The first message of a thread: one that answers nothing, or answers a message more than 24 hours older (SPEC.md
 * section 9: replies are shown within 24 hours; a later answer stands on its own).
 */
const THREAD_HEAD = `m.reply_to_id IS NULL OR NOT EXISTS (SELECT 1 FROM sms_records p WHERE p.org_id = m.org_id AND p.id = m.reply_to_id
  AND m.created_at <= p.created_at + make_interval(hours => ${LIMITS.replyWindowHours}))`;

export const COLUMNS: Record<string, string> = {
  id: 'm.id',
  createdAt: 'm.created_at',
  iccid: 'm.iccid',
  msisdn: 'm.msisdn',
  direction: 'm.direction',
  content: 'm.content',
  smsType: 'm.sms_type',
  status: 'm.status',
  error: 'm.error',
  sentAt: 'm.sent_at',
  deliveredAt: 'm.delivered_at',
  replyToId: 'm.reply_to_id',
  accountId: 'm.account_id',
  accountName: `nullif(trim(coalesce(a.first_name, '') || ' ' || coalesce(a.last_name, '')), '')`,
  scheduleId: 'm.schedule_id',
  scheduleName: 'sc.name',
};

/** The All SMS list: the organisation's thread heads, filtered and sorted in SQL (server/db/listing.ts). */
export const SMS_LIST_SPEC: ListSpec = checkSpec({
  from: 'sms_records m LEFT JOIN accounts a ON a.id = m.account_id LEFT JOIN sms_schedules sc ON sc.id = m.schedule_id',
  orgColumn: 'm.org_id',
  idColumn: 'm.id',
  columns: COLUMNS,
  sortable: [...SORTABLE],
  filters: {
    direction: { kind: 'eq', column: 'm.direction' },
    status: { kind: 'eq', column: 'm.status' },
    createdAt: { kind: 'range', column: 'm.created_at' },
    iccidSuffix: { kind: 'suffix', column: 'm.iccid' },
    msisdnSuffix: { kind: 'suffix', column: 'm.msisdn' },
    content: { kind: 'substring', column: 'm.content' },
  },
  defaultSort: { field: 'createdAt', order: 'desc' },
  where: THREAD_HEAD,
});

/** A message as the list answers it. */
export type SmsRow = Record<string, unknown> & { id: string };

const SELECT = Object.entries(COLUMNS)
  .map(([f, e]) => `${e} AS "${f}"`)
  .join(', ');

/** The answers to these messages within LIMITS.replyWindowHours of each, oldest first (at most 1000). */
export async function repliesTo(q: Queryable, orgId: string, parents: string[]): Promise<SmsRow[]> {
  return (
    await q.query<SmsRow>(
      `SELECT ${SELECT} FROM sms_records m JOIN sms_records p ON p.id = m.reply_to_id AND p.org_id = m.org_id
         LEFT JOIN accounts a ON a.id = m.account_id LEFT JOIN sms_schedules sc ON sc.id = m.schedule_id
        WHERE m.org_id = $1 AND m.reply_to_id = ANY($2::text[]) AND m.created_at <= p.created_at + make_interval(hours => $3)
        ORDER BY m.created_at, m.id LIMIT 1000`,
      [orgId, parents, LIMITS.replyWindowHours],
    )
  ).rows;
}

/** The organisation's SIMs with these numbers. */
export async function simsByMsisdn(q: Queryable, orgId: string, msisdns: string[]) {
  return (await q.query<{ iccid: string; msisdn: string }>('SELECT iccid, msisdn FROM sims WHERE org_id = $1 AND msisdn = ANY($2::text[])', [orgId, msisdns]))
    .rows;
}

/** A message's SIM and direction; undefined for another organisation's. */
export async function smsRecordHead(q: Queryable, orgId: string, id: string) {
  return (await q.query<{ iccid: string; direction: string }>('SELECT iccid, direction FROM sms_records WHERE org_id = $1 AND id = $2', [orgId, id])).rows[0];
}
