/** SHUTDOWN_TIMEOUT_SECONDS and the grace it leaves work in flight (server/job/hand-back.ts). */
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../server/config.js';
import { endedBefore, graceMs } from '../../server/job/hand-back.js';

describe('SHUTDOWN_TIMEOUT_SECONDS', () => {
  const at = (v?: string) => loadConfig({ SHUTDOWN_TIMEOUT_SECONDS: v } as NodeJS.ProcessEnv).shutdownTimeoutSeconds;

  it('is 10 s unless set, and takes whole seconds from 1 to 600', () => {
    expect(at()).toBe(10);
    expect(at('')).toBe(10);
    expect(at('1')).toBe(1);
    expect(at('600')).toBe(600);
    for (const bad of ['0', '601', '2.5', '-3', 'soon'])
      expect(() => at(bad)).toThrow(`SHUTDOWN_TIMEOUT_SECONDS must be a whole number of seconds from 1 to 600, not "${bad}"`);
  });

  it('leaves work in flight the bound less a quarter, at most 2 s less, for handing back and closing the database', () => {
    expect(graceMs(10)).toBe(8000);
    expect(graceMs(4)).toBe(3000);
    expect(graceMs(1)).toBe(750);
    expect(graceMs(60)).toBe(58_000);
  });
});

describe('endedBefore', () => {
  it('says whether the work ended before the signal, without waiting past it', async () => {
    expect(await endedBefore(null, AbortSignal.abort())).toBe(true);
    expect(await endedBefore(Promise.reject(new Error('failed')), new AbortController().signal)).toBe(true);
    const never = new Promise(() => undefined);
    const stop = new AbortController();
    const waiting = endedBefore(never, stop.signal);
    stop.abort();
    expect(await waiting).toBe(false);
  });
});
