import { useEffect, useState } from 'react';
import { LIMITS } from '../../common/limits';

/** The value once it has stopped changing for the debounce time (SPEC.md section 9: 300 ms), for inputs that query. */
export function useDebouncedValue<T>(value: T, ms: number = LIMITS.debounceMs): T {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => setSettled(value), ms);
    return () => clearTimeout(timer);
  }, [value, ms]);
  return settled;
}
