/** The Redis server of this machine (127.0.0.1:6379), and whether it answers; CI runs it, so there a missing server fails. */
import crypto from 'node:crypto';
import { Redis } from 'ioredis';
import { answersOn } from './nats.js';
import { DB_KINDS, type DbKind } from './helper.js';

export const REDIS_URL = 'redis://127.0.0.1:6379';

export const redisAnswers = await answersOn(6379);

if (!redisAnswers && process.env.CI) throw new Error('Redis does not answer on 127.0.0.1:6379 (CI must start it in .ci/run)');

/** A key prefix of one test's own, so that test files running side by side on one Redis never count each other's calls. */
export const testPrefix = () => `test:${crypto.randomBytes(6).toString('hex')}:`;

/** Delete every key under prefix (a test's own, when it ends). */
export async function deleteKeys(url: string, prefix: string): Promise<void> {
  const redis = new Redis(url, { lazyConnect: true });
  try {
    await redis.connect();
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length) await redis.del(...keys);
  } finally {
    redis.disconnect();
  }
}

/** Where per-call state can live: the database (PGlite, PostgreSQL where it runs) or Redis (on PGlite) where it answers. */
export const PER_CALL_STORES: { name: string; kind: DbKind; redis: boolean }[] = [
  ...DB_KINDS.map((kind) => ({ name: `the database (${kind})`, kind, redis: false })),
  ...(redisAnswers ? [{ name: 'Redis', kind: 'pglite' as DbKind, redis: true }] : []),
];
