/**
 * Image challenges: the answer drawn as glyph outlines (SVG paths, by svg-captcha) among noise curves, never as text,
 * so only a reader of the picture can answer. The answer is stored hashed, valid 5 minutes, used once; in Redis with
 * REDIS_URL, else in the database (challenges), so that any instance can check a challenge another one drew.
 */
import crypto from 'node:crypto';
import svgCaptcha from 'svg-captcha';
import type { Redis } from 'ioredis';
import type { Db } from '../db/db.js';
import { newId, sha256 } from '../db/ids.js';
import { orUnavailable } from '../http/redis.js';

/** No 0/O, 1/I: characters a person cannot tell apart. */
const CHARS = '23456789ABCDEFGHJKLMNPQRSTUVWXYZ';
const TTL_MS = 5 * 60 * 1000;

// The package's typings omit its callable default (draw a given text); the answer is ours, from a secure random source.
const draw = svgCaptcha as unknown as (
  text: string,
  options: { width: number; height: number; fontSize: number; noise: number; color: boolean; background: string },
) => string;

/** Draw the answer as an SVG of glyph paths and noise curves (the size the sign-in page shows: 120 x 40). */
export function drawSvg(text: string): string {
  return draw(text, { width: 120, height: 40, fontSize: 44, noise: 3, color: true, background: '#f4f4f4' });
}

/** Where the challenges' hashed answers wait to be checked. */
export interface ChallengeStore {
  put(id: string, answerHash: string, ttlMs: number): Promise<void>;
  /** The hashed answer of a challenge that is unused and unexpired, spent by this call whatever comes next; else null. */
  take(id: string): Promise<string | null>;
}

/** Challenges as rows (challenges); expired ones are deleted when a new one is made. */
export function databaseChallenges(db: Db): ChallengeStore {
  return {
    async put(id, answerHash, ttlMs) {
      await db.query('DELETE FROM challenges WHERE expires_at < now()');
      await db.query('INSERT INTO challenges (id, answer_hash, expires_at) VALUES ($1, $2, $3)', [id, answerHash, new Date(Date.now() + ttlMs)]);
    },
    async take(id) {
      const r = await db.query<{ answer_hash: string }>(
        'UPDATE challenges SET used_at = now() WHERE id = $1 AND used_at IS NULL AND expires_at > now() RETURNING answer_hash',
        [id],
      );
      return r.rows[0]?.answer_hash ?? null;
    },
  };
}

/** Challenges as keys that expire by themselves; taking one deletes it in the same command (GETDEL). */
export function redisChallenges(redis: Redis, prefix: string): ChallengeStore {
  const key = (id: string) => `${prefix}challenge:${id}`;
  return {
    async put(id, answerHash, ttlMs) {
      await redis.set(key(id), answerHash, 'PX', ttlMs);
    },
    async take(id) {
      return redis.getdel(key(id));
    },
  };
}

/** Create a challenge and return its id and picture. A store that is away answers 503 (server/http/redis.ts). */
export async function createChallenge(store: ChallengeStore): Promise<{ challengeId: string; svg: string }> {
  const answer = Array.from({ length: 4 }, () => CHARS[crypto.randomInt(0, CHARS.length)]).join('');
  const id = newId();
  await orUnavailable(store.put(id, sha256(answer), TTL_MS));
  return { challengeId: id, svg: drawSvg(answer) };
}

/**
 * Check an answer; the challenge is spent whatever the outcome, so it cannot be guessed twice.
 * With VERIFICATION_CODE configured (tests only), that code passes with any or no challenge.
 */
export async function checkChallenge(store: ChallengeStore, challengeId: string | undefined, code: string, testCode: string | undefined): Promise<boolean> {
  if (testCode && code === testCode) return true;
  if (!challengeId) return false;
  const hash = await orUnavailable(store.take(challengeId));
  return hash !== null && hash === sha256(code.trim().toUpperCase());
}
