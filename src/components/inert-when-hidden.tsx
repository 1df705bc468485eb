import { useLayoutEffect, useRef, useState, type ReactNode } from 'react';

/**
 * Its content, made inert where it sits inside something hidden from assistive technology. antd's table draws every
 * column title a second time in an aria-hidden row that measures widths: the select-all tick box there would be a
 * focusable control nobody can see or hear (axe's aria-hidden-focus).
 */
export function InertWhenHidden({ children }: { children: ReactNode }) {
  const ref = useRef<HTMLSpanElement>(null);
  const [hidden, setHidden] = useState(false);
  useLayoutEffect(() => setHidden(Boolean(ref.current?.parentElement?.closest('[aria-hidden="true"]'))), []);
  return (
    <span ref={ref} inert={hidden || undefined}>
      {children}
    </span>
  );
}
