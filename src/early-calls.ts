/**
 * The dashboard's five calls, started when a signed-in first load enters the dashboard's route instead of when its page
 * is drawn (as Lighthouse measures the dashboard, bench/lighthouse.ts): the answers travel while the signed-in chunks
 * arrive and the shell and its providers draw. The page asks through Refine's data provider as always; the provider
 * takes an answer started here for the same address (once, and only while fresh), so nothing is asked twice and a
 * late page asks anew.
 */
import { dashboardViewOf } from '../common/dashboard';
import { peek } from './providers/http';
import { store } from './providers/session-store';

/** An answer older than this is not the state of now: the page asks again. */
const FRESH_MS = 10_000;

const early = new Map<string, { at: number; answer: Promise<{ data: unknown } | null> }>();

/** The addresses the analysis page asks for (src/custom/dashboard/analysis-page.tsx), for the view in the address. */
export function dashboardCallUrls(search: string): string[] {
  const view = dashboardViewOf(new URLSearchParams(search).get('view'));
  const q = `?${new URLSearchParams({ view })}`;
  return [
    `/api/main/dashboard/card${q}`,
    `/api/main/dashboard/statistics${q}`,
    `/api/main/dashboard/rank${q}`,
    '/api/main/dashboard/lifecycleCount',
    `/api/main/sms/usage${q}`,
  ];
}

/** Start the dashboard's calls, when someone is signed in (a visitor without a token is sent to sign-in instead). */
export function startDashboardCalls(search: string): void {
  if (!store.get('token')) return;
  // Quietly: these leave before the app can show a toast or act on an expired session, so any answer but a success is
  // dropped and the page asks again through the HTTP helper, which refreshes, tells and signs out as it should.
  for (const url of dashboardCallUrls(search)) early.set(url, { at: Date.now(), answer: peek<unknown>(url) });
}

/** The answer started for this GET, if one is fresh; each is given once. Resolves to null when it did not succeed. */
export function takeEarlyCall(url: string): Promise<{ data: unknown } | null> | undefined {
  const found = early.get(url);
  if (!found) return undefined;
  early.delete(url);
  return Date.now() - found.at <= FRESH_MS ? found.answer : undefined;
}
