/**
 * API keys (SPEC.md section 7, Developer; issue 16 section 3). A key is an RSA key pair made here: the public half is
 * kept, the private half is in the answer that creates the key and nowhere else. A caller of the public API signs a
 * short JWT with it (server/developer/public-api.ts). A developer sees and deletes only their own keys; deleting one
 * stops it at once (the next call looks the key up).
 */
import { generateKeyPair } from 'node:crypto';
import { promisify } from 'node:util';
import { CODES } from '../../common/errors.js';
import { ApiError, notFound } from '../http/api-error.js';
import { audit } from '../http/audit.js';
import { pageResponse } from '../http/page-response.js';
import { defineRoutes, pathParams } from '../http/route.js';
import { apiKeysOf, apiLogPage, deleteApiKey, insertApiKey, lockApiKeys } from './developer-repo.js';
import { LOG_PAGE_FIELDS } from './log-page.js';

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
      return apiKeysOf(req.server.db, auth.orgId, auth.accountId);
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
        if ((await lockApiKeys(q, auth.orgId, auth.accountId)) >= API_KEYS_PER_DEVELOPER) throw new ApiError(409, CODES.conflict, { limit: API_KEYS_PER_DEVELOPER }, 'errors.apiKeyLimit');
        const row = await insertApiKey(q, auth.orgId, auth.accountId, name, publicKey);
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
        const keyId = await deleteApiKey(q, auth.orgId, auth.accountId, id);
        if (keyId === undefined) throw notFound('apiKey', id);
        await audit(q, req, { action: 'delete', entity: 'api_key', entityId: id, before: { keyId } });
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
      response: pageResponse({
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
      }),
    },
    handler: async (req) => {
      const auth = req.requireAuth();
      const b = (req.body ?? {}) as { page?: number; pageSize?: number; from?: string; to?: string; httpCode?: number; method?: string; traceId?: string };
      return apiLogPage(req.server.db, auth.orgId, b);
    },
  },
]);
