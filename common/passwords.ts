/**
 * SPEC.md section 5's generated password: 11 characters plus a symbol, letters and digits both present, so it always
 * passes the password rule. Web Crypto, so the server (reset by an admin) and the console (New account's Generate)
 * make them alike.
 */
const LETTERS = 'ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
const DIGITS = '23456789';
const SYMBOLS = '#$%&*@!?';

/** A uniform integer in [0, n) without modulo bias. */
function randomBelow(n: number): number {
  const limit = Math.floor(0x1_0000_0000 / n) * n;
  const buf = new Uint32Array(1);
  do globalThis.crypto.getRandomValues(buf);
  while (buf[0] >= limit);
  return buf[0] % n;
}

export function generatePassword(): string {
  const all = LETTERS + DIGITS;
  const pick = (set: string) => set[randomBelow(set.length)];
  const body = [pick(LETTERS), pick(DIGITS), ...Array.from({ length: 9 }, () => pick(all))];
  for (let i = body.length - 1; i > 0; i--) {
    const j = randomBelow(i + 1);
    [body[i], body[j]] = [body[j], body[i]];
  }
  return `${body.join('')}${pick(SYMBOLS)}`;
}
