/**
 * The Redis connection of per-call state (REDIS_URL): rate-limit counters, failed sign-ins and picture challenges,
 * shared by every instance (docs/decisions.md, "Per-call state in Redis"). A command never waits for Redis to come
 * back: while the connection is down it fails at once (no offline queue), and a command without an answer fails after
 * a second. Callers decide what a failure means: the rate limits let the call through, sign-in answers 503.
 */
import { Redis } from 'ioredis';
import type { FastifyBaseLogger } from 'fastify';
import { CODES } from '../../common/errors.js';
import { ApiError } from './api-error.js';

/** How long a command may go unanswered before it fails. */
const COMMAND_TIMEOUT_MS = 1000;
/** How long an instance waits for Redis at start before it starts anyway (and connects when Redis answers). */
const FIRST_CONNECT_MS = 3000;

/** Connect; the client reconnects by itself (every 100 ms to 1 s) and logs once per outage. */
export async function connectRedis(url: string, log: FastifyBaseLogger): Promise<Redis> {
  const redis = new Redis(url, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    // RESP2: the replies' shapes (scores beside members, flat) that the stores read.
    protocol: 2,
    commandTimeout: COMMAND_TIMEOUT_MS,
    connectTimeout: FIRST_CONNECT_MS,
    retryStrategy: (times) => Math.min(times * 100, 1000),
  });
  let down = false;
  redis.on('error', (err: Error) => {
    if (down) return;
    down = true;
    log.error({ err }, 'Redis does not answer: rate limits let calls through, sign-in waits for it');
  });
  redis.on('ready', () => {
    if (down) log.info('Redis answers again');
    down = false;
  });
  await new Promise<void>((resolve) => {
    const done = () => {
      clearTimeout(timer);
      redis.off('ready', done);
      resolve();
    };
    const timer = setTimeout(done, FIRST_CONNECT_MS);
    redis.once('ready', done);
  });
  return redis;
}

/**
 * Run a Redis command whose failure must not let the caller through (sign-in throttles, challenges): a failure
 * answers 503 with Retry-After and "try again in a moment" in the caller's language, never a 500.
 */
export async function orUnavailable<T>(work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (err) {
    if (err instanceof ApiError) throw err;
    throw new ApiError(503, CODES.serviceUnavailable, { seconds: 5 }, 'errors.signInUnavailable');
  }
}
