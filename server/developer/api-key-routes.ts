/**
 * API keys (SPEC.md section 7, Developer). A key is an RSA key pair made here: the public half is
 * kept, the private half is in the answer that creates the key and nowhere else. A caller of the public API signs a
 * short JWT with it (server/developer/public-api.ts). A developer sees and deletes only their own keys; deleting one
 * stops it at once on this instance and within a second on the others (server/http/auth-cache.ts).
 */
import { generateKeyPair } from 'node:crypto';
import { promisify } from 'node:util';
import { CODES } from '../../common/errors.js';
import { ApiError, notFound } from '../http/api-error.js';
import { audit } from '../http/audit.js';
import { defineRoutes } from '../http/route.js';
import { arrayOf, ID_PARAMS, NULLABLE_TEXT, obj, subjectRoutes, typed } from '../http/shapes.js';
import { apiKeysOf, apiLogPage, deleteApiKey, insertApiKey, lockApiKeys } from './developer-repo.js';
import { HTTP_CODE, logRoute } from './log-page.js';

/** 2048-bit RSA: SPEC.md section 9 says 1024, below NIST's minimum since 2013 (docs/decisions.md). */
export const API_KEY_BITS = 2048;
/** Keys per developer and organisation. */
export const API_KEYS_PER_DEVELOPER = 10;
const generate = promisify(generateKeyPair);

const KEY = 'cube-developer-key' as const;
const keyItem = typed({ id: 'string', keyId: 'string', name: NULLABLE_TEXT, createdAt: 'string', lastUsedAt: NULLABLE_TEXT });
const route = subjectRoutes('main', KEY);

/** A new RSA key pair as PEM: SPKI public, PKCS#8 private (what Node, Python's cryptography and openssl read). */
export async function newKeyPair(): Promise<{ publicKey: string; privateKey: string }> {
  return generate('rsa', {
    modulusLength: API_KEY_BITS,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
}

export const apiKeyRoutes = defineRoutes([
  route('GET', '/developer/key/api', 'read', {
    schema: { response: arrayOf(keyItem) },
    handler: async (req) => {
      const auth = req.requireAuth();
      // Last-used times are written in batches: this instance's latest are written before they are read.
      await req.server.apiCallLog.flush();
      return apiKeysOf(req.server.db, auth.orgId, auth.accountId);
    },
  }),
  route('POST', '/developer/key/api', 'create', {
    schema: {
      body: obj({ name: { type: 'string', minLength: 1, maxLength: 60, pattern: '\\S' } }),
      response: typed({ ...keyItem.properties, privateKey: 'string' }),
    },
    handler: async (req) => {
      const auth = req.requireAuth();
      const name = (req.body as { name?: string } | undefined)?.name?.trim() || null;
      const { publicKey, privateKey } = await newKeyPair();
      return req.server.db.tx(async (q) => {
        // Counted under a lock of the developer's keys, so two calls at once cannot both take the last place.
        if ((await lockApiKeys(q, auth.orgId, auth.accountId)) >= API_KEYS_PER_DEVELOPER)
          throw new ApiError(409, CODES.conflict, { limit: API_KEYS_PER_DEVELOPER }, 'errors.apiKeyLimit');
        const row = await insertApiKey(q, auth.orgId, auth.accountId, name, publicKey);
        await audit(q, req, { action: 'create', entity: 'api_key', entityId: row.id, after: { keyId: row.keyId, name } });
        return { ...row, privateKey };
      });
    },
  }),
  route('DELETE', '/developer/key/api/:id', 'delete', {
    schema: { params: ID_PARAMS, response: typed({ id: 'string' }) },
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
  }),
  // The public API's calls of the organisation, newest first (every key's: an admin audits them all).
  logRoute(
    '/developer/log/api',
    {
      httpCode: HTTP_CODE,
      method: { type: 'string', enum: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] },
      traceId: { type: 'string', minLength: 1, maxLength: 64 },
    },
    typed({
      id: 'string',
      apiKeyId: NULLABLE_TEXT,
      ip: NULLABLE_TEXT,
      traceId: 'string',
      at: 'string',
      httpCode: 'integer',
      method: 'string',
      path: 'string',
      headers: {},
      body: NULLABLE_TEXT,
      response: NULLABLE_TEXT,
      durationMs: ['integer', 'null'],
    }),
    // The calls this instance has not yet written are written first: one's own last call is always listed.
    async (db, orgId, body: Parameters<typeof apiLogPage>[2], app) => (await app.apiCallLog.flush(), apiLogPage(db, orgId, body)),
  ),
]);
