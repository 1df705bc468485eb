/**
 * A donut drawn as SVG by the page (docs/decisions.md: the dashboard's charts without ECharts): one slice per item
 * from 12 o'clock clockwise, the total in its centre, a slice that grows and shows its tooltip under the pointer or
 * the keyboard (the chart takes the focus; arrow keys move between slices, Enter opens a slice as a click does,
 * Escape closes the tooltip). Its figures are written beside it by its page (a legend), so the picture itself is one
 * image with a name. Centred in the container's width; the height is fixed.
 */
import { theme } from 'antd';
import { useState, type KeyboardEvent } from 'react';
import { arcPath, sliceAngles } from './chart-math';
import { ChartBox, ChartTooltip, useWidth, type TooltipContent } from './chart-parts';

export interface DonutItem {
  key: string;
  name: string;
  value: number;
  color: string;
}

export interface DonutChartProps {
  label: string;
  height: number;
  /** Items of no value take no slice. */
  items: DonutItem[];
  /** The figure written in the centre and the word under it. */
  centre?: { value: string; label: string };
  /** A slice's tooltip. */
  describe: (item: DonutItem) => TooltipContent;
  /** A click on a slice (or Enter on it). */
  onSelect?: (item: DonutItem) => void;
}

/** The ring's radii as shares of half the chart's smaller side, and how far the slice under the pointer grows. */
const INNER = 0.58;
const OUTER = 0.88;
const GROW = 4;

export function DonutChart({ label, height, items, centre, describe, onSelect }: DonutChartProps) {
  const { token } = theme.useToken();
  const [ref, width] = useWidth<HTMLDivElement>();
  const [active, setActive] = useState<{ index: number; x: number; y: number; above?: boolean } | null>(null);
  const slices = items.filter((i) => i.value > 0);
  const angles = sliceAngles(slices.map((s) => s.value));
  const [cx, cy] = [width / 2, height / 2];
  const r = Math.min(width, height) / 2;
  const [inner, outer] = [r * INNER, r * OUTER];

  /** The tooltip of a slice the keyboard chose: centred above the ring, where it covers neither the ring nor the legend. */
  const showAt = (index: number) => setActive({ index, x: cx, y: cy - outer - GROW - 6, above: true });
  const onKey = (e: KeyboardEvent) => {
    const n = slices.length;
    if (n === 0) return;
    const at = active?.index ?? 0;
    const next = { ArrowRight: at + 1, ArrowDown: at + 1, ArrowLeft: at - 1, ArrowUp: at - 1, Home: 0, End: n - 1 }[e.key];
    if (next !== undefined) {
      e.preventDefault();
      showAt((next + n) % n);
    } else if (e.key === 'Enter' && active && onSelect) onSelect(slices[active.index]);
    else if (e.key === 'Escape' && active) {
      e.stopPropagation();
      setActive(null);
    }
  };

  return (
    <ChartBox
      boxRef={ref}
      label={label}
      height={height}
      onFocus={() => !active && slices.length > 0 && showAt(0)}
      onLeave={() => setActive(null)}
      onKeyDown={onKey}
    >
      {width > 0 && (
        <svg width={width} height={height} style={{ display: 'block', overflow: 'visible' }} aria-hidden onPointerLeave={() => setActive(null)}>
          {slices.map((s, i) => (
            <path
              key={s.key}
              d={arcPath(cx, cy, inner, active?.index === i ? outer + GROW : outer, angles[i].a0, angles[i].a1)}
              fill={s.color}
              fillRule="evenodd"
              stroke={token.colorBgContainer}
              strokeWidth={slices.length > 1 ? 2 : 0}
              strokeLinejoin="round"
              style={{ cursor: onSelect ? 'pointer' : undefined }}
              onPointerMove={(e) => {
                const box = e.currentTarget.ownerSVGElement!.getBoundingClientRect();
                setActive({ index: i, x: e.clientX - box.left, y: e.clientY - box.top });
              }}
              onClick={() => onSelect?.(s)}
            />
          ))}
          {centre && (
            <text x={cx} y={cy} textAnchor="middle">
              <tspan x={cx} dy={-2} fontSize={20} fontWeight={600} fill={token.colorText}>
                {centre.value}
              </tspan>
              <tspan x={cx} dy={18} fontSize={12} fill={token.colorTextSecondary}>
                {centre.label}
              </tspan>
            </text>
          )}
        </svg>
      )}
      {active && slices[active.index] && <ChartTooltip x={active.x} y={active.y} width={width} content={describe(slices[active.index])} above={active.above} />}
    </ChartBox>
  );
}
