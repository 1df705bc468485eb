/**
 * Keep-alive for the screens SPEC.md section 2 marks: simCard, autoflow and developerView keep their state (filters,
 * pages, scroll) when the user goes elsewhere and comes back; cdrCard only when coming back from chartView. A kept
 * screen stays mounted and hidden; every other screen is mounted afresh.
 */
import { Skeleton } from 'antd';
import { Suspense, useEffect, useRef, type ReactNode } from 'react';
import { useLocation, useOutlet } from 'react-router';
import { screenOf } from './routes';

/** Screens kept alive always. */
export const KEEP_ALIVE = ['simCard', 'autoflow', 'developerView'] as const;
/** cdrCard is kept only for a trip to its chart and back. */
const CONDITIONAL: Record<string, string> = { cdrCard: 'chartView' };

const isKept = (key: string | undefined) => !!key && ((KEEP_ALIVE as readonly string[]).includes(key) || key in CONDITIONAL);

export function KeepAliveOutlet() {
  const outlet = useOutlet();
  const { pathname } = useLocation();
  const key = screenOf(pathname)?.key;
  const cache = useRef(new Map<string, ReactNode>());
  const previous = useRef<string | undefined>(undefined);

  // Leaving cdrCard for anything but its chart, or leaving the chart for anything but cdrCard, forgets cdrCard.
  const prev = previous.current;
  for (const [kept, companion] of Object.entries(CONDITIONAL)) {
    if (prev === kept && key !== companion && key !== kept) cache.current.delete(kept);
    if (prev === companion && key !== kept && key !== companion) cache.current.delete(kept);
  }
  if (isKept(key) && !cache.current.has(key!)) cache.current.set(key!, outlet);

  useEffect(() => {
    previous.current = key;
    sessionStorage.setItem('keepAlive', JSON.stringify([...cache.current.keys()]));
  }, [key]);

  return (
    <Suspense fallback={<Skeleton active />}>
      {[...cache.current.entries()].map(([k, element]) => (
        <div key={k} data-keep-alive={k} hidden={k !== key}>
          {element}
        </div>
      ))}
      {!isKept(key) && outlet}
    </Suspense>
  );
}
