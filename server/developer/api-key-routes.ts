/**
 * API keys (SPEC.md section 7, Developer; issue 16 section 3). A key is an RSA key pair made here: the public half is
 * kept, the private half is in the answer that creates the key and nowhere else. A caller of the public API signs a
 * short JWT with it (server/developer/public-api.ts). A developer sees and deletes only their own keys; deleting one
 * stops it at once (the next call looks the key up).
 */
import { generateKeyPair } from 'node:crypto';
import { promisify } from 'node:util';
import { CODES } from '../../common/errors.js';
import { newId } from '../db/ids.js';
import { ApiError, notFound } from '../http/api-error.js';
import { audit } from '../http/audit.js';
import { defineRoutes, pathParams } from '../http/route.js';
import { LOG_PAGE_FIELDS, logPage } from './log-page.js';

/** 2048-bit RSA: SPEC.md section 9 says 1024, below NIST's minimum since 2013 (docs/decisions.md). */
export const API_KEY_BITS = 2048;
/** Keys per developer and organisation. */
export const API_KEYS_PER_DEVELOPER = 10;
const generate = promisify(generateKeyPair);

const KEY = 'cube-developer-key' as const;
const keyItem = {
  type: 'object',
  properties: { id: { type: 'string' }, keyId: { type: 'string' }, name: { type: ['string', 'null'] }, createdAt: { type: 'string' }, lastUsedAt: { type: ['string', 'null'] } },
};
const COLUMNS = `id, key_id AS "keyId", name, created_at AS "createdAt", last_used_at AS "lastUsedAt"`;

/** A new RSA key pair as PEM: SPKI public, PKCS#8 private (what Node, Python's cryptography and openssl read). */
export async function newKeyPair(): Promise<{ publicKey: string; privateKey: string }> {
  return generate('rsa', { modulusLength: API_KEY_BITS, publicKeyEncoding: { type: 'spki', format: 'pem' }, privateKeyEncoding: { type: 'pkcs8', format: 'pem' } });
}

export const apiKeyRoutes = defineRoutes([
  {
    service: 'main',
    method: 'GET',
    path: '/developer/key/api',
    permission: { action: 'read', subject: KEY },
    schema: { response: { type: 'array', items: keyItem } },
    handler: async (req) => {
      const auth = req.requireAuth();
      return (await req.server.db.query(`SELECT ${COLUMNS} FROM api_keys WHERE org_id = $1 AND account_id = $2 ORDER BY created_at DESC, id`, [auth.orgId, auth.accountId])).rows;
    },
  },
  {
    service: 'main',
    method: 'POST',
    path: '/developer/key/api',
    permission: { action: 'create', subject: KEY },
    schema: {
      body: { type: 'object', additionalProperties: false, properties: { name: { type: 'string', minLength: 1, maxLength: 60, pattern: '\\S' } } },
      response: { type: 'object', properties: { ...keyItem.properties, privateKey: { type: 'string' } } },
    },
    handler: async (req) => {
      const auth = req.requireAuth();
      const name = (req.body as { name?: string } | undefined)?.name?.trim() || null;
      const { publicKey, privateKey } = await newKeyPair();
      return req.server.db.tx(async (q) => {
        // Counted under a lock of the developer's keys, so two calls at once cannot both take the last place.
        const held = await q.query(`SELECT id FROM api_keys WHERE org_id = $1 AND account_id = $2 FOR UPDATE`, [auth.orgId, auth.accountId]);
        if (held.rows.length >= API_KEYS_PER_DEVELOPER) throw new ApiError(409, CODES.conflict, { limit: API_KEYS_PER_DEVELOPER }, 'errors.apiKeyLimit');
        const row = (
          await q.query(`INSERT INTO api_keys (org_id, id, account_id, name, key_id, public_key) VALUES ($1, $2, $3, $4, $5, $6) RETURNING ${COLUMNS}`, [
            auth.orgId,
            newId(),
            auth.accountId,
            name,
            newId(24),
            publicKey,
          ])
        ).rows[0] as { id: string; keyId: string };
        await audit(q, req, { action: 'create', entity: 'api_key', entityId: row.id, after: { keyId: row.keyId, name } });
        return { ...row, privateKey };
      });
    },
  },
  {
    service: 'main',
    method: 'DELETE',
    path: '/developer/key/api/:id',
    permission: { action: 'delete', subject: KEY },
    schema: { params: pathParams('id'), response: { type: 'object', properties: { id: { type: 'string' } } } },
    handler: async (req) => {
      const auth = req.requireAuth();
      const { id } = req.params as { id: string };
      return req.server.db.tx(async (q) => {
        const r = await q.query<{ key_id: string }>('DELETE FROM api_keys WHERE org_id = $1 AND account_id = $2 AND id = $3 RETURNING key_id', [auth.orgId, auth.accountId, id]);
        if (!r.rows.length) throw notFound('apiKey', id);
        await audit(q, req, { action: 'delete', entity: 'api_key', entityId: id, before: { keyId: r.rows[0].key_id } });
        return { id };
      });
    },
  },
  // The public API's calls of the organisation, newest first (every key's: an admin audits them all).
  {
    service: 'main',
    method: 'POST',
    path: '/developer/log/api',
    permission: { action: 'read', subject: KEY },
    schema: {
      body: {
        type: 'object',
        additionalProperties: false,
        properties: {
          ...LOG_PAGE_FIELDS,
          httpCode: { type: 'integer', minimum: 100, maximum: 599 },
          method: { type: 'string', enum: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] },
          traceId: { type: 'string', minLength: 1, maxLength: 64 },
        },
      },
      response: {
        type: 'object',
        properties: {
          items: {
            type: 'array',
            items: {
              type: 'object',
              properties: {
                id: { type: 'string' },
                apiKeyId: { type: ['string', 'null'] },
                ip: { type: ['string', 'null'] },
                traceId: { type: 'string' },
                at: { type: 'string' },
                httpCode: { type: 'integer' },
                method: { type: 'string' },
                path: { type: 'string' },
                headers: {},
                body: { type: ['string', 'null'] },
                response: { type: ['string', 'null'] },
                durationMs: { type: ['integer', 'null'] },
              },
            },
          },
          total: { type: 'integer' },
        },
      },
    },
    handler: async (req) => {
      const auth = req.requireAuth();
      const b = (req.body ?? {}) as { page?: number; pageSize?: number; from?: string; to?: string; httpCode?: number; method?: string; traceId?: string };
      return logPage(req.server.db, auth.orgId, b, {
        table: 'api_logs',
        columns: `id::text, api_key_id AS "apiKeyId", ip, trace_id AS "traceId", at, http_code AS "httpCode", method, path, headers, body, response, duration_ms AS "durationMs"`,
        time: 'at',
        where: ['($4::int IS NULL OR http_code = $4)', '($5::text IS NULL OR method = $5)', '($6::text IS NULL OR trace_id = $6)'],
        params: [b.httpCode ?? null, b.method ?? null, b.traceId ?? null],
      });
    },
  },
]);
