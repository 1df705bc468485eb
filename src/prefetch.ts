/**
 * While a person signs in, fetch what the dashboard will draw: the signed-in routes' chunk (Refine), the
 * shell and the analysis page (its charts are drawn by the page itself, as SVG), so that sign-in then dashboard is no slower than when all of it came with the
 * sign-in page. Asked once, when the password field takes the focus: not on idle, since a visitor who only reads the
 * sign-in page (or the terms) must not pay for the dashboard's code (tests/e2e/sign-in.spec.ts and dashboard.spec.ts check
 * that nothing of the dashboard loads before someone starts to sign in). The modules are the ones App.tsx and the analysis page load lazily, so the browser fetches each chunk once.
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
}
