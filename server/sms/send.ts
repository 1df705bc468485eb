/**
 * Sending MT SMS to a batch of the organisation's SIMs: the one path for instant sends, replies and scheduled runs.
 *
 * 1. The content is checked (common/sms.ts; a 400 "content does not comply" for the whole request).
 * 2. In one transaction: the SIMs are looked up in the organisation, refused SIM by SIM (does not exist, or a state
 *    that cannot receive SMS), the quota is taken for the rest under the organisation's row lock (what it cannot
 *    cover is refused as exhausted), and the accepted SMS are stored as pending in one set-based insert. Either all
 *    of this lands or none of it.
 * 3. The stored SMS are handed to the network adapter (outside the transaction: the network is slow and remote).
 * 4. In one transaction: the accepted ones become sent and are counted in the usage rollups; the ones the network
 *    refused become failed, with their quota units given back.
 * Delivery comes later as the network's reports (server/network-reports/network-reports.ts): delivered or failed, each an event of the
 * event log (015_event_log.sql), which webhooks carry.
 *
 * A process that dies between 2 and 4 leaves its SMS pending with their units taken: they were stored but maybe not
 * handed over, and are never sent twice by this function.
 */
import { translate } from '../../common/i18n.js';
import type { Language } from '../../common/limits.js';
import { SMS_RECEIVING_STATUSES, type SmsRefusal, type SmsType } from '../../common/sms.js';
import type { Db, Queryable } from '../db/db.js';
import { newId } from '../db/ids.js';
import type { CommandAnswer, NetworkAdapter, SimRef } from '../network/adapter.js';
import { assertSmsContent } from './content.js';
import { takeSmsQuota, returnSmsQuota, type SmsQuota } from './quota.js';

/** The network is asked this many SIMs at a time. */
const HANDOFF_PARALLEL = 50;

export interface SendSmsBatchInput {
  orgId: string;
  /** The account that sends (null for the system, e.g. a schedule without an owner). */
  accountId: string | null;
  /** The scheduled SMS task whose run this is. */
  scheduleId?: string | null;
  /** The SMS (an MO) this one answers: POST /sms/reply. */
  replyToId?: string | null;
  /** Target SIMs by ICCID; duplicates are sent once. At most what the caller allows (1000 for a request). */
  iccids: string[];
  content: string;
  smsType: SmsType;
  /** Language of the refusal messages (default en-US). */
  lang?: Language;
}

export interface SmsSendResult {
  iccid: string;
  /** Stored and handed to the network. */
  ok: boolean;
  /** The SMS record (also for one the network refused at hand-off, which is stored as failed). */
  smsId?: string;
  status?: 'sent' | 'failed';
  reason?: SmsRefusal;
  message?: string;
}

export interface SendSmsBatchResult {
  /** One per distinct ICCID, in the order given. */
  results: SmsSendResult[];
  accepted: number;
  refused: number;
  /** The organisation's quota after the send. */
  quota: SmsQuota;
}

interface SimRow {
  id: string;
  iccid: string;
  imsi: string | null;
  msisdn: string | null;
  status: string;
}

/** The message of a refusal in lang. */
export const refusalMessage = (lang: Language, reason: SmsRefusal, params: Record<string, unknown> = {}): string =>
  translate(lang, `errors.sms.refusal.${reason}`, params);

/**
 * Send content to the organisation's SIMs named by iccids: refused SIM by SIM, stored and handed to the network for
 * the rest (see the file's comment). Throws an ApiError (400) when the content does not comply.
 */
export async function sendSmsBatch(db: Db, network: NetworkAdapter, input: SendSmsBatchInput): Promise<SendSmsBatchResult> {
  const lang = input.lang ?? 'en-US';
  const { content } = assertSmsContent(input.content, input.smsType);
  const iccids = [...new Set(input.iccids)];
  const results = new Map<string, SmsSendResult>();
  const refuse = (iccid: string, reason: SmsRefusal, smsId?: string) =>
    results.set(iccid, { iccid, ok: false, reason, message: refusalMessage(lang, reason), ...(smsId ? { smsId, status: 'failed' as const } : {}) });

  const stored = await db.tx(async (q) => {
    const sims = iccids.length
      ? new Map(
          (
            await q.query<SimRow>('SELECT id, iccid, imsi, msisdn, status FROM sims WHERE org_id = $1 AND iccid = ANY($2::text[])', [input.orgId, iccids])
          ).rows.map((s) => [s.iccid, s]),
        )
      : new Map<string, SimRow>();
    const eligible: SimRow[] = [];
    for (const iccid of iccids) {
      const sim = sims.get(iccid);
      if (!sim) refuse(iccid, 'notExist');
      else if (!SMS_RECEIVING_STATUSES.includes(sim.status)) refuse(iccid, sim.status as SmsRefusal);
      else eligible.push(sim);
    }
    const { granted, after } = await takeSmsQuota(q, input.orgId, eligible.length);
    for (const sim of eligible.slice(granted)) refuse(sim.iccid, 'quotaExhausted');
    const accepted = eligible.slice(0, granted).map((sim) => ({ sim, smsId: newId() }));
    if (accepted.length) {
      await q.query(
        `INSERT INTO sms_records (org_id, id, sim_id, iccid, msisdn, direction, content, sms_type, status, account_id, schedule_id, reply_to_id)
         SELECT $1, u.id, u.sim_id, u.iccid, u.msisdn, 'MT', $2, $3, 'pending', $4, $5, $6
           FROM unnest($7::text[], $8::text[], $9::text[], $10::text[]) AS u(id, sim_id, iccid, msisdn)`,
        [
          input.orgId,
          content,
          input.smsType,
          input.accountId,
          input.scheduleId ?? null,
          input.replyToId ?? null,
          accepted.map((a) => a.smsId),
          accepted.map((a) => a.sim.id),
          accepted.map((a) => a.sim.iccid),
          accepted.map((a) => a.sim.msisdn),
        ],
      );
    }
    return { accepted, quota: after };
  });

  const answers = await handOff(
    network,
    content,
    stored.accepted.map((a) => ({ ref: refOf(input.orgId, a.sim), smsId: a.smsId })),
  );
  const sent = stored.accepted.filter((a) => answers.get(a.smsId)?.ok);
  const failed = stored.accepted.filter((a) => !answers.get(a.smsId)?.ok);
  let quota = stored.quota;
  if (stored.accepted.length) {
    await db.tx(async (q) => {
      const at = new Date();
      if (sent.length) {
        await q.query(`UPDATE sms_records SET status = 'sent', sent_at = $3 WHERE org_id = $1 AND id = ANY($2::text[]) AND status = 'pending'`, [
          input.orgId,
          sent.map((a) => a.smsId),
          at.toISOString(),
        ]);
        await countMtSms(
          q,
          input.orgId,
          sent.map((a) => a.sim),
          at,
        );
      }
      if (failed.length) {
        await q.query(
          `UPDATE sms_records m SET status = 'failed', error = u.error FROM unnest($2::text[], $3::text[]) AS u(id, error)
            WHERE m.org_id = $1 AND m.id = u.id AND m.status = 'pending'`,
          [input.orgId, failed.map((a) => a.smsId), failed.map((a) => answers.get(a.smsId)?.error ?? 'Refused by the network')],
        );
        await returnSmsQuota(q, input.orgId, failed.length);
        quota = { ...quota, used: quota.used - failed.length, remaining: Math.max(0, quota.quota - (quota.used - failed.length)) };
      }
    });
  }
  for (const a of sent) results.set(a.sim.iccid, { iccid: a.sim.iccid, ok: true, smsId: a.smsId, status: 'sent' });
  for (const a of failed) refuse(a.sim.iccid, 'network', a.smsId);
  const list = iccids.map((i) => results.get(i)!);
  return { results: list, accepted: sent.length, refused: list.length - sent.length, quota };
}

const refOf = (orgId: string, s: SimRow): SimRef => ({ orgId, simId: s.id, iccid: s.iccid, imsi: s.imsi, msisdn: s.msisdn });

/** Ask the network to send each stored SMS, HANDOFF_PARALLEL at a time; an adapter that throws refuses that SMS. */
async function handOff(network: NetworkAdapter, content: string, items: Array<{ ref: SimRef; smsId: string }>): Promise<Map<string, CommandAnswer>> {
  const answers = new Map<string, CommandAnswer>();
  for (let i = 0; i < items.length; i += HANDOFF_PARALLEL) {
    const chunk = items.slice(i, i + HANDOFF_PARALLEL);
    const got = await Promise.all(
      chunk.map((it) =>
        network.sendSms(it.ref, { id: it.smsId, content }).catch((err: Error): CommandAnswer => ({ iccid: it.ref.iccid, ok: false, error: err.message })),
      ),
    );
    chunk.forEach((it, k) => answers.set(it.smsId, got[k]));
  }
  return answers;
}

/** Count MT SMS (one per SIM) in the UTC day and hour rollups, set-based (server/network-reports/network-reports.ts countSms, for many). */
async function countMtSms(q: Queryable, orgId: string, sims: SimRow[], at: Date): Promise<void> {
  const iso = at.toISOString();
  await q.query(
    `INSERT INTO usage_daily (org_id, sim_id, day, iccid, sms_mo, sms_mt)
     SELECT $1, u.sim_id, $2::date, u.iccid, 0, count(*)::int FROM unnest($3::text[], $4::text[]) AS u(sim_id, iccid) GROUP BY u.sim_id, u.iccid
     ON CONFLICT (org_id, sim_id, day) DO UPDATE SET sms_mt = usage_daily.sms_mt + EXCLUDED.sms_mt`,
    [orgId, iso.slice(0, 10), sims.map((s) => s.id), sims.map((s) => s.iccid)],
  );
  await q.query(
    `INSERT INTO usage_hourly (org_id, hour, sms_mo, sms_mt) VALUES ($1, date_trunc('hour', $2::timestamptz AT TIME ZONE 'UTC') AT TIME ZONE 'UTC', 0, $3)
     ON CONFLICT (org_id, hour) DO UPDATE SET sms_mt = usage_hourly.sms_mt + EXCLUDED.sms_mt`,
    [orgId, iso, sims.length],
  );
}
