/**
 * Standard Webhooks signatures (standardwebhooks.com): `webhook-id`, `webhook-timestamp` (Unix seconds) and
 * `webhook-signature`, each signature `v1,` + base64 HMAC-SHA256 of `id.timestamp.body` under the secret's bytes (the
 * base64 after `whsec_`). During a rotation both secrets sign, space-separated: a receiver with either one verifies.
 */
import { createHmac, randomBytes } from 'node:crypto';

const PREFIX = 'whsec_';

/** A new signing secret: whsec_ and 32 random bytes in base64. */
export const newSecret = (): string => PREFIX + randomBytes(32).toString('base64');

/** The HMAC key of a secret (the base64 after whsec_). */
function keyOf(secret: string): Buffer {
  return Buffer.from(secret.startsWith(PREFIX) ? secret.slice(PREFIX.length) : secret, 'base64');
}

export function signature(secret: string, id: string, timestamp: number, body: string): string {
  return `v1,${createHmac('sha256', keyOf(secret)).update(`${id}.${timestamp}.${body}`).digest('base64')}`;
}

/** The three headers of one attempt, signed with every secret given (the current one first). */
export function signedHeaders(secrets: string[], id: string, body: string, at: Date): Record<string, string> {
  const timestamp = Math.floor(at.getTime() / 1000);
  return {
    'webhook-id': id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': secrets.map((s) => signature(s, id, timestamp, body)).join(' '),
  };
}
