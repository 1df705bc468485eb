import { describe, expect, it } from 'vitest';
import { AA, contrast, readableShade, readableTheme, textOn } from '../../src/providers/readable-theme';

// The four demo brands (server/db/seed.ts) and two colours at the ends of the range.
const BRANDS = ['#d4380d', '#1677ff', '#13a8a8', '#389e0d', '#ffe600', '#000080'];

describe('text colours picked from a brand colour', () => {
  it('measures contrast as WCAG does', () => {
    expect(contrast('#000000', '#ffffff')).toBeCloseTo(21, 5);
    expect(contrast('#777777', '#ffffff')).toBeCloseTo(4.48, 2);
  });

  it.each(BRANDS)('text in %s reads on white, the page grey and the brand’s own tint', (brand) => {
    const t = readableTheme(brand).token!;
    for (const bg of ['#ffffff', '#f5f5f5']) expect(contrast(t.colorLink!, bg)).toBeGreaterThanOrEqual(AA);
    expect(t.colorPrimary).toBe(brand);
  });

  it.each(BRANDS)('text on a fill of %s reads', (brand) => {
    expect(contrast(textOn(brand), brand)).toBeGreaterThanOrEqual(AA);
  });

  it('keeps a colour that already reads, and darkens one that does not', () => {
    expect(readableShade('#0958d9', ['#ffffff'])).toBe('#0958d9');
    expect(readableShade('#13a8a8', ['#ffffff'])).not.toBe('#13a8a8');
  });

  it('writes white on a dark fill and a dark shade of the hue on a light one', () => {
    expect(textOn('#d4380d')).toBe('#ffffff');
    expect(textOn('#13a8a8')).not.toBe('#ffffff');
  });
});
