// @vitest-environment jsdom
import { act, renderHook } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { formatDuration, formatTime, formatTimeParts as parts } from '../../src/components/date-time';
import { useDebouncedValue } from '../../src/components/use-debounced-value';
import { parseFrames } from '../../src/providers/live';

describe('useDebouncedValue (SPEC.md section 9: 300 ms)', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('hands on a value only once it has stood still for 300 ms', () => {
    const { result, rerender } = renderHook(({ v }) => useDebouncedValue(v), { initialProps: { v: 'a' } });
    rerender({ v: 'ab' });
    act(() => void vi.advanceTimersByTime(299));
    expect(result.current).toBe('a');
    rerender({ v: 'abc' });
    act(() => void vi.advanceTimersByTime(299));
    expect(result.current).toBe('a');
    act(() => void vi.advanceTimersByTime(1));
    expect(result.current).toBe('abc');
  });
});

describe('times shown in the console', () => {
  const at = '2026-11-22T15:59:30Z';

  it('in UTC, marked so, in each language', () => {
    // ICU writes a narrow no-break space before PM in newer versions, a space in older ones.
    expect(formatTime(at, 'UTC', 'en-US').replace(/\u202f/g, ' ')).toBe('Nov 22, 2026, 3:59:30 PM UTC');
    expect(formatTime(at, 'UTC', 'zh-CN')).toBe('2026年11月22日 15:59:30 UTC');
    expect(formatTime(at, 'UTC', 'es-ES')).toBe('22 nov 2026, 15:59:30 UTC');
  });

  it('in local time without the mark, and nothing for a value that is not a time', () => {
    expect(formatTime(at, 'local', 'en-US')).not.toMatch(/UTC$/);
    expect(formatTime('not a time', 'UTC', 'en-US')).toBe('');
  });

  it('in two pieces, the date and the time, where a narrow column may break the line; without the year for a list of recent days', () => {
    const formatTimeParts = (...a: Parameters<typeof parts>) => parts(...a).map((p) => p.replace(/\u202f/g, ' '));
    expect(formatTimeParts(at, 'UTC', 'en-US')).toEqual(['Nov 22, 2026, ', '3:59:30 PM UTC']);
    expect(formatTimeParts(at, 'UTC', 'zh-TW')).toEqual(['2026年11月22日 ', '下午3:59:30 UTC']);
    expect(formatTimeParts(at, 'UTC', 'en-US', true)).toEqual(['Nov 22, ', '3:59:30 PM UTC']);
    expect(formatTimeParts(at, 'UTC', 'es-ES', true)).toEqual(['22 nov, ', '15:59:30 UTC']);
    expect(formatTimeParts(at, 'UTC', 'zh-CN', true)).toEqual(['11月22日 ', '15:59:30 UTC']);
  });

  it('durations by their two largest units', () => {
    expect(formatDuration(0, 'en-US')).toBe('0 sec');
    expect(formatDuration(125_000, 'en-US')).toBe('2 min 5 sec');
    expect(formatDuration(3_726_000, 'en-US')).toBe('1 hr 2 min');
  });
});

describe('server-sent event frames', () => {
  it('parses events, ids, multi-line data and comments, keeping an unfinished frame for later', () => {
    const seen: Array<{ event: string; data: string; id?: string }> = [];
    const rest = parseFrames(': keep-alive\n\nid: 7\nevent: task\ndata: {"a":1}\n\nevent: ready\ndata: x\ndata: y\n\nevent: par', (f) => seen.push(f));
    expect(seen).toEqual([
      { event: 'task', data: '{"a":1}', id: '7' },
      { event: 'ready', data: 'x\ny' },
    ]);
    expect(rest).toBe('event: par');
  });
});
