/**
 * SMS statuses as they change: the organisation's `sms` live events (server/live/live-consumer.ts: an SMS
 * received, delivered or failed, a scheduled run ended), gathered for a quarter of a second so that a burst of reports
 * makes one refresh. Returns whether the stream is open: a page refreshes itself slowly only while it is not.
 */
import { useEffect, useRef, useState } from 'react';
import { onLiveUp, subscribeLive } from '../../providers/live';

export interface LiveSmsChange {
  smsIds: string[];
  statuses: string[];
  scheduleIds: string[];
}

const GATHER_MS = 250;

export function useLiveSms(onChange: (change: LiveSmsChange) => void): boolean {
  const [up, setUp] = useState(false);
  const handler = useRef(onChange);
  handler.current = onChange;
  useEffect(() => {
    let pending: LiveSmsChange | null = null;
    let timer: ReturnType<typeof setTimeout> | null = null;
    const stop = subscribeLive('sms', (data) => {
      const d = (data ?? {}) as Partial<LiveSmsChange>;
      pending ??= { smsIds: [], statuses: [], scheduleIds: [] };
      pending.smsIds.push(...(d.smsIds ?? []));
      pending.statuses.push(...(d.statuses ?? []));
      pending.scheduleIds.push(...(d.scheduleIds ?? []));
      timer ??= setTimeout(() => {
        const change = pending!;
        pending = null;
        timer = null;
        handler.current(change);
      }, GATHER_MS);
    });
    const stopUp = onLiveUp(setUp);
    return () => {
      stop();
      stopUp();
      if (timer) clearTimeout(timer);
    };
  }, []);
  return up;
}
