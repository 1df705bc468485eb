/** The occurrences of scheduled SMS (server/sms-schedules/recurrence.ts, croner): weekdays, zones, daylight saving, ends. */
import { describe, expect, it } from 'vitest';
import { isTimeZone, nextOccurrence, nextOccurrences, previousOccurrences, type Recurrence } from '../../server/sms-schedules/recurrence.js';

const berlin = (over: Partial<Recurrence> = {}): Recurrence => ({
  mode: 'repeated',
  weekdays: [1, 2, 3, 4, 5, 6, 7],
  sendTime: '09:00',
  timezone: 'Europe/Berlin',
  startAt: new Date('2027-03-01T00:00:00Z'),
  endAt: null,
  ...over,
});
const iso = (ds: Date[]) => ds.map((d) => d.toISOString());

describe('scheduled SMS recurrence', () => {
  it('keeps 09:00 Berlin time through the March change (08:00Z before, 07:00Z after)', () => {
    expect(iso(nextOccurrences(berlin(), new Date('2027-03-26T00:00:00Z'), 4))).toEqual([
      '2027-03-26T08:00:00.000Z',
      '2027-03-27T08:00:00.000Z',
      '2027-03-28T07:00:00.000Z',
      '2027-03-29T07:00:00.000Z',
    ]);
  });

  it('keeps 09:00 Berlin time through the October change (07:00Z before, 08:00Z after)', () => {
    expect(iso(nextOccurrences(berlin({ startAt: new Date('2026-10-01T00:00:00Z') }), new Date('2026-10-24T00:00:00Z'), 3))).toEqual([
      '2026-10-24T07:00:00.000Z',
      '2026-10-25T08:00:00.000Z',
      '2026-10-26T08:00:00.000Z',
    ]);
  });

  it('sends a time the spring change skips at the first valid time after the gap, once', () => {
    const r = berlin({ weekdays: [7], sendTime: '02:30' });
    // 28 March 2027 has no 02:30 in Berlin: 03:00 CEST is 01:00Z.
    expect(iso(nextOccurrences(r, new Date('2027-03-22T00:00:00Z'), 2))).toEqual(['2027-03-28T01:00:00.000Z', '2027-04-04T00:30:00.000Z']);
  });

  it('sends a time the autumn change repeats once, at its first pass', () => {
    const r = berlin({ weekdays: [7], sendTime: '02:30', startAt: new Date('2026-10-01T00:00:00Z') });
    // 25 October 2026: 02:30 CEST (00:30Z) and again 02:30 CET (01:30Z); only the first.
    expect(iso(nextOccurrences(r, new Date('2026-10-20T00:00:00Z'), 2))).toEqual(['2026-10-25T00:30:00.000Z', '2026-11-01T01:30:00.000Z']);
  });

  it('takes ISO weekdays, 7 being Sunday, and ends before its end time', () => {
    const r = berlin({ weekdays: [1, 7], timezone: 'UTC', startAt: new Date('2027-05-01T00:00:00Z'), endAt: new Date('2027-05-10T09:00:00Z') });
    expect(iso(nextOccurrences(r, new Date('2027-05-01T00:00:00Z'), 5))).toEqual([
      '2027-05-02T09:00:00.000Z',
      '2027-05-03T09:00:00.000Z',
      '2027-05-09T09:00:00.000Z',
    ]);
  });

  it('does not start before its start', () => {
    expect(nextOccurrence(berlin({ startAt: new Date('2027-06-15T12:00:00Z') }), new Date('2027-06-01T00:00:00Z'))?.toISOString()).toBe(
      '2027-06-16T07:00:00.000Z',
    );
  });

  it('sends a once-only schedule at its start and never again', () => {
    const r = berlin({ mode: 'once', weekdays: [], startAt: new Date('2027-06-15T12:34:00Z') });
    expect(nextOccurrence(r, new Date('2027-06-01T00:00:00Z'))?.toISOString()).toBe('2027-06-15T12:34:00.000Z');
    expect(nextOccurrence(r, new Date('2027-06-15T12:34:00Z'))).toBeNull();
    expect(iso(previousOccurrences(r, new Date('2027-07-01T00:00:00Z'), 3))).toEqual(['2027-06-15T12:34:00.000Z']);
  });

  it('lists previous occurrences oldest first', () => {
    expect(iso(previousOccurrences(berlin({ timezone: 'UTC' }), new Date('2027-03-10T10:00:00Z'), 2))).toEqual([
      '2027-03-09T09:00:00.000Z',
      '2027-03-10T09:00:00.000Z',
    ]);
  });

  it('knows IANA zones and refuses others', () => {
    expect(isTimeZone('Europe/Berlin')).toBe(true);
    expect(isTimeZone('UTC')).toBe(true);
    expect(isTimeZone('Mars/Olympus')).toBe(false);
    expect(isTimeZone('')).toBe(false);
  });
});
