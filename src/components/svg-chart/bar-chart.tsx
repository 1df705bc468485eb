/**
 * A stacked bar chart drawn as SVG by the page (docs/decisions.md: the dashboard's charts without ECharts): a value
 * axis of round ticks with dashed grid lines, a category axis whose labels thin out where they would touch, an
 * optional legend that shows and hides a series, and a tooltip per bar under the pointer or the keyboard (the chart
 * takes the focus; arrow keys, Home and End move between bars, Escape closes the tooltip). Screen readers read the
 * figures from a table beside the picture. The width follows the container; the height is fixed.
 */
import { theme } from 'antd';
import { useMemo, useState, type KeyboardEvent, type PointerEvent } from 'react';
import { bands, labelEvery, stack, topRoundedRect, valueTicks } from './chart-math';
import { ChartBox, ChartTooltip, HiddenTable, textWidth, useWidth, type TooltipContent } from './chart-parts';

export interface BarSeries {
  name: string;
  color: string;
  /** One value per category, in the axis's unit. */
  values: number[];
}

export interface BarChartProps {
  /** What the chart shows: its accessible name and the caption of its table. */
  label: string;
  /** The chart's whole height, legend included. */
  height: number;
  /** The categories' names under the bars. */
  categories: string[];
  /** Stacked from the axis up, in this order. */
  series: BarSeries[];
  /** A tick's number as the language writes it. */
  formatTick: (value: number) => string;
  /** What a bar's tooltip (and its row of the table) says: its full name and each series' figure, in its own words. */
  describe: (index: number, visible: ReadonlySet<number>) => TooltipContent;
  /** What the categories are (the table's first column): a period, a day… */
  categoryName: string;
  /** The value axis's unit, written above it. */
  unit?: string;
  /** The smallest step between ticks (1 for counts). */
  minInterval?: number;
  barMaxWidth?: number;
  legend?: boolean;
}

const FONT_SIZE = 12;
const LEGEND_HEIGHT = 28;
const X_LABELS = 26;

export function BarChart({
  label,
  height,
  categoryName,
  categories,
  series,
  formatTick,
  describe,
  unit,
  minInterval = 0,
  barMaxWidth = 36,
  legend = false,
}: BarChartProps) {
  const { token } = theme.useToken();
  const [ref, width] = useWidth<HTMLDivElement>();
  const [hidden, setHidden] = useState<ReadonlySet<number>>(new Set());
  const [active, setActive] = useState<{ index: number; x: number; y: number } | null>(null);
  const font = `${FONT_SIZE}px ${token.fontFamily}`;

  const { segments, totals } = useMemo(
    () =>
      stack(
        series.map((s) => s.values),
        hidden,
      ),
    [series, hidden],
  );
  const ticks = valueTicks(Math.max(0, ...totals), 5, minInterval);
  const top = ticks[ticks.length - 1];
  const tickLabels = ticks.map(formatTick);
  const plotTop = unit ? 26 : 10;
  const svgHeight = height - (legend ? LEGEND_HEIGHT : 0);
  const plotHeight = Math.max(10, svgHeight - plotTop - X_LABELS);
  const left = Math.ceil(Math.max(textWidth(unit ?? '', font) / 2, ...tickLabels.map((l) => textWidth(l, font)))) + 12;
  const plotWidth = Math.max(0, width - left - 8);
  const band = bands(categories.length, plotWidth, 0.2, barMaxWidth);
  const every = labelEvery(band.step, Math.max(0, ...categories.map((c) => textWidth(c, font))), 8);
  const y = (v: number) => plotTop + plotHeight - (top > 0 ? (v / top) * plotHeight : 0);
  const everySeries = useMemo(() => new Set(series.map((_, i) => i)), [series]);
  const visible = useMemo(() => new Set(series.map((_, i) => i).filter((i) => !hidden.has(i))), [series, hidden]);

  /** The tooltip of a bar the keyboard chose: beside the bar's top. */
  const showAt = (index: number) => setActive({ index, x: left + band.centre(index), y: Math.max(plotTop + 24, y(totals[index] ?? 0)) });
  const onPointer = (e: PointerEvent<SVGSVGElement>) => {
    const box = e.currentTarget.getBoundingClientRect();
    const x = e.clientX - box.left;
    const py = e.clientY - box.top;
    if (x < left || x > left + plotWidth || py < plotTop - 8 || py > plotTop + plotHeight + X_LABELS) return setActive(null);
    setActive({ index: band.at(x - left), x, y: py });
  };
  const onKey = (e: KeyboardEvent) => {
    const last = categories.length - 1;
    const at = active?.index ?? 0;
    const next = { ArrowRight: at + 1, ArrowDown: at + 1, ArrowLeft: at - 1, ArrowUp: at - 1, Home: 0, End: last }[e.key];
    if (next !== undefined) {
      e.preventDefault();
      showAt(Math.min(last, Math.max(0, next)));
    } else if (e.key === 'Escape' && active) {
      e.stopPropagation();
      setActive(null);
    }
  };
  const toggle = (i: number) =>
    setHidden((h) => {
      const next = new Set(h);
      if (!next.delete(i)) next.add(i);
      // Never all hidden: the chart would be an empty frame.
      return next.size === series.length ? h : next;
    });

  const tooltip = active && active.index < categories.length ? describe(active.index, visible) : null;
  const axisColor = token.colorTextTertiary;
  const labelColor = token.colorTextSecondary;

  return (
    <div>
      {legend && (
        <div style={{ height: LEGEND_HEIGHT, display: 'flex', justifyContent: 'flex-end', alignItems: 'flex-start', gap: 4 }}>
          {series.map((s, i) => (
            <button
              key={s.name}
              type="button"
              aria-pressed={!hidden.has(i)}
              onClick={() => toggle(i)}
              // A hidden series reads struck through, in a grey that still reads (WCAG AA), its swatch emptied.
              style={{
                display: 'flex',
                alignItems: 'center',
                gap: 6,
                padding: '2px 6px',
                border: 0,
                background: 'none',
                cursor: 'pointer',
                font: 'inherit',
                fontSize: FONT_SIZE,
                color: hidden.has(i) ? token.colorTextSecondary : token.colorText,
                textDecoration: hidden.has(i) ? 'line-through' : undefined,
              }}
            >
              <span style={{ width: 22, height: 12, borderRadius: 3, background: hidden.has(i) ? token.colorFillSecondary : s.color }} />
              {s.name}
            </button>
          ))}
        </div>
      )}
      <ChartBox boxRef={ref} label={label} height={svgHeight} onFocus={() => !active && showAt(0)} onLeave={() => setActive(null)} onKeyDown={onKey}>
        {width > 0 && (
          <svg
            width={width}
            height={svgHeight}
            style={{ display: 'block', overflow: 'visible' }}
            onPointerMove={onPointer}
            onPointerLeave={() => setActive(null)}
            aria-hidden
          >
            {unit && (
              <text x={left - 8} y={plotTop - 12} textAnchor="middle" fontSize={FONT_SIZE} fill={labelColor}>
                {unit}
              </text>
            )}
            {ticks.map((t, i) => (
              <g key={t}>
                {i > 0 && <line x1={left} x2={left + plotWidth} y1={y(t)} y2={y(t)} stroke={token.colorBorder} strokeDasharray="4 4" />}
                <text x={left - 8} y={y(t)} textAnchor="end" dominantBaseline="central" fontSize={FONT_SIZE} fill={labelColor}>
                  {tickLabels[i]}
                </text>
              </g>
            ))}
            {active && <rect x={left + band.start(active.index)} y={plotTop} width={band.step} height={plotHeight} fill={token.colorFillSecondary} />}
            {segments.map((bar, i) => {
              const x = left + band.centre(i) - band.bar / 2;
              return bar.map((s, j) => {
                const [y0, y1] = [y(s.y0), y(s.y1)];
                const d = topRoundedRect(x, y1, band.bar, y0 - y1, j === bar.length - 1 ? 3 : 0);
                return <path key={`${i}-${s.series}`} d={d} fill={series[s.series].color} />;
              });
            })}
            <line x1={left} x2={left + plotWidth} y1={plotTop + plotHeight} y2={plotTop + plotHeight} stroke={axisColor} />
            {categories.map((c, i) =>
              i % every === 0 ? (
                <g key={i}>
                  <line x1={left + band.centre(i)} x2={left + band.centre(i)} y1={plotTop + plotHeight} y2={plotTop + plotHeight + 5} stroke={axisColor} />
                  <text x={left + band.centre(i)} y={plotTop + plotHeight + 18} textAnchor="middle" fontSize={FONT_SIZE} fill={labelColor}>
                    {c}
                  </text>
                </g>
              ) : null,
            )}
          </svg>
        )}
        {tooltip && active && <ChartTooltip x={active.x} y={active.y} width={width} content={tooltip} />}
      </ChartBox>
      <HiddenTable
        caption={label}
        columns={[categoryName, ...describe(0, everySeries).lines.map((l) => l.name)]}
        rows={categories.map((_, i) => {
          const d = describe(i, everySeries);
          return { head: d.head ?? categories[i], cells: d.lines.map((l) => l.value) };
        })}
      />
    </div>
  );
}
