/** The heatmap's chart option: countries shaded by the chosen measure, the server's cells as circles, two legends. */
import type { EChartsOption } from 'echarts';
import type { TFunction } from 'i18next';
import { formatKb } from '../../resources/cell';
import type { Freshness } from './use-dashboard';
import { formatNumber } from '../../../common/numbers';

export type Measure = 'sims' | 'usage';
export const MEASURES: Measure[] = ['sims', 'usage'];

export interface HeatmapCell {
  lat: number;
  lon: number;
  sims: number;
  usageKb: number;
}
export interface HeatmapCountry {
  country: string;
  sims: number;
  usageKb: number;
}
export interface HeatmapData extends Freshness {
  view: string;
  cellDeg: number;
  totalSims: number;
  locatedSims: number;
  usageKb: number;
  cells: HeatmapCell[];
  countries: HeatmapCountry[];
  max: { cellSims: number; cellUsageKb: number; countrySims: number; countryUsageKb: number };
}

export const valueOf = (x: { sims: number; usageKb: number }, measure: Measure) => (measure === 'sims' ? x.sims : x.usageKb);

/** A figure of the measure as people read it: a count, or a volume in KB, MB or GB. */
export function formatMeasure(value: number, measure: Measure, lang: string): string {
  return measure === 'sims' ? formatNumber(value, lang) : formatKb(value, lang);
}

/** The part of the world the SIMs are in, with room around it; the whole world for a fleet spread over it. */
export function boundsOf(cells: HeatmapCell[], cellDeg: number): [[number, number], [number, number]] {
  const lats = cells.map((c) => c.lat);
  const lons = cells.map((c) => c.lon);
  const [s, n, w, e] = [Math.min(...lats), Math.max(...lats), Math.min(...lons), Math.max(...lons)];
  // At least 24° wide and 12° high, so a fleet in one city still shows the country around it.
  const padLon = Math.max((24 - (e - w)) / 2, (e - w) * 0.25) + cellDeg;
  const padLat = Math.max((12 - (n - s)) / 2, (n - s) * 0.25) + cellDeg;
  return [
    [Math.max(-180, w - padLon), Math.min(84, n + padLat)],
    [Math.min(180, e + padLon), Math.max(-58, s - padLat)],
  ];
}

interface Context {
  t: TFunction;
  lang: string;
  countryName: (code: string) => string;
  map: string;
  /** Light to strong, for countries and for cells. */
  colors: { country: [string, string]; cell: [string, string]; border: string; land: string };
}

interface Item {
  name?: string;
  sims?: number;
  usageKb?: number;
  value?: number | number[];
}

/** The option of the map for one answer and one measure. */
export function heatmapOption(data: HeatmapData, measure: Measure, ctx: Context): EChartsOption {
  const { t, lang } = ctx;
  const fmt = (v: number) => formatMeasure(v, measure, lang);
  const countryMax = Math.max(1, measure === 'sims' ? data.max.countrySims : data.max.countryUsageKb);
  const cellMax = Math.max(1, measure === 'sims' ? data.max.cellSims : data.max.cellUsageKb);
  const lines = (title: string, x: Item) =>
    `<b>${title}</b><br/>${t('heatmap.measure.sims')}: ${formatNumber(x.sims ?? 0, lang)}<br/>${t('heatmap.measure.usage')}: ${formatKb(x.usageKb ?? 0, lang)}`;
  const coord = (v: number) => formatNumber(v, lang, { minimumFractionDigits: 2, maximumFractionDigits: 2 });
  // The formatter also words the value a legend points at while a country or cell is hovered.
  const legend = {
    type: 'continuous',
    calculable: false,
    itemHeight: 90,
    itemWidth: 12,
    bottom: 16,
    textStyle: { fontSize: 12 },
    formatter: (v: unknown) => fmt(Number(v)),
  } as const;
  return {
    tooltip: {
      trigger: 'item',
      formatter: (p) => {
        const one = Array.isArray(p) ? p[0] : p;
        const x = (one.data ?? {}) as Item;
        if (one.seriesType === 'scatter') {
          const [lon, lat] = x.value as number[];
          return lines(t('heatmap.tooltip.area', { deg: data.cellDeg, lat: coord(lat), lon: coord(lon) }), x);
        }
        if (!one.name) return '';
        return x.sims ? lines(ctx.countryName(one.name), x) : `<b>${ctx.countryName(one.name)}</b><br/>${t('heatmap.tooltip.none')}`;
      },
    },
    geo: {
      map: ctx.map,
      roam: true,
      boundingCoords: boundsOf(data.cells, data.cellDeg),
      scaleLimit: { min: 0.05, max: 40 },
      itemStyle: { areaColor: ctx.colors.land, borderColor: ctx.colors.border, borderWidth: 0.6 },
      emphasis: { label: { show: false }, itemStyle: { areaColor: ctx.colors.country[1] } },
      select: { disabled: true },
    },
    visualMap: [
      {
        ...legend,
        seriesIndex: 0,
        left: 16,
        min: 0,
        max: countryMax,
        text: [`${t('heatmap.legend.countries')} · ${fmt(countryMax)}`, fmt(0)],
        inRange: { color: ctx.colors.country },
      },
      {
        ...legend,
        seriesIndex: 1,
        dimension: 2,
        right: 16,
        min: 0,
        max: cellMax,
        text: [`${t('heatmap.legend.cells', { deg: data.cellDeg })} · ${fmt(cellMax)}`, fmt(0)],
        inRange: { color: ctx.colors.cell, symbolSize: [5, 18] },
      },
    ],
    series: [
      {
        type: 'map',
        geoIndex: 0,
        data: data.countries.map((c) => ({ name: c.country, value: valueOf(c, measure), sims: c.sims, usageKb: c.usageKb })),
      },
      {
        type: 'scatter',
        coordinateSystem: 'geo',
        // The largest first, so the smaller cells drawn over it stay visible.
        data: [...data.cells]
          .sort((a, b) => valueOf(b, measure) - valueOf(a, measure))
          .map((c) => ({ value: [c.lon, c.lat, valueOf(c, measure)], sims: c.sims, usageKb: c.usageKb })),
        itemStyle: { opacity: 0.8, borderColor: '#fff', borderWidth: 1 },
        emphasis: { scale: 1.3 },
      },
    ],
  };
}
