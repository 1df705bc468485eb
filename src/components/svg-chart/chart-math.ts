/**
 * The arithmetic of the SVG charts (bar-chart.tsx, donut-chart.tsx), kept free of React and the DOM so it is tested
 * on its own (tests/unit/svg-chart.test.ts): value ticks, bands of a category axis, stacking, and arcs of a donut.
 */

/** A round step near `raw`: 1, 2, 3 or 5 times a power of ten, the nearest of them (as ECharts rounds its intervals). */
export function niceStep(raw: number): number {
  if (!(raw > 0) || !Number.isFinite(raw)) return 1;
  const power = 10 ** Math.floor(Math.log10(raw));
  const f = raw / power;
  const nice = f < 1.5 ? 1 : f < 2.5 ? 2 : f < 4 ? 3 : f < 7 ? 5 : 10;
  return tidy(nice * power);
}

/** A float without the noise of binary fractions (0.1 * 3 = 0.30000000000000004). */
const tidy = (v: number) => Number(v.toPrecision(12));

/**
 * The ticks of a value axis from 0 to at least `max`, about `count` intervals of a round step, the step never below
 * `minInterval` (1 for counts: no tick at 0.5 SMS). An axis of nothing (max 0) still has one interval to draw.
 */
export function valueTicks(max: number, count = 5, minInterval = 0): number[] {
  const top = max > 0 && Number.isFinite(max) ? max : minInterval || 1;
  const step = Math.max(niceStep(top / count), minInterval);
  const n = Math.max(1, Math.ceil(tidy(top / step)));
  return Array.from({ length: n + 1 }, (_, i) => tidy(i * step));
}

/** A category axis cut into equal bands: where band i starts and its centre, and the width of a bar in it. */
export interface Bands {
  /** The width of one band. */
  step: number;
  /** The bar's width: the band less its gaps (`gap`, a share of the band), at most `maxBar`. */
  bar: number;
  /** The left edge of band i. */
  start: (i: number) => number;
  /** The centre of band i. */
  centre: (i: number) => number;
  /** The band under an x position (clamped to the axis), for hovering. */
  at: (x: number) => number;
}

export function bands(count: number, width: number, gap = 0.2, maxBar = Infinity): Bands {
  const n = Math.max(1, count);
  const step = Math.max(0, width) / n;
  return {
    step,
    bar: Math.max(1, Math.min(step * (1 - gap), maxBar)),
    start: (i) => i * step,
    centre: (i) => (i + 0.5) * step,
    at: (x) => Math.min(n - 1, Math.max(0, Math.floor(step > 0 ? x / step : 0))),
  };
}

/**
 * Every how many bands a label can be written without touching its neighbours (1: under every bar), for labels up to
 * `labelWidth` wide with at least `gap` between them.
 */
export function labelEvery(step: number, labelWidth: number, gap = 8): number {
  if (!(step > 0)) return 1;
  return Math.max(1, Math.ceil((labelWidth + gap) / step));
}

/** One series' part of a stacked bar: from y0 to y1 in the values' units. */
export interface Segment {
  series: number;
  y0: number;
  y1: number;
}

/**
 * Stacks the series (each an array of values per category) bar by bar, in the series' order from the axis up.
 * Negative or missing values count as 0 (volumes and counts); a series left out (`hidden`) takes no room. Each bar's
 * segments of zero height are dropped, so the last segment is the bar's top (the one drawn with rounded corners).
 */
export function stack(series: number[][], hidden: ReadonlySet<number> = new Set()): { segments: Segment[][]; totals: number[] } {
  const count = Math.max(0, ...series.map((s) => s.length));
  const segments: Segment[][] = [];
  const totals: number[] = [];
  for (let i = 0; i < count; i++) {
    let y = 0;
    const bar: Segment[] = [];
    series.forEach((values, s) => {
      const v = values[i];
      if (hidden.has(s) || !(typeof v === 'number' && v > 0)) return;
      bar.push({ series: s, y0: y, y1: y + v });
      y += v;
    });
    segments.push(bar);
    totals.push(y);
  }
  return { segments, totals };
}

/** A rectangle with its top corners rounded (the top of a stacked bar), as an SVG path; the radius fits the rectangle. */
export function topRoundedRect(x: number, y: number, width: number, height: number, radius: number): string {
  const r = Math.max(0, Math.min(radius, width / 2, height));
  const f = (v: number) => round(v);
  if (r === 0) return `M${f(x)},${f(y + height)}V${f(y)}H${f(x + width)}V${f(y + height)}Z`;
  return (
    `M${f(x)},${f(y + height)}V${f(y + r)}A${f(r)},${f(r)} 0 0 1 ${f(x + r)},${f(y)}` +
    `H${f(x + width - r)}A${f(r)},${f(r)} 0 0 1 ${f(x + width)},${f(y + r)}V${f(y + height)}Z`
  );
}

const round = (v: number) => Math.round(v * 100) / 100;

/** The start and end angle of each value's slice of a whole turn, in radians from 12 o'clock, clockwise. */
export function sliceAngles(values: number[]): Array<{ a0: number; a1: number }> {
  const total = values.reduce((a, v) => a + (v > 0 ? v : 0), 0);
  let a = 0;
  return values.map((v) => {
    const a0 = a;
    a += total > 0 && v > 0 ? (v / total) * 2 * Math.PI : 0;
    return { a0, a1: a };
  });
}

/** A point at angle `a` (radians from 12 o'clock, clockwise) and radius r around (cx, cy). */
export function polar(cx: number, cy: number, r: number, a: number): [number, number] {
  return [round(cx + r * Math.sin(a)), round(cy - r * Math.cos(a))];
}

/**
 * The SVG path of a ring's slice from angle a0 to a1 between radii inner and outer (inner 0: a pie's wedge). A whole
 * turn is drawn as a full ring (two half arcs each way, filled even-odd), which a single arc cannot draw.
 */
export function arcPath(cx: number, cy: number, inner: number, outer: number, a0: number, a1: number): string {
  const span = a1 - a0;
  if (span <= 0) return '';
  if (span >= 2 * Math.PI - 1e-9) {
    const ring = (r: number) => {
      const [tx, ty] = polar(cx, cy, r, 0);
      const [bx, by] = polar(cx, cy, r, Math.PI);
      return `M${tx},${ty}A${r},${r} 0 1 1 ${bx},${by}A${r},${r} 0 1 1 ${tx},${ty}Z`;
    };
    return inner > 0 ? ring(outer) + ring(inner) : ring(outer);
  }
  const large = span > Math.PI ? 1 : 0;
  const [ox0, oy0] = polar(cx, cy, outer, a0);
  const [ox1, oy1] = polar(cx, cy, outer, a1);
  const outerArc = `M${ox0},${oy0}A${outer},${outer} 0 ${large} 1 ${ox1},${oy1}`;
  if (inner <= 0) return `${outerArc}L${round(cx)},${round(cy)}Z`;
  const [ix1, iy1] = polar(cx, cy, inner, a1);
  const [ix0, iy0] = polar(cx, cy, inner, a0);
  return `${outerArc}L${ix1},${iy1}A${inner},${inner} 0 ${large} 0 ${ix0},${iy0}Z`;
}
