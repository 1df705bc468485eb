/**
 * Throttling of failed sign-ins (ASVS 2.2.1; docs/decisions.md, "Sign-in throttling"). Failures count per account and
 * client address together, and per client address across accounts; never per account alone, so that nobody can lock
 * an owner out by knowing the e-mail. Counts live where every instance sees the same ones: in Redis with REDIS_URL,
 * else in the database (sign_in_failures).
 */
import crypto from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Redis } from 'ioredis';
import { CODES } from '../../common/errors.js';
import type { Db } from '../db/db.js';
import { sha256 } from '../db/ids.js';
import { ApiError } from '../http/api-error.js';
import { orUnavailable } from '../http/redis.js';

export const SIGN_IN_LIMITS = {
  /** Failures older than this are forgotten. */
  windowMinutes: 15,
  /** Failures of one account from one address before it pauses there. */
  perPair: 5,
  /** The first pause; each further failure doubles it, up to the window. */
  firstPauseSeconds: 30,
  /** Failures from one address, over all accounts, before that address pauses. */
  perAddress: 20,
};

/** The pause after n failures of one account from one address: none below perPair, then 30 s, 60 s, 120 s ... 15 min. */
export function pairPauseSeconds(failures: number): number {
  if (failures < SIGN_IN_LIMITS.perPair) return 0;
  return Math.min(SIGN_IN_LIMITS.windowMinutes * 60, SIGN_IN_LIMITS.firstPauseSeconds * 2 ** (failures - SIGN_IN_LIMITS.perPair));
}

function refuse(reply: FastifyReply, seconds: number, code: string, messageKey: string): never {
  const wait = Math.max(1, Math.ceil(seconds));
  reply.header('retry-after', String(wait));
  throw new ApiError(429, code, { seconds: wait }, messageKey);
}

/** What the throttle needs to know of the failures within the window, for one account at one address. */
export interface FailureCounts {
  /** Failures of this account from this address. */
  byPair: number;
  /** Seconds since the latest of them (0 without any). */
  sincePair: number;
  /** Failures from this address over all accounts. */
  byAddress: number;
  /** Seconds until the perAddress-th latest of those leaves the window (0 while there are fewer). */
  addressWait: number;
}

/** Where failed sign-ins are counted: the database or Redis, the same answers from both. */
export interface SignInFailures {
  counts(email: string, ip: string): Promise<FailureCounts>;
  /** Count a failure, now or (tests) at a given time within the window. */
  record(email: string, ip: string, at?: Date): Promise<void>;
  /** Forget this account's failures from this address (a successful sign-in there). */
  clear(email: string, ip: string): Promise<void>;
}

const windowMs = () => SIGN_IN_LIMITS.windowMinutes * 60_000;

/** The failures as rows of sign_in_failures; rows past the window count for nothing and are swept now and then. */
export function databaseFailures(db: Db): SignInFailures {
  return {
    async counts(email, ip) {
      const { windowMinutes, perAddress } = SIGN_IN_LIMITS;
      const r = await db.query<FailureCounts>(
        `SELECT count(*) FILTER (WHERE email = $1)::int AS "byPair",
                coalesce(extract(epoch FROM now() - max(at) FILTER (WHERE email = $1)), 0)::float8 AS "sincePair",
                count(*)::int AS "byAddress",
                coalesce((SELECT extract(epoch FROM at + make_interval(mins => $3) - now())::float8
                            FROM sign_in_failures WHERE ip = $2 AND at > now() - make_interval(mins => $3)
                           ORDER BY at DESC OFFSET $4 LIMIT 1), 0) AS "addressWait"
           FROM sign_in_failures WHERE ip = $2 AND at > now() - make_interval(mins => $3)`,
        [email, ip, windowMinutes, perAddress - 1],
      );
      return r.rows[0];
    },
    async record(email, ip, at) {
      await db.query('INSERT INTO sign_in_failures (email, ip, at) VALUES ($1, $2, coalesce($3, now()))', [email, ip, at ?? null]);
      if (Math.random() < 0.01) await db.query("DELETE FROM sign_in_failures WHERE at < now() - interval '1 day'");
    },
    async clear(email, ip) {
      await db.query('DELETE FROM sign_in_failures WHERE email = $1 AND ip = $2', [email, ip]);
    },
  };
}

/**
 * The failures in two sorted sets per address, scored by time: one of the address over all accounts, one per account
 * at it, sharing members (`<account hash>:<time>:<random>`) so that clearing an account's failures at an address takes
 * them out of both. Each set expires a window after its latest failure; older members are trimmed on every read.
 */
export function redisFailures(redis: Redis, prefix: string): SignInFailures {
  const addressKey = (ip: string) => `${prefix}signin:${ip}`;
  const pairKey = (email: string, ip: string) => `${prefix}signin:${ip}:${sha256(email)}`;
  return {
    async counts(email, ip) {
      const now = Date.now();
      const since = now - windowMs();
      const res = await redis
        .multi()
        .zremrangebyscore(addressKey(ip), '-inf', since)
        .zremrangebyscore(pairKey(email, ip), '-inf', since)
        .zrevrange(pairKey(email, ip), 0, -1, 'WITHSCORES')
        .zrevrange(addressKey(ip), 0, -1, 'WITHSCORES')
        .exec();
      if (!res || res.some(([err]) => err)) throw res?.find(([err]) => err)?.[0] ?? new Error('Redis: no answer');
      const scores = (r: unknown) => (r as string[]).filter((_, i) => i % 2 === 1).map(Number);
      const pair = scores(res[2][1]);
      const address = scores(res[3][1]);
      const nth = address[SIGN_IN_LIMITS.perAddress - 1];
      return {
        byPair: pair.length,
        sincePair: pair.length ? (now - pair[0]) / 1000 : 0,
        byAddress: address.length,
        addressWait: nth === undefined ? 0 : (nth + windowMs() - now) / 1000,
      };
    },
    async record(email, ip, at) {
      const time = at?.getTime() ?? Date.now();
      const member = `${sha256(email)}:${time}:${crypto.randomBytes(6).toString('hex')}`;
      const res = await redis
        .multi()
        .zadd(pairKey(email, ip), time, member)
        .pexpire(pairKey(email, ip), windowMs())
        .zadd(addressKey(ip), time, member)
        .pexpire(addressKey(ip), windowMs())
        .exec();
      if (!res || res.some(([err]) => err)) throw res?.find(([err]) => err)?.[0] ?? new Error('Redis: no answer');
    },
    async clear(email, ip) {
      const members = await redis.zrange(pairKey(email, ip), 0, '-1');
      const tx = redis.multi().del(pairKey(email, ip));
      if (members.length) tx.zrem(addressKey(ip), ...members);
      await tx.exec();
    },
  };
}

/**
 * Refuse (429 with Retry-After) a sign-in from an address that failed too often, for this account or for any. Counts
 * that cannot be read (Redis away) refuse the sign-in for a moment (503): the throttle is what stands between a
 * guesser and the passwords, so it does not open when its store is away.
 */
export async function assertMayTry(req: FastifyRequest, reply: FastifyReply, email: string): Promise<void> {
  const { byPair, sincePair, byAddress, addressWait } = await orUnavailable(req.server.signInFailures.counts(email, req.ip));
  const pairWait = pairPauseSeconds(byPair) - sincePair;
  if (pairWait > 0) refuse(reply, pairWait, CODES.accountLocked, 'errors.signInPaused');
  // Free again when the perAddress-th latest failure leaves the window.
  if (byAddress >= SIGN_IN_LIMITS.perAddress) refuse(reply, addressWait || SIGN_IN_LIMITS.windowMinutes * 60, CODES.tooManyRequests, 'errors.rateLimited');
}

/** Count a failed sign-in of an account (known or not) from the request's address. */
export async function recordFailure(req: FastifyRequest, email: string): Promise<void> {
  await orUnavailable(req.server.signInFailures.record(email, req.ip));
}

/** A successful sign-in forgets this address's failures for the account only: another address's stay counted. */
export async function clearFailures(req: FastifyRequest, email: string): Promise<void> {
  await orUnavailable(req.server.signInFailures.clear(email, req.ip));
}
