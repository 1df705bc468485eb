/**
 * Image challenges: the answer drawn as glyph outlines (SVG paths, by svg-captcha) among noise curves, never as text,
 * so only a reader of the picture can answer. The answer is stored hashed, valid 5 minutes, used once.
 */
import crypto from 'node:crypto';
import svgCaptcha from 'svg-captcha';
import type { Db } from '../db/db.js';
import { newId, sha256 } from '../db/ids.js';

/** No 0/O, 1/I: characters a person cannot tell apart. */
const CHARS = '23456789ABCDEFGHJKLMNPQRSTUVWXYZ';
const TTL_MS = 5 * 60 * 1000;

// The package's typings omit its callable default (draw a given text); the answer is ours, from a secure random source.
const draw = svgCaptcha as unknown as (text: string, options: { width: number; height: number; fontSize: number; noise: number; color: boolean; background: string }) => string;

/** Draw the answer as an SVG of glyph paths and noise curves (the size the sign-in page shows: 120 x 40). */
export function drawSvg(text: string): string {
  return draw(text, { width: 120, height: 40, fontSize: 44, noise: 3, color: true, background: '#f4f4f4' });
}

/** Create a challenge and return its id and picture. */
export async function createChallenge(db: Db): Promise<{ challengeId: string; svg: string }> {
  const answer = Array.from({ length: 4 }, () => CHARS[crypto.randomInt(0, CHARS.length)]).join('');
  const id = newId();
  await db.query('DELETE FROM challenges WHERE expires_at < now()');
  await db.query('INSERT INTO challenges (id, answer_hash, expires_at) VALUES ($1, $2, $3)', [id, sha256(answer), new Date(Date.now() + TTL_MS)]);
  return { challengeId: id, svg: drawSvg(answer) };
}

/**
 * Check an answer; the challenge is spent whatever the outcome, so it cannot be guessed twice.
 * With VERIFICATION_CODE configured (tests only), that code passes with any or no challenge.
 */
export async function checkChallenge(db: Db, challengeId: string | undefined, code: string, testCode: string | undefined): Promise<boolean> {
  if (testCode && code === testCode) return true;
  if (!challengeId) return false;
  const r = await db.query<{ answer_hash: string }>(
    'UPDATE challenges SET used_at = now() WHERE id = $1 AND used_at IS NULL AND expires_at > now() RETURNING answer_hash',
    [challengeId],
  );
  const row = r.rows[0];
  return !!row && row.answer_hash === sha256(code.trim().toUpperCase());
}
