import { useLayoutEffect, useRef, type ReactNode } from 'react';

/**
 * Its content, with the tables inside marked as layout. antd's Descriptions (without borders) lays label and value
 * pairs out in a table whose cells each hold a label and its value, with no header cells: read as a data table, every
 * value would be a cell without a header (axe's td-has-header); read as layout, each cell reads "label value".
 */
export function LayoutTables({ children }: { children: ReactNode }) {
  const ref = useRef<HTMLDivElement>(null);
  useLayoutEffect(() => {
    ref.current?.querySelectorAll('table').forEach((table) => table.setAttribute('role', 'presentation'));
  });
  return <div ref={ref}>{children}</div>;
}
