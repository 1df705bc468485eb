/**
 * Who a caller is, remembered for at most AUTH_CACHE_MS (one second): every signed-in call would otherwise ask the
 * database for its account, session and membership before its handler, and a page that fans out into a dozen calls,
 * or 50 connections of one account, would ask a dozen or 50 times a second for the same row.
 *
 * Correctness:
 * - An answer is kept from the moment its query was sent, not from when it came back, so a change committed at t is
 *   seen by every call that starts at t + AUTH_CACHE_MS or later, on every instance (a role change, a removal, a
 *   revoked session or a deleted API key: "within a second").
 * - On the instance that makes a change it takes effect at once: every call that may change rights (any route whose
 *   permission is not a read) forgets everything remembered when it is answered (context.ts).
 * - Refusals are never remembered: a caller refused a moment ago is asked about again.
 * - At most MAX_ENTRIES callers are remembered; beyond that the oldest answer is dropped first.
 */

/** The longest a remembered answer is believed. */
export const AUTH_CACHE_MS = 1000;
const MAX_ENTRIES = 10_000;

export class AuthCache<V> {
  private readonly entries = new Map<string, { value: V; asked: number }>();
  /** Counts clear()s: an answer asked for before the latest one is not remembered. */
  private generation = 0;

  constructor(
    private readonly ttlMs = AUTH_CACHE_MS,
    private readonly now: () => number = Date.now,
  ) {}

  /** The remembered answer for key, if it was asked for less than ttlMs ago. */
  get(key: string): V | undefined {
    const e = this.entries.get(key);
    if (!e) return undefined;
    if (this.now() - e.asked < this.ttlMs) return e.value;
    this.entries.delete(key);
    return undefined;
  }

  /**
   * The answer for key: the remembered one, else ask's (remembered from the moment it was asked). Asked again on
   * every call when ttlMs is 0; an answer of undefined (nothing found) or a throw is never remembered.
   */
  async through(key: string, ask: () => Promise<V>): Promise<V> {
    const hit = this.get(key);
    if (hit !== undefined) return hit;
    const asked = this.now();
    const generation = this.generation;
    const value = await ask();
    // A clear() while the query ran may have been a change this answer predates: it is used once, not remembered.
    if (this.ttlMs > 0 && value !== undefined && generation === this.generation) {
      if (this.entries.size >= MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value as string);
      this.entries.set(key, { value, asked });
    }
    return value;
  }

  /** Forget everything (a change of rights was answered on this instance). */
  clear(): void {
    this.generation++;
    this.entries.clear();
  }

  get size(): number {
    return this.entries.size;
  }
}
