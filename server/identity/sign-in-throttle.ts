/**
 * Throttling of failed sign-ins (ASVS 2.2.1; docs/decisions.md, "Sign-in throttling"). Failures count per account and
 * client address together, and per client address across accounts; never per account alone, so that nobody can lock
 * an owner out by knowing the e-mail. Counts live in the database, so every instance sees the same ones.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { CODES } from '../../common/errors.js';
import type { Queryable } from '../db/db.js';
import { ApiError } from '../http/api-error.js';

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

/** Refuse (429 with Retry-After) a sign-in from an address that failed too often, for this account or for any. */
export async function assertMayTry(req: FastifyRequest, reply: FastifyReply, email: string): Promise<void> {
  const { windowMinutes, perAddress } = SIGN_IN_LIMITS;
  const r = await req.server.db.query<{ by_pair: number; since_pair: number; by_address: number }>(
    `SELECT count(*) FILTER (WHERE email = $1)::int AS by_pair,
            coalesce(extract(epoch FROM now() - max(at) FILTER (WHERE email = $1)), 0)::float8 AS since_pair,
            count(*)::int AS by_address
       FROM sign_in_failures WHERE ip = $2 AND at > now() - make_interval(mins => $3)`,
    [email, req.ip, windowMinutes],
  );
  const { by_pair, since_pair, by_address } = r.rows[0];
  const pairWait = pairPauseSeconds(by_pair) - since_pair;
  if (pairWait > 0) refuse(reply, pairWait, CODES.accountLocked, 'errors.signInPaused');
  if (by_address >= perAddress) {
    // Free again when the perAddress-th latest failure leaves the window.
    const oldest = await req.server.db.query<{ wait: number }>(
      `SELECT extract(epoch FROM at + make_interval(mins => $2) - now())::float8 AS wait
         FROM sign_in_failures WHERE ip = $1 AND at > now() - make_interval(mins => $2)
        ORDER BY at DESC OFFSET $3 LIMIT 1`,
      [req.ip, windowMinutes, perAddress - 1],
    );
    refuse(reply, oldest.rows[0]?.wait ?? windowMinutes * 60, CODES.tooManyRequests, 'errors.rateLimited');
  }
}

/** Count a failed sign-in of an account (known or not) from the request's address. */
export async function recordFailure(q: Queryable, email: string, ip: string): Promise<void> {
  await q.query('INSERT INTO sign_in_failures (email, ip) VALUES ($1, $2)', [email, ip]);
  // Rows past the window count for nothing; an occasional sweep keeps the table small.
  if (Math.random() < 0.01) await q.query("DELETE FROM sign_in_failures WHERE at < now() - interval '1 day'");
}

/** A successful sign-in forgets this address's failures for the account only: another address's stay counted. */
export async function clearFailures(q: Queryable, email: string, ip: string): Promise<void> {
  await q.query('DELETE FROM sign_in_failures WHERE email = $1 AND ip = $2', [email, ip]);
}
