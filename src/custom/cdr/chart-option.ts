/** The CDR chart's option: uplink and downlink stacked per day, the legend above the plot, clear of the day labels. */
import type { EChartsOption } from 'echarts';
import { unitFor } from '../../resources/cell';
import { numberFormat } from '../../../common/numbers';

export interface DayTotals {
  day: string;
  uplinkKb: number;
  downlinkKb: number;
}

/**
 * names: the two series' labels in the interface language; lang: how the values are written. The unit is the one the
 * largest day reads best in (kB for one quiet SIM, GB for an organisation), so small volumes are not rounded away.
 */
export function cdrChartOption(days: DayTotals[], names: { uplink: string; downlink: string }, lang: string): EChartsOption {
  const unit = unitFor(Math.max(0, ...days.map((d) => d.uplinkKb + d.downlinkKb)));
  const number = numberFormat(lang, { maximumFractionDigits: 2 });
  const inUnit = (kb: number) => Math.round((kb / unit.divisor) * 100) / 100;
  return {
    tooltip: { trigger: 'axis', valueFormatter: (v) => `${number.format(Number(v))} ${unit.name}` },
    // ECharts 6 puts a legend at the bottom by default, over the day labels: it goes above the plot, at the right.
    legend: { top: 0, right: 0, data: [names.uplink, names.downlink] },
    // The plot shrinks to keep the axis labels and the unit inside the canvas (ECharts 6's successor of containLabel).
    grid: { left: 8, right: 16, top: 48, bottom: 8, outerBoundsMode: 'same', outerBoundsContain: 'all' },
    xAxis: { type: 'category', data: days.map((d) => d.day) },
    yAxis: { type: 'value', name: unit.name, minInterval: unit.divisor === 1 ? 1 : undefined, axisLabel: { formatter: (v: number) => number.format(v) } },
    series: [
      { name: names.uplink, type: 'bar', stack: 'volume', data: days.map((d) => inUnit(d.uplinkKb)) },
      { name: names.downlink, type: 'bar', stack: 'volume', data: days.map((d) => inUnit(d.downlinkKb)) },
    ],
  };
}
