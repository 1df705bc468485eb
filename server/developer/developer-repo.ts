/**
 * The SQL of the developer pages (SPEC.md section 7, Developer): API keys, notification keys and their
 * webhooks, and the two logs. A developer's keys are their own: every query names the organisation and the account.
 */
import type { Db, Queryable } from '../db/db.js';
import { newId } from '../db/ids.js';

const API_KEY_COLUMNS = `id, key_id AS "keyId", name, created_at AS "createdAt", last_used_at AS "lastUsedAt"`;

/** A key not revoked, by the key id its tokens name as issuer (the public API's authentication). */
export async function liveApiKey(q: Queryable, keyId: string) {
  return (
    await q.query<{ id: string; org_id: string; account_id: string; public_key: string }>(
      'SELECT id, org_id, account_id, public_key FROM api_keys WHERE key_id = $1 AND revoked_at IS NULL',
      [keyId],
    )
  ).rows[0];
}

/** A developer's API keys, newest first. */
export async function apiKeysOf(q: Queryable, orgId: string, accountId: string) {
  return (await q.query(`SELECT ${API_KEY_COLUMNS} FROM api_keys WHERE org_id = $1 AND account_id = $2 ORDER BY created_at DESC, id`, [orgId, accountId])).rows;
}

/** Lock a developer's API keys for the transaction and count them (so two calls at once cannot both take the last place). */
export async function lockApiKeys(q: Queryable, orgId: string, accountId: string): Promise<number> {
  return (await q.query(`SELECT id FROM api_keys WHERE org_id = $1 AND account_id = $2 FOR UPDATE`, [orgId, accountId])).rows.length;
}

/** A new API key with its public half. */
export async function insertApiKey(q: Queryable, orgId: string, accountId: string, name: string | null, publicKey: string) {
  return (
    await q.query<{ id: string; keyId: string }>(
      `INSERT INTO api_keys (org_id, id, account_id, name, key_id, public_key) VALUES ($1, $2, $3, $4, $5, $6) RETURNING ${API_KEY_COLUMNS}`,
      [orgId, newId(), accountId, name, newId(24), publicKey],
    )
  ).rows[0];
}

/** Delete a developer's own API key; its key id, or undefined when it was not theirs. */
export async function deleteApiKey(q: Queryable, orgId: string, accountId: string, id: string): Promise<string | undefined> {
  return (await q.query<{ key_id: string }>('DELETE FROM api_keys WHERE org_id = $1 AND account_id = $2 AND id = $3 RETURNING key_id', [orgId, accountId, id]))
    .rows[0]?.key_id;
}

/** The window and page of a log call. */
export interface LogAsk {
  page?: number;
  pageSize?: number;
  from?: string;
  to?: string;
}

/** A page of the organisation's public API calls (every key's), newest first, with equality filters. */
export function apiLogPage(db: Db, orgId: string, b: LogAsk & { httpCode?: number; method?: string; traceId?: string }) {
  return logPage(db, orgId, b, {
    table: 'api_logs',
    columns: `id::text, api_key_id AS "apiKeyId", ip, trace_id AS "traceId", at, http_code AS "httpCode", method, path, headers, body, response, duration_ms AS "durationMs"`,
    time: 'at',
    where: ['($4::int IS NULL OR http_code = $4)', '($5::text IS NULL OR method = $5)', '($6::text IS NULL OR trace_id = $6)'],
    params: [b.httpCode ?? null, b.method ?? null, b.traceId ?? null],
  });
}

/** A page of the organisation's webhook deliveries, newest first: by event, subtype, HTTP code, or failed (not 2xx). */
export function notificationLogPage(db: Db, orgId: string, b: LogAsk & { eventType?: string; subtype?: string; httpCode?: number; failed?: boolean }) {
  return logPage(db, orgId, b, {
    table: 'notification_logs',
    columns: `id::text, notification_key_id AS "notificationKeyId", url, event_type AS "eventType", subtype, payload, sent_at AS "sentAt",
              http_code AS "httpCode", response, error, attempt, message_id AS "messageId", duration_ms AS "durationMs"`,
    time: 'sent_at',
    where: [
      '($4::text IS NULL OR event_type = $4)',
      '($5::text IS NULL OR subtype = $5)',
      '($6::int IS NULL OR http_code = $6)',
      '($7::boolean IS NULL OR (http_code IS NOT NULL AND http_code BETWEEN 200 AND 299) <> $7)',
    ],
    params: [b.eventType ?? null, b.subtype ?? null, b.httpCode ?? null, b.failed ?? null],
  });
}

const KEY_COLUMNS = `id, key_id AS "keyId", account_id AS "accountId", secret, previous_until AS "previousSecretUntil", webhook_url AS "webhookUrl",
  status, disabled_reason AS "disabledReason", failing_since AS "failingSince", created_at AS "createdAt", updated_at AS "updatedAt"`;

/** A notification key as the handlers decide on it (the answer has all of KEY_COLUMNS). */
export interface NotificationKeyRow {
  id: string;
  accountId: string;
  webhookUrl: string | null;
  status: string;
}

/** A developer's own notification key by id, locked for the transaction; undefined for anyone else's. */
export async function lockOwnNotificationKey(q: Queryable, orgId: string, accountId: string, id: string): Promise<NotificationKeyRow | undefined> {
  return (
    await q.query<NotificationKeyRow>(`SELECT ${KEY_COLUMNS} FROM notification_keys WHERE org_id = $1 AND id = $2 AND account_id = $3 FOR UPDATE`, [
      orgId,
      id,
      accountId,
    ])
  ).rows[0];
}

/** A developer's notification key, made (with a new secret) the first time it is asked for. */
export async function notificationKeyOf(q: Queryable, orgId: string, accountId: string, secret: string) {
  await q.query(
    `INSERT INTO notification_keys (org_id, id, account_id, key_id, secret) VALUES ($1, $2, $3, $4, $5)
     ON CONFLICT (org_id, account_id) DO NOTHING`,
    [orgId, newId(), accountId, newId(24), secret],
  );
  return (await q.query(`SELECT ${KEY_COLUMNS} FROM notification_keys WHERE org_id = $1 AND account_id = $2`, [orgId, accountId])).rows[0];
}

/** A new secret; the old one keeps signing beside it for overlapHours. */
export async function rotateNotificationSecret(q: Queryable, id: string, overlapHours: number, secret: string) {
  return (
    await q.query(
      `UPDATE notification_keys SET previous_secret = secret, previous_until = now() + make_interval(hours => $2), secret = $3, updated_at = now()
        WHERE id = $1 RETURNING ${KEY_COLUMNS}`,
      [id, overlapHours, secret],
    )
  ).rows[0];
}

/** Enable or disable a key's webhook (enabling forgets that it was failing). */
export async function setWebhookStatus(q: Queryable, id: string, status: 'enabled' | 'disabled') {
  return (
    await q.query(
      `UPDATE notification_keys SET status = $2, disabled_reason = NULL, failing_since = CASE WHEN $2 = 'enabled' THEN NULL ELSE failing_since END, updated_at = now()
        WHERE id = $1 RETURNING ${KEY_COLUMNS}`,
      [id, status],
    )
  ).rows[0];
}

/** Point a key's webhook at a new (checked) URL, forgetting that the old one was failing. */
export async function setWebhookUrl(q: Queryable, id: string, url: string) {
  return (
    await q.query(`UPDATE notification_keys SET webhook_url = $2, failing_since = NULL, updated_at = now() WHERE id = $1 RETURNING ${KEY_COLUMNS}`, [id, url])
  ).rows[0];
}

/** One page of a developer log: the organisation's rows in the window and filters, newest first, with the total. */
export interface LogQuery {
  /** The table, and the columns as the answer names them. */
  table: string;
  columns: string;
  /** Its time column: the window's and the order's. */
  time: string;
  /** Further conditions, each using $n placeholders numbered from 4 ($1 the organisation, $2 and $3 the window). */
  where: string[];
  params: unknown[];
}

export async function logPage(
  db: Db,
  orgId: string,
  body: { page?: number; pageSize?: number; from?: string; to?: string },
  q: LogQuery,
): Promise<{ items: unknown[]; total: number }> {
  const page = body.page ?? 1;
  const size = body.pageSize ?? 20;
  const where = [`org_id = $1`, `($2::timestamptz IS NULL OR ${q.time} >= $2)`, `($3::timestamptz IS NULL OR ${q.time} <= $3)`, ...q.where].join(' AND ');
  const params = [orgId, body.from ?? null, body.to ?? null, ...q.params];
  const [items, total] = await Promise.all([
    db.query(`SELECT ${q.columns} FROM ${q.table} WHERE ${where} ORDER BY ${q.time} DESC, id DESC LIMIT ${size} OFFSET ${(page - 1) * size}`, params),
    db.query<{ n: string }>(`SELECT count(*) AS n FROM ${q.table} WHERE ${where}`, params),
  ]);
  return { items: items.rows, total: Number(total.rows[0].n) };
}
