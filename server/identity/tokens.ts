/** Access tokens: short-lived HS256 JWTs signed with a secret shared by every instance through the database. */
import crypto from 'node:crypto';
import { SignJWT, jwtVerify, errors as joseErrors } from 'jose';
import type { Db } from '../db/db.js';

export interface AccessClaims {
  sub: string;
  sid: string;
}

export type VerifyResult = { ok: true; claims: AccessClaims } | { ok: false; reason: 'expired' | 'invalid' };

export class TokenService {
  private constructor(
    // Imported once: with the secret's bytes, jose would import them as a key again for every token it checks.
    private readonly key: CryptoKey,
    private readonly ttlSeconds: number,
  ) {}

  /** JWT_SECRET when set, else a secret kept in the settings table so several instances agree. */
  static async create(db: Db, ttlSeconds: number, envSecret = process.env.JWT_SECRET): Promise<TokenService> {
    let secret = envSecret;
    if (!secret) {
      const fresh = crypto.randomBytes(48).toString('base64url');
      await db.query("INSERT INTO settings (key, value) VALUES ('jwt_secret', $1) ON CONFLICT (key) DO NOTHING", [fresh]);
      secret = (await db.query<{ value: string }>("SELECT value FROM settings WHERE key = 'jwt_secret'")).rows[0].value;
    }
    const key = await crypto.webcrypto.subtle.importKey('raw', new TextEncoder().encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign', 'verify']);
    return new TokenService(key, ttlSeconds);
  }

  /** Sign an access token for an account within a session; ttlSeconds may be overridden (tests make expired ones). */
  sign(claims: AccessClaims, ttlSeconds = this.ttlSeconds): Promise<string> {
    const now = Math.floor(Date.now() / 1000);
    return new SignJWT({ sid: claims.sid })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject(claims.sub)
      .setIssuedAt(now)
      .setExpirationTime(now + ttlSeconds)
      .setIssuer('iot-console')
      .sign(this.key);
  }

  /** Verify a token; ignoreExpiry accepts an expired but genuine one (sign-out of an expired session). */
  async verify(token: string, ignoreExpiry = false): Promise<VerifyResult> {
    try {
      const { payload } = await jwtVerify(token, this.key, {
        issuer: 'iot-console',
        algorithms: ['HS256'],
        ...(ignoreExpiry ? { clockTolerance: 10 * 365 * 24 * 3600 } : {}),
      });
      if (typeof payload.sub !== 'string' || typeof payload.sid !== 'string') return { ok: false, reason: 'invalid' };
      return { ok: true, claims: { sub: payload.sub, sid: payload.sid } };
    } catch (err) {
      if (err instanceof joseErrors.JWTExpired) return { ok: false, reason: 'expired' };
      return { ok: false, reason: 'invalid' };
    }
  }
}
