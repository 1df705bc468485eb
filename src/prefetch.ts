/**
 * While a person signs in, fetch what the dashboard will draw (issue 15): the signed-in routes' chunk (Refine), the
 * shell, the analysis page and its chart, so that sign-in then dashboard is no slower than when all of it came with the
 * sign-in page. Asked when the password field takes the focus or when the browser is idle, whichever comes first;
 * once. The modules are the ones App.tsx and the analysis page load lazily, so the browser fetches each chunk once.
 */
let started = false;

export function prefetchDashboard(): void {
  if (started) return;
  started = true;
  // A failed prefetch costs nothing: the route fetches (and reports) for itself when it is opened.
  const quiet = () => undefined;
  import('./signed-in').catch(quiet);
  import('./shell/shell-layout').catch(quiet);
  import('./custom/dashboard/analysis-page').catch(quiet);
  import('./custom/dashboard/dashboard-chart').catch(quiet);
}

/** Prefetch when the browser has nothing else to do (after the sign-in page is drawn and its calls answered). */
export function prefetchDashboardWhenIdle(): () => void {
  if (started) return () => undefined;
  if (typeof window.requestIdleCallback === 'function') {
    const id = window.requestIdleCallback(prefetchDashboard, { timeout: 3_000 });
    return () => window.cancelIdleCallback(id);
  }
  const id = window.setTimeout(prefetchDashboard, 1_500);
  return () => window.clearTimeout(id);
}
