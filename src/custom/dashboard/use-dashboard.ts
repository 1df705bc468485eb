/** The dashboard's calls (SPEC.md section 7), read through Refine's data provider and so through the HTTP helper. */
import { useCustom } from '@refinedev/core';
import type { DashboardView } from '../../../common/dashboard';

export interface CardFigures {
  totalSims: number;
  activeSims: number;
  onlineSims: number;
  expiringSoon: number;
  expiringSoonDays: number;
  usageKb: number;
  previousUsageKb: number;
  sms: number;
  previousSms: number;
}
export interface Bucket {
  label: string;
  start: string;
  uplinkKb: number;
  downlinkKb: number;
  volumeKb: number;
  smsMo: number;
  smsMt: number;
}
export interface Statistics {
  view: DashboardView;
  series: Bucket[];
}
/**
 * How fresh a figure is, on the answers the server may serve from a stored snapshot (rank, heatmap). Both optional:
 * an older server sends neither, and the console then says nothing.
 */
export interface Freshness {
  /** The moment the figures were computed (ISO 8601). */
  asOf?: string;
  /** True when computed for this call; false for a stored snapshot (organisations above 50,000 SIMs, refreshed every 5 minutes). */
  live?: boolean;
}
export interface Rank extends Freshness {
  view: DashboardView;
  items: Array<{ iccid: string; deviceName: string | null; volumeKb: number }>;
}
export interface LifecycleCount {
  items: Array<{ status: string; count: number }>;
}
export interface SmsUsage {
  view: DashboardView;
  mo: number;
  mt: number;
  series: Bucket[];
}

export interface Call<T> {
  /** The answer for the asked view; null while it loads (Refine's result holds {} or the last view's then) or after a failure. */
  data: T | null;
  failed: boolean;
  /** When the shown answer arrived (ms since the epoch), 0 before. */
  updatedAt: number;
  reload: () => void;
}

/**
 * GET /api/main/<path>, for a view when given. A failure is shown by the HTTP helper (a toast); the panel offers a
 * retry. Answers stay fresh for half a minute, so switching back to a period shows it at once.
 */
export function useDashboardCall<T extends object>(path: string, view?: DashboardView): Call<T> {
  const { result, query } = useCustom<T>({
    url: `/api/main/${path}`,
    method: 'get',
    config: view ? { query: { view } } : {},
    queryOptions: { staleTime: 30_000, retry: false },
    errorNotification: false,
  });
  return {
    // Refine keeps the previous view's answer as a placeholder while the next loads: not this view's figures.
    data: query.isSuccess && !query.isPlaceholderData ? (result.data as T) : null,
    failed: query.isError,
    updatedAt: query.dataUpdatedAt,
    reload: () => void query.refetch(),
  };
}
