/** NATS_ACK_WAIT_SECONDS: JetStream's acknowledgement window for the event stream's consumers (server/events/jetstream.ts). */
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../server/config.js';

describe('NATS_ACK_WAIT_SECONDS', () => {
  const at = (v?: string) => loadConfig({ NATS_ACK_WAIT_SECONDS: v } as NodeJS.ProcessEnv).natsAckWaitSeconds;

  it('is 30 s unless set, and takes whole seconds from 5 to 300', () => {
    expect(at()).toBe(30);
    expect(at('')).toBe(30);
    expect(at('5')).toBe(5);
    expect(at('300')).toBe(300);
    for (const bad of ['4', '301', '0', '7.5', '-30', 'soon'])
      expect(() => at(bad)).toThrow(`NATS_ACK_WAIT_SECONDS must be a whole number of seconds from 5 to 300, not "${bad}"`);
  });
});
