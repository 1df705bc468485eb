import { describe, expect, it } from 'vitest';
import { dashboardViewOf, expiringSoonWindow } from '../../common/dashboard.js';
import { RESOURCES } from '../../common/resource-registry.js';
import { bucketLabel, bucketTooltip, changeOf, percent, snapshotTime } from '../../src/custom/dashboard/format.js';
import type { Bucket } from '../../src/custom/dashboard/use-dashboard.js';
import { formatKb, unitFor } from '../../src/resources/cell.js';
import { criteriaFromSearch } from '../../src/resources/linked-criteria.js';

describe('the dashboard console', () => {
  it('opens on the week when the address names no known view', () => {
    expect(dashboardViewOf(null)).toBe('week');
    expect(dashboardViewOf('year')).toBe('week');
    expect(dashboardViewOf('6months')).toBe('6months');
  });

  it('names an hour bucket on the UTC+8 clock, and days and months as the server named them', () => {
    expect(bucketLabel('2026-11-22T16:00Z', '24h', 'en-US')).toBe('00:00');
    expect(bucketLabel('2026-11-17', 'week', 'en-US')).toBe('Nov 17');
    expect(bucketLabel('2026-06', '6months', 'en-US')).toBe('Jun 2026');
    expect(bucketLabel('2026-06', '6months', 'zh-CN')).toBe('2026年6月');
  });

  it('compares with the previous period, and has no change when nothing came before', () => {
    expect(changeOf(150, 100)).toBeCloseTo(0.5);
    expect(changeOf(5, 0)).toBeNull();
    expect(percent(-0.123, 'en-US')).toBe('12%');
    expect(percent(0.012, 'en-US')).toBe('1.2%');
    expect(percent(0.5, 'en-US', 1)).toBe('50.0%');
  });

  it('draws a chart in the unit its largest value reads best in, up to TB', () => {
    // Written as formatKb writes it in tooltips and cards (Intl's short kilobyte).
    expect(unitFor(512).name).toBe('kB');
    expect(formatKb(512, 'en-US')).toBe('512 kB');
    expect(unitFor(1024).name).toBe('MB');
    expect(unitFor(3 * 1024 ** 2).name).toBe('GB');
    expect(unitFor(2 * 1024 ** 3).name).toBe('TB');
  });

  it('words a usage tooltip from each bucket’s own volume in the unit it reads best in, and totals the stack', () => {
    const bucket: Bucket = { label: '2026-11-17', start: '2026-11-16T16:00:00Z', uplinkKb: 1536, downlinkKb: 512, volumeKb: 2048, smsMo: 0, smsMt: 0 };
    const kb = (v: number) => formatKb(v, 'en-US');
    const words = [
      { name: 'Uplink', color: '#2f54eb', value: (b: Bucket) => kb(b.uplinkKb) },
      { name: 'Downlink', color: '#85a5ff', value: (b: Bucket) => kb(b.downlinkKb) },
    ];
    // The chart draws in KB here (its largest bar is under 1 GB): the tooltip still reads MB where a bucket has them.
    expect(bucketTooltip(bucket, 'week', 'en-US', words, { label: 'Total', of: (b) => kb(b.volumeKb) })).toEqual({
      head: 'Tue, Nov 17, 2026',
      lines: [
        { name: 'Uplink', color: '#2f54eb', value: '1.5 MB' },
        { name: 'Downlink', color: '#85a5ff', value: '512 kB' },
        { name: 'Total', value: '2 MB' },
      ],
    });
    // A series hidden by the legend leaves its line out; the total stays the bucket's.
    expect(bucketTooltip(bucket, 'week', 'en-US', words.slice(1), { label: 'Total', of: (b) => kb(b.volumeKb) }).lines.map((l) => l.value)).toEqual([
      '512 kB',
      '2 MB',
    ]);
    expect(formatKb(1536, 'zh-CN')).toBe('1.5 MB');
    expect(formatKb(1536, 'es-ES')).toBe('1,5 MB');
  });

  it('says when stored top-10 and heatmap figures were computed, and nothing for live ones or an older server', () => {
    expect(snapshotTime({ asOf: '2026-11-22T06:05:00.000Z', live: false })).toBe('2026-11-22T06:05:00.000Z');
    expect(snapshotTime({ asOf: '2026-11-22T06:05:00.000Z', live: true })).toBeNull();
    // An answer of a server without the fields, or with only one of them.
    expect(snapshotTime({})).toBeNull();
    expect(snapshotTime({ asOf: '2026-11-22T06:05:00.000Z' })).toBeNull();
    expect(snapshotTime({ live: false })).toBeNull();
    expect(snapshotTime({ asOf: 'soon', live: false })).toBeNull();
    expect(snapshotTime(null)).toBeNull();
  });

  it('counts expiring soon to the end of the UTC+8 day 45 days on', () => {
    // 15:59 UTC is still 23:59 of the 22nd in UTC+8; 16:01 UTC is the 23rd.
    expect(expiringSoonWindow(new Date('2026-11-22T15:59:00Z')).to.toISOString()).toBe('2027-01-06T16:00:00.000Z');
    expect(expiringSoonWindow(new Date('2026-11-22T16:01:00Z')).to.toISOString()).toBe('2027-01-07T16:00:00.000Z');
  });

  it('reads a list link: a known state, a date window, nothing else', () => {
    expect(criteriaFromSearch(RESOURCES.sims, '?status=active')).toEqual({ filters: { status: 'active' }, ranges: {} });
    expect(criteriaFromSearch(RESOURCES.sims, '?status=sleeping&view=week')).toBeNull();
    expect(criteriaFromSearch(RESOURCES.sims, '?expiresAtFrom=2026-11-22T00:00:00Z&expiresAtTo=2027-01-07T16:00:00Z')).toEqual({
      filters: {},
      ranges: { expiresAt: ['2026-11-22T00:00:00.000Z', '2027-01-07T16:00:00.000Z'] },
    });
  });
});
