/**
 * A SIM's cycle on its Service tab: what is left reads as what is left. A 1 GB bundle with a 50 MB top-up, 49.9 MB
 * used, once read "49.9 MB / 1 GB" and "Left: 1 GB" (both rounded to one decimal).
 */
import { describe, expect, it } from 'vitest';
import { cycleAmounts } from '../../src/custom/sim-detail/cycle-amounts';

const amounts = (usageKb: number, limitKb: number) => ({
  usageKb,
  limitKb,
  remainingKb: Math.max(0, limitKb - usageKb),
  overageKb: Math.max(0, usageKb - limitKb),
});

describe('cycle amounts', () => {
  it('shows what is left apart from the limit once something was used', () => {
    expect(cycleAmounts(amounts(51_098, 1_048_576 + 51_200), 'en-US')).toEqual({ used: '49.9 MB', limit: '1.05 GB', left: '1 GB', over: '0 kB' });
    expect(cycleAmounts(amounts(2_048, 5 * 1_048_576), 'en-US')).toMatchObject({ used: '2 MB', limit: '5 GB', left: '4.998 GB' });
    expect(cycleAmounts(amounts(51_098, 1_048_576 + 51_200), 'zh-CN').left).not.toBe(cycleAmounts(amounts(51_098, 1_048_576 + 51_200), 'zh-CN').limit);
  });

  it('keeps one decimal where that already tells them apart, and says nothing is used when nothing is', () => {
    expect(cycleAmounts(amounts(51_098, 1_048_576), 'en-US')).toMatchObject({ used: '49.9 MB', limit: '1 GB', left: '974.1 MB' });
    expect(cycleAmounts(amounts(0, 1_048_576), 'en-US')).toMatchObject({ used: '0 kB', limit: '1 GB', left: '1 GB' });
    expect(cycleAmounts({ usageKb: 10, limitKb: null, remainingKb: null, overageKb: null }, 'en-US')).toEqual({
      used: '10 kB',
      limit: null,
      left: null,
      over: null,
    });
  });

  it('tells left from the limit whenever a thousandth of it or more was used', () => {
    for (const [used, limit] of [
      [1_100, 1_048_576],
      [999, 10_240],
      [1_048_575, 1_048_576],
      [3_000_000, 5_242_880],
      [5_243, 5_242_880],
      [1_100, 1_099_776],
    ]) {
      const a = cycleAmounts(amounts(used, limit), 'en-US');
      expect(a.left, `${used} of ${limit}`).not.toBe(a.limit);
    }
  });
});
