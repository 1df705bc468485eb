import crypto from 'node:crypto';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** A new id: 20 alphanumerics (SPEC.md section 9: ids are 18-22 alphanumerics). */
export function newId(length = 20): string {
  const bytes = crypto.randomBytes(length);
  let out = '';
  for (let i = 0; i < length; i++) out += ALPHABET[bytes[i] % 62];
  return out;
}

/** A secret token for cookies and links: 32 random bytes, base64url. */
export const newSecret = (): string => crypto.randomBytes(32).toString('base64url');

/** SHA-256 of a secret, for storing tokens and codes without keeping them. */
export const sha256 = (value: string): string => crypto.createHash('sha256').update(value).digest('hex');
