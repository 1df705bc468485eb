/** The one-second memory of who callers are (server/http/auth-cache.ts), on a clock the test moves. */
import { describe, expect, it } from 'vitest';
import { AuthCache } from '../../server/http/auth-cache.js';

function clocked(ttl = 1000) {
  const clock = { now: 10_000 };
  const cache = new AuthCache<string>(ttl, () => clock.now);
  let asked = 0;
  const ask = (value: string | undefined) => () => (asked++, Promise.resolve(value as string));
  return { clock, cache, ask, asked: () => asked };
}

describe('AuthCache', () => {
  it('answers from memory until a second after the answer was asked for, not after it came', async () => {
    const { clock, cache, asked } = clocked();
    let release!: (v: string) => void;
    const first = cache.through('k', () => new Promise<string>((r) => (release = r)));
    clock.now += 400; // the query takes 400 ms
    release('admin');
    expect(await first).toBe('admin');
    clock.now += 599;
    expect(await cache.through('k', () => Promise.resolve('changed'))).toBe('admin');
    clock.now += 1; // 1000 ms after it was asked
    expect(await cache.through('k', () => Promise.resolve('changed'))).toBe('changed');
    expect(asked()).toBe(0);
  });

  it('never remembers a refusal or nothing found', async () => {
    const { cache, ask, asked } = clocked();
    await expect(cache.through('k', () => Promise.reject(new Error('revoked')))).rejects.toThrow('revoked');
    expect(await cache.through('k', ask(undefined))).toBeUndefined();
    expect(await cache.through('k', ask(undefined))).toBeUndefined();
    expect(asked()).toBe(2);
    expect(cache.size).toBe(0);
  });

  it('forgets everything on clear, and does not remember an answer asked for before the clear', async () => {
    const { cache, ask, asked } = clocked();
    await cache.through('a', ask('operator'));
    let release!: (v: string) => void;
    const inFlight = cache.through('b', () => new Promise<string>((r) => (release = r)));
    cache.clear(); // a rights change was answered while b's query ran
    release('stale');
    expect(await inFlight).toBe('stale');
    expect(cache.size).toBe(0);
    await cache.through('a', ask('admin'));
    expect(await cache.through('a', ask('other'))).toBe('admin');
    expect(asked()).toBe(2);
  });

  it('asks every time when its time to live is 0', async () => {
    const { cache, ask, asked } = clocked(0);
    await cache.through('k', ask('x'));
    await cache.through('k', ask('x'));
    expect(asked()).toBe(2);
  });

  it('keeps at most 10,000 callers, dropping the oldest first', async () => {
    const { cache, ask } = clocked();
    for (let i = 0; i <= 10_000; i++) await cache.through(`k${i}`, ask(String(i)));
    expect(cache.size).toBe(10_000);
    expect(cache.get('k0')).toBeUndefined();
    expect(cache.get('k10000')).toBe('10000');
  });
});
