/**
 * The dashboard's charts: ECharts by module (ARCHITECTURE.md stack notes), with only the bar and pie charts it draws
 * and the components they use (the plain legend, not the scrolling one). The analysis page loads this file lazily, so
 * ECharts arrives after its cards, and never before sign-in.
 */
import { BarChart, PieChart } from 'echarts/charts';
import { GridComponent, LegendPlainComponent, TooltipComponent } from 'echarts/components';
import * as echarts from 'echarts/core';
import { CanvasRenderer } from 'echarts/renderers';
import ReactEChartsCore from 'echarts-for-react/esm/core';
import type { EChartsOption } from 'echarts';

echarts.use([BarChart, PieChart, GridComponent, TooltipComponent, LegendPlainComponent, CanvasRenderer]);

export interface DashboardChartProps {
  option: EChartsOption;
  height: number;
  /** What the chart shows, for assistive technology and tests. */
  label: string;
  /** A click on a data item (a slice of the lifecycle donut). */
  onItemClick?: (data: unknown) => void;
}

export default function DashboardChart({ option, height, label, onItemClick }: DashboardChartProps) {
  return (
    <div role="img" aria-label={label}>
      <ReactEChartsCore
        echarts={echarts}
        option={option}
        notMerge
        style={{ height }}
        opts={{ renderer: 'canvas' }}
        onEvents={onItemClick ? { click: (e: { data?: unknown }) => onItemClick(e.data) } : undefined}
      />
    </div>
  );
}
