/**
 * Webhooks: the `webhooks` consumer of the event log queues one delivery per event and enabled notification
 * key of its organisation (idempotent by event id, in the transaction that moves the consumer's cursor); a dispatcher
 * on every instance that runs jobs claims due deliveries under a lease and POSTs them, signed per Standard Webhooks
 * (./signing.ts), to the key's URL after checking its addresses again (./ssrf.ts): endpoints side by side, one
 * endpoint's deliveries in the order of their events (a retry can still overtake; the body carries the event's time).
 * A 2xx answer within 10 s is success; anything else is retried after 1 min, 5 min, 30 min, 2 h, 8 h and 24 h (±10 %
 * jitter), more than a day and a half in all. Every attempt is a row of notification_logs. A URL whose every delivery has failed for 3 days is disabled and
 * its owner told by mail. A dispatcher asked to stop claims nothing more and gives back at once what it claimed but
 * has not begun; a POST under way may end until the hand-back signal, and is then cut off and given back (lease
 * cleared, not counted as an attempt, nothing logged), so the next instance sends it at once, under the same message id.
 */
import type { FastifyBaseLogger } from 'fastify';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { translate } from '../../common/i18n.js';
import type { Language } from '../../common/limits.js';
import type { Db, Queryable } from '../db/db.js';
import { newId } from '../db/ids.js';
import type { DomainEvent } from '../events/event-log.js';
import type { Mailer } from '../identity/mailer.js';
import { signedHeaders } from './signing.js';
import { checkTarget, type CheckedTarget, type PrivateAllowance } from './ssrf.js';
import { whenAborted } from '../job/hand-back.js';

/** Waits after the 1st, 2nd, … failed attempt; after the last one the delivery has failed for good. */
export const RETRY_AFTER_MS = [60_000, 5 * 60_000, 30 * 60_000, 2 * 3_600_000, 8 * 3_600_000, 24 * 3_600_000];
export const ATTEMPT_TIMEOUT_MS = 10_000;
/** An endpoint failing this long is disabled and its owner told. */
export const DISABLE_AFTER_FAILING_MS = 3 * 86_400_000;
const RESPONSE_EXCERPT = 1024;
export const CONSUMER = 'webhooks';

/** The body every receiver gets: { type, subtype, timestamp, data }, timestamp the event's own time. */
export function eventBody(e: Pick<DomainEvent, 'type' | 'subtype' | 'at' | 'data'>): string {
  return JSON.stringify({ type: e.type, subtype: e.subtype, timestamp: e.at.toISOString(), data: e.data });
}

/** The event log consumer's work: one delivery per event and enabled key of the event's organisation. */
export async function queueDeliveries(events: DomainEvent[], q: Queryable): Promise<void> {
  if (!events.length) return;
  await q.query(
    `INSERT INTO webhook_deliveries (org_id, notification_key_id, event_id, message_id, event_type, subtype, body)
     SELECT e.org_id, k.id, e.id, 'evt_' || e.id, e.type, e.subtype, e.body
       FROM unnest($1::bigint[], $2::text[], $3::text[], $4::text[], $5::text[]) WITH ORDINALITY AS e(id, org_id, type, subtype, body, n)
       JOIN notification_keys k ON k.org_id = e.org_id AND k.status = 'enabled' AND k.webhook_url IS NOT NULL
      ORDER BY e.n, k.id
     ON CONFLICT (notification_key_id, event_id) WHERE event_id IS NOT NULL DO NOTHING`,
    [events.map((e) => e.id), events.map((e) => e.orgId), events.map((e) => e.type), events.map((e) => e.subtype), events.map(eventBody)],
  );
}

/** A test event for one key, tried once when the dispatcher next runs (or at once through deliverNow). */
export async function queueTest(q: Queryable, key: { orgId: string; id: string }, at: Date): Promise<string> {
  const body = JSON.stringify({ type: 'test', subtype: 'ping', timestamp: at.toISOString(), data: { message: 'A test event from the console.' } });
  const r = await q.query<{ id: string }>(
    `INSERT INTO webhook_deliveries (org_id, notification_key_id, message_id, event_type, subtype, body, retries)
     VALUES ($1, $2, $3, 'test', 'ping', $4, false) RETURNING id::text`,
    [key.orgId, key.id, `test_${newId(20)}`, body],
  );
  return r.rows[0].id;
}

/** A body of the caller's making (autoflow's try-it-out) for one key, tried once, as a test event is. */
export async function queueOnce(q: Queryable, key: { orgId: string; id: string }, message: { type: string; subtype: string; body: string }): Promise<string> {
  const r = await q.query<{ id: string }>(
    `INSERT INTO webhook_deliveries (org_id, notification_key_id, message_id, event_type, subtype, body, retries)
     VALUES ($1, $2, $3, $4, $5, $6, false) RETURNING id::text`,
    [key.orgId, key.id, `try_${newId(20)}`, message.type, message.subtype, message.body],
  );
  return r.rows[0].id;
}

/** A logged delivery sent again, as it was (same message id and body, so a receiver can recognise it), tried once. */
export async function queueReplay(q: Queryable, key: { orgId: string; id: string }, logId: string): Promise<string | null> {
  const r = await q.query<{ id: string }>(
    `INSERT INTO webhook_deliveries (org_id, notification_key_id, event_id, message_id, event_type, subtype, body, retries)
     SELECT l.org_id, $2, NULL, coalesce(l.message_id, 'log_' || l.id), l.event_type, l.subtype, l.payload::text, false
       FROM notification_logs l WHERE l.org_id = $1 AND l.id = $3::bigint
     RETURNING id::text`,
    [key.orgId, key.id, logId],
  );
  return r.rows[0]?.id ?? null;
}

interface DeliveryRow {
  id: string;
  org_id: string;
  notification_key_id: string;
  message_id: string;
  event_type: string;
  subtype: string | null;
  body: string;
  attempt: number;
  retries: boolean;
  webhook_url: string | null;
  key_status: string;
  secret: string;
  previous_secret: string | null;
  previous_valid: boolean;
}

export interface AttemptResult {
  logId: string;
  httpCode: number | null;
  error: string | null;
  delivered: boolean;
}

interface SendOutcome {
  httpCode: number | null;
  response: string | null;
  error: string | null;
  /** Cut off because the server is stopping: not an attempt. */
  handedBack?: boolean;
}

/**
 * POST the body to the checked address (TLS still verifies the URL's host name); at most ATTEMPT_TIMEOUT_MS, and no
 * longer than `cut` lets it (the server stopping).
 */
function post(target: CheckedTarget, headers: Record<string, string>, body: string, timeoutMs: number, cut: AbortSignal): Promise<SendOutcome> {
  // Connect to the address that was checked, not to whatever the name resolves to a moment later.
  // Node tries every address in turn when asked for all (autoSelectFamily), so a host with IPv6 and IPv4 addresses
  // (localhost: ::1 and 127.0.0.1) is reached on whichever listens.
  const pinned: LookupFunction = (_host, options, callback) => {
    if ((options as { all?: boolean }).all) (callback as (e: null, a: { address: string; family: number }[]) => void)(null, target.addresses);
    else callback(null, target.addresses[0].address, target.addresses[0].family);
  };
  return new Promise((resolve) => {
    let settled = false;
    const done = (o: SendOutcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      cut.removeEventListener('abort', onCut);
      resolve(o);
    };
    const req = https.request(
      target.url,
      {
        method: 'POST',
        lookup: pinned,
        // Passed on to the socket (Node's types omit it on requests).
        ...({ autoSelectFamily: true } as object),
        headers: { 'content-type': 'application/json', 'user-agent': 'IoT-Connect-Webhooks/1', ...headers, 'content-length': String(Buffer.byteLength(body)) },
      },
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (c: Buffer) => {
          if (size < RESPONSE_EXCERPT) chunks.push(c);
          size += c.length;
          if (size >= RESPONSE_EXCERPT) res.destroy();
        });
        const finish = () =>
          done({ httpCode: res.statusCode ?? null, response: Buffer.concat(chunks).toString('utf8').slice(0, RESPONSE_EXCERPT), error: null });
        res.on('end', finish);
        res.on('close', finish);
        res.on('error', finish);
      },
    );
    const timer = setTimeout(() => {
      done({ httpCode: null, response: null, error: `no answer within ${timeoutMs / 1000} s` });
      req.destroy();
    }, timeoutMs);
    const onCut = () => {
      done({ httpCode: null, response: null, error: null, handedBack: true });
      req.destroy();
    };
    if (cut.aborted) onCut();
    else cut.addEventListener('abort', onCut, { once: true });
    req.on('error', (err) => done({ httpCode: null, response: null, error: String(err.message).slice(0, 500) }));
    req.end(body);
  });
}

const PROBLEM_TEXT = {
  invalid: 'the URL is not valid',
  notHttps: 'the URL is not HTTPS',
  privateAddress: 'the host is a private, loopback or link-local address',
  unresolvable: 'the host name does not resolve',
};

export interface DispatcherOptions {
  /** Read at each attempt (WEBHOOK_ALLOW_PRIVATE; tests turn it off to see a delivery refused). */
  allowPrivate: () => PrivateAllowance;
  mailer: Mailer;
  timeoutMs?: number;
  pollMs?: number;
  batch?: number;
}

export class WebhookDispatcher {
  private readonly owner = `${process.pid}-${newId(8)}`;
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<number> | null = null;
  /** Set by stop(): nothing more is claimed, and what was claimed but not begun is given back. */
  private stopping = false;
  /** Aborted when the POSTs under way are to be cut off and given back. */
  private readonly cut = new AbortController();

  constructor(
    private readonly db: Db,
    private readonly log: FastifyBaseLogger,
    private readonly opts: DispatcherOptions,
  ) {}

  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => void this.tick(), this.opts.pollMs ?? 1000);
  }

  /**
   * Claim nothing more; the attempts under way may end until `handBack` aborts, and are then cut off and given back.
   * Resolves once nothing of this dispatcher's is under way.
   */
  async stop(handBack?: AbortSignal): Promise<void> {
    this.stopping = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    void whenAborted(handBack).then(() => this.cut.abort());
    await this.running?.catch(() => undefined);
  }

  /** Look for due deliveries now (the consumer has just queued some) instead of at the next poll. */
  wake(): void {
    if (this.timer) void this.tick();
  }

  private tick(): Promise<number> {
    if (!this.running) this.running = this.runOnce().finally(() => (this.running = null));
    return this.running;
  }

  /** Claim the deliveries due now (a batch at a time) and attempt each; returns how many were attempted. */
  async runOnce(): Promise<number> {
    let attempted = 0;
    for (;;) {
      if (this.stopping) return attempted;
      const due = await this.claim(null);
      if (!due.length) return attempted;
      // Endpoints side by side; one endpoint's deliveries one after another, in the order of their events.
      const byKey = new Map<string, DeliveryRow[]>();
      for (const d of due) byKey.set(d.notification_key_id, [...(byKey.get(d.notification_key_id) ?? []), d]);
      await Promise.all(
        [...byKey.values()].map(async (list) => {
          for (const d of list) {
            const tried = this.stopping ? this.giveBack(d) : this.attempt(d);
            await tried.catch((err) => this.log.error({ err, delivery: d.id }, 'webhook attempt failed to record'));
          }
        }),
      );
      attempted += due.length;
    }
  }

  /** Attempt one queued delivery now (a test event or a replay the developer is waiting for). */
  async deliverNow(deliveryId: string): Promise<AttemptResult | null> {
    const [d] = await this.claim(deliveryId);
    return d ? this.attempt(d) : null;
  }

  private async claim(only: string | null): Promise<DeliveryRow[]> {
    // RETURNING gives rows in no particular order: they are sorted again, so one endpoint's deliveries are sent in the
    // order of their events (a SIM's changes in the order they happened).
    const r = await this.db.query<DeliveryRow>(
      `WITH claimed AS (
         UPDATE webhook_deliveries d SET lease_owner = $1, lease_until = now() + interval '60 seconds', updated_at = now()
           FROM notification_keys k
          WHERE k.id = d.notification_key_id AND d.id IN (
            SELECT id FROM webhook_deliveries
             WHERE status = 'pending' AND (lease_until IS NULL OR lease_until < now())
               AND ($3::bigint IS NULL AND next_at <= now() OR id = $3::bigint)
             ORDER BY next_at, id LIMIT $2 FOR UPDATE SKIP LOCKED)
          RETURNING d.id, d.next_at, d.org_id, d.notification_key_id, d.message_id, d.event_type, d.subtype, d.body, d.attempt, d.retries,
                    k.webhook_url, k.status AS key_status, k.secret, k.previous_secret, coalesce(k.previous_until > now(), false) AS previous_valid)
       SELECT id::text, org_id, notification_key_id, message_id, event_type, subtype, body, attempt, retries,
              webhook_url, key_status, secret, previous_secret, previous_valid
         FROM claimed ORDER BY claimed.next_at, claimed.id`,
      [this.owner, only ? 1 : (this.opts.batch ?? 20), only],
    );
    return r.rows;
  }

  private async attempt(d: DeliveryRow): Promise<AttemptResult> {
    const attempt = d.attempt + 1;
    const started = Date.now();
    let outcome: SendOutcome;
    let url = d.webhook_url ?? '';
    if (d.key_status !== 'enabled' && d.retries) {
      // The key was switched off after this was queued: nothing is sent.
      await this.db.query(`UPDATE webhook_deliveries SET status = 'failed', lease_owner = NULL, lease_until = NULL, updated_at = now() WHERE id = $1`, [d.id]);
      return { logId: '', httpCode: null, error: 'the webhook is disabled', delivered: false };
    }
    const checked = d.webhook_url ? await checkTarget(d.webhook_url, this.opts.allowPrivate()) : ({ ok: false, problem: 'invalid' } as const);
    if (!checked.ok) {
      outcome = { httpCode: null, response: null, error: `not sent: ${PROBLEM_TEXT[checked.problem]}` };
    } else {
      url = checked.target.url.toString();
      const secrets = [d.secret, ...(d.previous_secret && d.previous_valid ? [d.previous_secret] : [])];
      outcome = await post(
        checked.target,
        signedHeaders(secrets, d.message_id, d.body, new Date()),
        d.body,
        this.opts.timeoutMs ?? ATTEMPT_TIMEOUT_MS,
        this.cut.signal,
      );
    }
    if (outcome.handedBack) return this.giveBack(d);
    const delivered = outcome.httpCode !== null && outcome.httpCode >= 200 && outcome.httpCode < 300;
    const retryIn = RETRY_AFTER_MS[attempt - 1];
    const next = !delivered && d.retries && retryIn !== undefined ? Math.round(retryIn * (0.9 + Math.random() * 0.2)) : null;
    const status = delivered ? 'delivered' : next === null ? 'failed' : 'pending';
    const logId = await this.db.tx(async (q) => {
      const log = await q.query<{ id: string }>(
        `INSERT INTO notification_logs (org_id, notification_key_id, url, event_type, subtype, payload, http_code, response, attempt, delivery_id, message_id, duration_ms, error)
         VALUES ($1, $2, $3, $4, $5, $6::jsonb, $7, $8, $9, $10, $11, $12, $13) RETURNING id::text`,
        [
          d.org_id,
          d.notification_key_id,
          url.slice(0, 2048),
          d.event_type,
          d.subtype,
          d.body,
          outcome.httpCode,
          outcome.response,
          attempt,
          d.id,
          d.message_id,
          Date.now() - started,
          outcome.error,
        ],
      );
      await q.query(
        `UPDATE webhook_deliveries SET attempt = $2, status = $3, next_at = CASE WHEN $4::int IS NULL THEN next_at ELSE now() + make_interval(secs => $4::int / 1000.0) END,
                lease_owner = NULL, lease_until = NULL, updated_at = now()
          WHERE id = $1 AND lease_owner = $5`,
        [d.id, attempt, status, next, this.owner],
      );
      // Only an event's deliveries speak for the endpoint's health: a developer's test of a URL being set up does not.
      if (d.retries) await this.health(q, d, delivered);
      return log.rows[0].id;
    });
    this.log.info({ delivery: d.id, attempt, httpCode: outcome.httpCode, error: outcome.error ?? undefined, status }, 'webhook attempt');
    return { logId, httpCode: outcome.httpCode, error: outcome.error, delivered };
  }

  /** Give a claimed delivery back untried (the server is stopping): its lease cleared, its attempts as they were. */
  private async giveBack(d: DeliveryRow): Promise<AttemptResult> {
    await this.db.query('UPDATE webhook_deliveries SET lease_owner = NULL, lease_until = NULL, updated_at = now() WHERE id = $1 AND lease_owner = $2', [
      d.id,
      this.owner,
    ]);
    this.log.info({ delivery: d.id, attempt: d.attempt + 1 }, 'webhook attempt handed back: the server is stopping');
    return { logId: '', httpCode: null, error: 'handed back: the server is stopping', delivered: false };
  }

  /** A success clears the failing mark; a failure sets it, and after 3 days of failures disables the key and tells its owner. */
  private async health(q: Queryable, d: DeliveryRow, delivered: boolean): Promise<void> {
    if (delivered) {
      await q.query('UPDATE notification_keys SET failing_since = NULL WHERE id = $1 AND failing_since IS NOT NULL', [d.notification_key_id]);
      return;
    }
    const r = await q.query<{ disabled: boolean; email: string; locale: Language; url: string; org_code: string }>(
      `WITH old AS (SELECT id, status, failing_since FROM notification_keys WHERE id = $1 FOR UPDATE),
            judged AS (SELECT id, status, old.failing_since IS NOT NULL AND old.failing_since <= now() - make_interval(secs => $2::int / 1000.0) AS too_long FROM old)
       UPDATE notification_keys k SET failing_since = coalesce(k.failing_since, now()),
              status = CASE WHEN j.too_long THEN 'disabled' ELSE k.status END,
              disabled_reason = CASE WHEN j.too_long THEN 'failing' ELSE k.disabled_reason END,
              updated_at = now()
         FROM judged j, accounts a, organisations o
        WHERE k.id = j.id AND a.id = k.account_id AND o.id = k.org_id
        RETURNING (j.status = 'enabled' AND j.too_long) AS disabled, a.email, a.locale, k.webhook_url AS url, o.code AS org_code`,
      [d.notification_key_id, DISABLE_AFTER_FAILING_MS],
    );
    const row = r.rows[0];
    if (!row?.disabled) return;
    // Disabled by this failure: what is still queued for the URL is not sent, and the owner hears why.
    await q.query(`UPDATE webhook_deliveries SET status = 'failed', updated_at = now() WHERE notification_key_id = $1 AND status = 'pending'`, [
      d.notification_key_id,
    ]);
    await this.opts.mailer.send(
      {
        to: row.email,
        kind: 'notice',
        subject: translate(row.locale, 'mail.webhookDisabledSubject'),
        text: translate(row.locale, 'mail.webhookDisabledBody', { url: row.url, org: row.org_code, days: 3 }),
      },
      q,
    );
  }
}
