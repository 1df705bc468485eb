import { useSyncExternalStore } from 'react';
import { store, type StorageKey } from './session-store';

const EVENT = 'sessionchange';

/** Tell the components that read stored session values that one changed. */
export const announceSessionChange = () => window.dispatchEvent(new Event(EVENT));

/** A stored session value that re-renders when announceSessionChange() or another tab changes it. */
export function useSessionValue(key: StorageKey): string | null {
  return useSyncExternalStore(
    (notify) => {
      window.addEventListener(EVENT, notify);
      window.addEventListener('storage', notify);
      return () => {
        window.removeEventListener(EVENT, notify);
        window.removeEventListener('storage', notify);
      };
    },
    () => store.get(key),
  );
}
