import { describe, expect, it } from 'vitest';
import { dueDateOf, major, minorOf } from '../../common/billing';

describe('invoice due date (SPEC.md section 9): 10 days after issue or month end, whichever is earlier', () => {
  it.each([
    ['2026-11-05T09:00:00Z', '2026-11-15', '10 days fall inside the month'],
    ['2026-11-20T23:59:59Z', '2026-11-30', '10 days reach the last day exactly'],
    ['2026-11-21T00:00:00Z', '2026-11-30', 'one day later, the month end comes first'],
    ['2026-12-21T12:00:00Z', '2026-12-31', 'a 31-day month: the 21st plus 10 is the 31st'],
    ['2026-12-22T12:00:00Z', '2026-12-31', 'the 22nd: month end'],
    ['2027-02-19T00:00:00Z', '2027-02-28', 'February of a common year'],
    ['2028-02-19T00:00:00Z', '2028-02-29', 'February of a leap year: the 19th plus 10 is the 29th'],
    ['2026-11-30T23:59:59Z', '2026-11-30', 'issued on the last day: due the same day'],
    ['2026-12-01T00:00:00Z', '2026-12-11', 'the first of the month, UTC'],
  ])('%s → %s (%s)', (issued, due) => {
    expect(dueDateOf(new Date(issued))).toBe(due);
  });
});

describe('money as minor units: major writes them as two-decimal text, minorOf reads it back exactly', () => {
  it.each([
    [0, '0.00'],
    [1, '0.01'],
    [-1, '-0.01'],
    [-50, '-0.50'],
    [1999, '19.99'],
    [123456, '1234.56'],
    [9_999_999_999, '99999999.99'],
  ])('%i ↔ %s', (minor, text) => {
    expect(major(minor)).toBe(text);
    expect(minorOf(text)).toBe(minor);
  });

  it('reads the texts whose float is just below the cent (19.99 × 100 is 1998.9999…) as the cent, for every cent to 2,000.00', () => {
    for (let minor = 0; minor <= 200_000; minor++) if (minorOf(major(minor)) !== minor) throw new Error(`${minor} read back as ${minorOf(major(minor))}`);
    expect(minorOf('19.99')).toBe(1999);
    expect(minorOf('4.35')).toBe(435);
  });
});
