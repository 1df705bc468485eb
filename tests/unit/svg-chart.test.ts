/** The arithmetic of the dashboard's SVG charts (src/components/svg-chart/chart-math.ts). */
import { describe, expect, it } from 'vitest';
import { arcPath, bands, labelEvery, niceStep, polar, sliceAngles, stack, topRoundedRect, valueTicks } from '../../src/components/svg-chart/chart-math.js';

describe('the value axis', () => {
  it('takes a round step of 1, 2, 3 or 5 times a power of ten, the nearest to the one asked', () => {
    expect(niceStep(0.694)).toBe(0.5);
    expect(niceStep(0.75)).toBe(1);
    expect(niceStep(1.4)).toBe(1);
    expect(niceStep(1.6)).toBe(2);
    expect(niceStep(3.9)).toBe(3);
    expect(niceStep(120)).toBe(100);
    expect(niceStep(0.00021)).toBe(0.0002);
    expect(niceStep(0)).toBe(1);
    expect(niceStep(Number.NaN)).toBe(1);
  });

  it('ticks from 0 to the first round step at or above the largest value, without float noise', () => {
    // The week's data usage as the dashboard had it: 3.47 GB at most, ticks every 0.5 GB up to 3.5.
    expect(valueTicks(3.47)).toEqual([0, 0.5, 1, 1.5, 2, 2.5, 3, 3.5]);
    expect(valueTicks(540)).toEqual([0, 100, 200, 300, 400, 500, 600]);
    expect(valueTicks(0.3)).toEqual([0, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3]);
    // The SMS of a week as the dashboard had them (33 at most); a top exactly on a step keeps it as the top.
    expect(valueTicks(33)).toEqual([0, 5, 10, 15, 20, 25, 30, 35]);
    expect(valueTicks(25)).toEqual([0, 5, 10, 15, 20, 25]);
  });

  it('never ticks below the smallest interval (whole SMS), and draws one interval for an axis of nothing', () => {
    expect(valueTicks(3, 5, 1)).toEqual([0, 1, 2, 3]);
    expect(valueTicks(1, 5, 1)).toEqual([0, 1]);
    expect(valueTicks(7, 5, 1)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect(valueTicks(0)).toEqual([0, 0.2, 0.4, 0.6, 0.8, 1]);
    expect(valueTicks(0, 5, 1)).toEqual([0, 1]);
    expect(valueTicks(Number.POSITIVE_INFINITY, 5, 1)).toEqual([0, 1]);
  });
});

describe('the category axis', () => {
  it('cuts the width into equal bands, a bar 80 % of its band up to its largest width, centred', () => {
    const b = bands(7, 700, 0.2, 36);
    expect(b.step).toBe(100);
    expect(b.bar).toBe(36);
    expect(b.start(2)).toBe(200);
    expect(b.centre(2)).toBe(250);
    expect(bands(24, 480, 0.2, 36).bar).toBe(16);
  });

  it('finds the band under the pointer, the axis ends included', () => {
    const b = bands(4, 400);
    expect(b.at(0)).toBe(0);
    expect(b.at(99.9)).toBe(0);
    expect(b.at(100)).toBe(1);
    expect(b.at(400)).toBe(3);
    expect(b.at(-5)).toBe(0);
    expect(bands(0, 0).at(10)).toBe(0);
  });

  it('writes a label under every band where it fits, and under every n-th where it would touch its neighbour', () => {
    expect(labelEvery(100, 40)).toBe(1);
    expect(labelEvery(25, 32)).toBe(2);
    expect(labelEvery(20, 70, 10)).toBe(4);
    expect(labelEvery(0, 40)).toBe(1);
  });
});

describe('stacking', () => {
  it('stacks each bar from the axis up in the series order, and totals it', () => {
    const { segments, totals } = stack([
      [1, 0, 2],
      [3, 4, 0],
    ]);
    expect(totals).toEqual([4, 4, 2]);
    expect(segments[0]).toEqual([
      { series: 0, y0: 0, y1: 1 },
      { series: 1, y0: 1, y1: 4 },
    ]);
    // Zero-height segments are left out: the last segment is the top, the one with rounded corners.
    expect(segments[1]).toEqual([{ series: 1, y0: 0, y1: 4 }]);
    expect(segments[2]).toEqual([{ series: 0, y0: 0, y1: 2 }]);
  });

  it('leaves out a hidden series, and counts negative or missing values as nothing', () => {
    const { segments, totals } = stack(
      [
        [1, -2, 5],
        [3, 4],
      ],
      new Set([0]),
    );
    expect(totals).toEqual([3, 4, 0]);
    expect(segments[2]).toEqual([]);
    expect(
      stack([
        [-1, 2],
        [Number.NaN, 1],
      ]).totals,
    ).toEqual([0, 3]);
    expect(stack([]).segments).toEqual([]);
  });

  it('rounds the top corners of a bar, never more than the bar holds', () => {
    expect(topRoundedRect(10, 20, 30, 100, 3)).toBe('M10,120V23A3,3 0 0 1 13,20H37A3,3 0 0 1 40,23V120Z');
    // A bar 1 px high gets a 1 px radius; a bar of no radius is a plain rectangle.
    expect(topRoundedRect(0, 0, 10, 1, 3)).toBe('M0,1V1A1,1 0 0 1 1,0H9A1,1 0 0 1 10,1V1Z');
    expect(topRoundedRect(0, 0, 10, 5, 0)).toBe('M0,5V0H10V5Z');
  });
});

describe('the donut', () => {
  it('gives each value its share of a whole turn from 12 o’clock, clockwise, and nothing to a zero', () => {
    const a = sliceAngles([1, 0, 3]);
    expect(a[0]).toEqual({ a0: 0, a1: Math.PI / 2 });
    expect(a[1]).toEqual({ a0: Math.PI / 2, a1: Math.PI / 2 });
    expect(a[2].a0).toBe(Math.PI / 2);
    expect(a[2].a1).toBeCloseTo(2 * Math.PI);
    expect(sliceAngles([0, 0])).toEqual([
      { a0: 0, a1: 0 },
      { a0: 0, a1: 0 },
    ]);
  });

  it('places angles on the clock face: 12 o’clock up, 3 o’clock right', () => {
    expect(polar(100, 100, 50, 0)).toEqual([100, 50]);
    expect(polar(100, 100, 50, Math.PI / 2)).toEqual([150, 100]);
    expect(polar(100, 100, 50, Math.PI)).toEqual([100, 150]);
  });

  it('draws a slice between its radii, with the large-arc flag past half a turn', () => {
    expect(arcPath(100, 100, 50, 80, 0, Math.PI / 2)).toBe('M100,20A80,80 0 0 1 180,100L150,100A50,50 0 0 0 100,50Z');
    expect(arcPath(100, 100, 50, 80, 0, (3 * Math.PI) / 2)).toContain('A80,80 0 1 1 20,100');
    // A pie's wedge (no inner radius) closes at the centre.
    expect(arcPath(100, 100, 0, 80, 0, Math.PI / 2)).toBe('M100,20A80,80 0 0 1 180,100L100,100Z');
    expect(arcPath(100, 100, 50, 80, 1, 1)).toBe('');
  });

  it('draws a single state of every SIM as a whole ring, outer and inner circle (filled even-odd)', () => {
    const d = arcPath(100, 100, 50, 80, 0, 2 * Math.PI);
    expect(d).toBe('M100,20A80,80 0 1 1 100,180A80,80 0 1 1 100,20ZM100,50A50,50 0 1 1 100,150A50,50 0 1 1 100,50Z');
  });
});
