/**
 * The dashboard's periods and clock (SPEC.md section 9): views of 24 hours, a week and 6 months, on a clock of UTC+8
 * whose day ends at 23:59 UTC+8. Shared so the console names the same periods and day boundaries the server counts.
 */
import { LIMITS } from './limits.js';

export const DASHBOARD_VIEWS = ['24h', 'week', '6months'] as const;
export type DashboardView = (typeof DASHBOARD_VIEWS)[number];
/** The view a dashboard opens on. */
export const DEFAULT_DASHBOARD_VIEW: DashboardView = 'week';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
/** UTC+8, the dashboard's clock, in milliseconds. */
export const DASHBOARD_OFFSET_MS = 8 * HOUR;

/** A view named in an address, or the default one. */
export function dashboardViewOf(value: string | null | undefined): DashboardView {
  return (DASHBOARD_VIEWS as readonly string[]).includes(value ?? '') ? (value as DashboardView) : DEFAULT_DASHBOARD_VIEW;
}

/** "Expiring soon" at `now`: from now to the end of the dashboard day `expiringSoonDays` after today. */
export function expiringSoonWindow(now: Date): { from: Date; to: Date } {
  const local = now.getTime() + DASHBOARD_OFFSET_MS;
  const todayStart = Math.floor(local / DAY) * DAY - DASHBOARD_OFFSET_MS;
  return { from: now, to: new Date(todayStart + DAY + LIMITS.expiringSoonDays * DAY) };
}
