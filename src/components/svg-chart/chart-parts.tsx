/** What the SVG charts share: their measured width, text widths, the tooltip, and the focus ring of a chart. */
import { theme } from 'antd';
import { useLayoutEffect, useRef, useState, type CSSProperties, type FocusEvent, type KeyboardEvent, type ReactNode, type RefObject } from 'react';

/**
 * The width of an element, measured before the first paint and again whenever it changes (a resized window, the side
 * menu folded). The height is the chart's own, fixed, so the page never moves when it draws.
 */
export function useWidth<T extends HTMLElement>() {
  const ref = useRef<T>(null);
  const [width, setWidth] = useState(0);
  useLayoutEffect(() => {
    const el = ref.current;
    if (!el) return;
    setWidth(el.getBoundingClientRect().width);
    if (typeof ResizeObserver === 'undefined') return;
    const observer = new ResizeObserver(([entry]) => setWidth(entry.contentRect.width));
    observer.observe(el);
    return () => observer.disconnect();
  }, []);
  return [ref, width] as const;
}

let context: CanvasRenderingContext2D | null | undefined;

/** The width of a text in a font, measured by the browser (an estimate where it cannot measure). */
export function textWidth(text: string, font: string): number {
  if (context === undefined) context = typeof document === 'undefined' ? null : document.createElement('canvas').getContext('2d');
  if (!context) return text.length * 7;
  context.font = font;
  return context.measureText(text).width;
}

export interface TooltipLine {
  /** The series' colour: a dot before its name. */
  color?: string;
  name: string;
  value: string;
  /** Written after the value (a share in brackets). */
  note?: string;
}
export interface TooltipContent {
  head?: string;
  lines: TooltipLine[];
}

/**
 * A chart's tooltip: a card at (x, y) of the chart's box, to the right of the point, or to its left in the chart's
 * right half, so it stays over the chart; or centred above the point (`above`). Not a target itself (pointer-events: none): the pointer reads through it.
 */
export function ChartTooltip({ x, y, width, content, above = false }: { x: number; y: number; width: number; content: TooltipContent; above?: boolean }) {
  const { token } = theme.useToken();
  const left = x > width / 2;
  const place: CSSProperties = above
    ? { left: x, top: y, transform: 'translate(-50%, -100%)' }
    : { left: left ? undefined : x + 14, right: left ? width - x + 14 : undefined, top: y, transform: 'translateY(-50%)' };
  const style: CSSProperties = {
    position: 'absolute',
    ...place,
    zIndex: 2,
    pointerEvents: 'none',
    whiteSpace: 'nowrap',
    background: token.colorBgElevated,
    boxShadow: token.boxShadowSecondary,
    borderRadius: token.borderRadius,
    padding: '8px 12px',
    fontSize: token.fontSizeSM + 1,
    lineHeight: 1.6,
    color: token.colorTextSecondary,
  };
  return (
    <div style={style} aria-hidden>
      {content.head && <div style={{ color: token.colorText }}>{content.head}</div>}
      {content.lines.map((l) => (
        <div key={l.name} style={{ display: 'flex', alignItems: 'center', gap: 6 }}>
          {l.color && <span style={{ width: 8, height: 8, borderRadius: 4, background: l.color, flex: 'none' }} />}
          <span style={{ flex: 1 }}>{l.name}:</span>
          <b style={{ color: token.colorText, marginLeft: 12 }}>{l.value}</b>
          {l.note && <span>{l.note}</span>}
        </div>
      ))}
    </div>
  );
}

/** The box of a chart that takes the keyboard: a ring in the theme's colour while it has the keyboard's focus. */
function focusRing(visible: boolean, color: string): CSSProperties {
  return visible ? { outline: `2px solid ${color}`, outlineOffset: 2, borderRadius: 4 } : { outline: 'none' };
}

/**
 * A chart's box, named as one image and reached with the keyboard: focused, it shows its first point (onFocus); left,
 * it hides its tooltip (onLeave). It measures its width through boxRef (useWidth).
 */
export function ChartBox(props: {
  boxRef: RefObject<HTMLDivElement | null>;
  label: string;
  height: number;
  onFocus: () => void;
  onLeave: () => void;
  onKeyDown: (e: KeyboardEvent) => void;
  children: ReactNode;
}) {
  const { token } = theme.useToken();
  const [ring, setRing] = useState(false);
  const focus = (e: FocusEvent<HTMLDivElement>) => {
    setRing(e.currentTarget.matches(':focus-visible'));
    props.onFocus();
  };
  const blur = () => {
    setRing(false);
    props.onLeave();
  };
  return (
    <div
      ref={props.boxRef}
      role="img"
      aria-label={props.label}
      tabIndex={0}
      onFocus={focus}
      onBlur={blur}
      onKeyDown={props.onKeyDown}
      style={{ position: 'relative', height: props.height, ...focusRing(ring, token.colorPrimary) }}
    >
      {props.children}
    </div>
  );
}

/**
 * A chart's figures as a table for screen readers (and for anyone who reads the page without its styles). Hidden in
 * a box of its own: a table's height is only its least, so the table itself would stand out of a 1 px box.
 */
export function HiddenTable({ caption, columns, rows }: { caption: string; columns: string[]; rows: Array<{ head: string; cells: string[] }> }): ReactNode {
  return (
    <div className="visually-hidden">
      <table>
        <caption>{caption}</caption>
        <thead>
          <tr>
            {columns.map((c, i) => (
              <th key={i} scope="col">
                {c}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((r, i) => (
            <tr key={i}>
              <th scope="row">{r.head}</th>
              {r.cells.map((c, j) => (
                <td key={j}>{c}</td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
