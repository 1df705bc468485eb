/**
 * The heatmap's world map: ECharts geo by module (ARCHITECTURE.md stack notes) over Natural Earth's countries at
 * 1:50m from the world-atlas package, so nothing is fetched at run time. The heatmap page loads this file lazily: the
 * map data (about 240 KB compressed) and ECharts arrive only on this page, never before sign-in.
 */
import { MapChart, ScatterChart } from 'echarts/charts';
import { GeoComponent, TooltipComponent, VisualMapComponent } from 'echarts/components';
import * as echarts from 'echarts/core';
import { CanvasRenderer } from 'echarts/renderers';
import ReactEChartsCore from 'echarts-for-react/esm/core';
import type { EChartsOption } from 'echarts';
import * as iso from 'iso-3166-1';
import { feature } from 'topojson-client';
import type { GeometryCollection, Topology } from 'topojson-specification';
import world from 'world-atlas/countries-50m.json';

echarts.use([MapChart, ScatterChart, GeoComponent, TooltipComponent, VisualMapComponent, CanvasRenderer]);

/** Natural Earth names a few places that ISO 3166 numbers not; GeoNames (the server's geocoder) calls Kosovo XK. */
const NO_NUMBER: Record<string, string> = { Kosovo: 'XK' };
/** Antarctica takes a fifth of the map's height and holds no SIMs. */
const LEFT_OUT = new Set(['010']);

/** The map's name in ECharts' registry. */
export const WORLD = 'world-50m';

// Registered once per page load: each country is named by its ISO 3166 alpha-2 code, as the server names countries.
if (!echarts.getMap(WORLD)) {
  const topology = world as unknown as Topology<{ countries: GeometryCollection<{ name: string }> }>;
  const countries = feature(topology, topology.objects.countries);
  const features = countries.features
    .filter((f) => !LEFT_OUT.has(String(f.id)))
    .map((f) => ({ ...f, properties: { name: (f.id !== undefined && iso.whereNumeric(String(f.id))?.alpha2) || NO_NUMBER[f.properties.name] || '' } }));
  echarts.registerMap(WORLD, { type: 'FeatureCollection', features } as unknown as Parameters<typeof echarts.registerMap>[1]);
}

export interface HeatmapMapProps {
  option: EChartsOption;
  height: number;
  /** What the map shows, for assistive technology and tests. */
  label: string;
}

export default function HeatmapMap({ option, height, label }: HeatmapMapProps) {
  return (
    <div role="img" aria-label={label}>
      <ReactEChartsCore echarts={echarts} option={option} notMerge style={{ height }} opts={{ renderer: 'canvas' }} />
    </div>
  );
}
