// @vitest-environment jsdom
import { cleanup, render, screen } from '@testing-library/react';
import { ConfigProvider, theme } from 'antd';
import { createElement } from 'react';
import { MemoryRouter } from 'react-router';
import { describe, expect, it, vi } from 'vitest';
import { FigureCards } from '../../src/custom/dashboard/figure-cards';
import type { CardFigures } from '../../src/custom/dashboard/use-dashboard';
import { AA, contrast, readableShade, readableTheme, textOn } from '../../src/providers/readable-theme';
import { consoleInJsdom } from '../jsdom';

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

describe('a rise and a fall on the dashboard read on every brand', () => {
  vi.setConfig({ testTimeout: 30_000 });
  consoleInJsdom();

  const rgbHex = (rgb: string) =>
    `#${(rgb.match(/\d+/g) ?? [])
      .slice(0, 3)
      .map((v) => Number(v).toString(16).padStart(2, '0'))
      .join('')}`;

  /** The colour the figure cards draw a change in, under the brand's theme: SMS up, data down (or the other way). */
  function changeColours(brand: string, figures: Partial<CardFigures>): { up: string; down: string; card: string } {
    const f: CardFigures = {
      totalSims: 10,
      activeSims: 8,
      onlineSims: 4,
      expiringSoon: 1,
      expiringSoonDays: 30,
      usageKb: 100,
      previousUsageKb: 100,
      sms: 100,
      previousSms: 100,
      ...figures,
    };
    const call = { data: f, failed: false, updatedAt: Date.now(), reload: () => undefined };
    render(
      createElement(ConfigProvider, { theme: readableTheme(brand) }, createElement(MemoryRouter, null, createElement(FigureCards, { call, view: 'week' }))),
    );
    const colourOf = (label: string) => rgbHex(getComputedStyle(screen.getByLabelText(label).closest('.ant-typography')!).color);
    return { up: colourOf('Up'), down: colourOf('Down'), card: theme.getDesignToken(readableTheme(brand)).colorBgContainer };
  }

  it.each(BRANDS)('with %s a rise is green and a fall red, each 4.5:1 on the card', (brand) => {
    for (const figures of [
      { sms: 150, usageKb: 50 },
      { sms: 50, usageKb: 150 },
    ]) {
      const { up, down, card } = changeColours(brand, figures);
      const [r, g] = [parseInt(up.slice(1, 3), 16), parseInt(up.slice(3, 5), 16)];
      expect(g, `a rise in ${up}`).toBeGreaterThan(r);
      expect(parseInt(down.slice(1, 3), 16), `a fall in ${down}`).toBeGreaterThan(parseInt(down.slice(3, 5), 16));
      expect(contrast(up, card), `rise ${up} on ${card}`).toBeGreaterThanOrEqual(AA);
      expect(contrast(down, card), `fall ${down} on ${card}`).toBeGreaterThanOrEqual(AA);
      cleanup();
    }
  });
});
