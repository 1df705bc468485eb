/**
 * The dashboard's heavy figures for large organisations (docs/decisions.md, "Dashboard snapshots"). The top 10 and the
 * heatmap aggregate every SIM's rollup rows in the period: tens of milliseconds for an organisation of thousands of
 * SIMs, seconds for one of a million. So an organisation of at most `dashboardLiveSims` SIMs gets them computed for each call
 * (live, exact to the moment), and a larger one reads a stored snapshot with the moment it was computed (as_of, shown
 * by the console). A snapshot older than `dashboardSnapshotSeconds` is still answered at once, and one instance (the lease on its
 * row) computes the next in the background; only the very first call for an organisation and view computes in the
 * call. Snapshots live in the database (009_dashboard_snapshots.sql), so every instance serves the same one.
 */
import type { FastifyBaseLogger } from 'fastify';
import type { Db, Queryable } from '../db/db.js';
import type { DashboardView } from '../../common/dashboard.js';

export type SnapshotKind = 'rank' | 'heatmap';

export interface Figures<T> {
  body: T;
  /** When the figures were computed, on the dashboard's clock. */
  asOf: Date;
  /** Computed for this call (true), or a stored snapshot (false). */
  live: boolean;
}

/** Read on each call, so the server's configuration object can be changed while it runs (tests do). */
export interface SnapshotOptions {
  /** The largest organisation (in SIMs) whose figures are computed for each call (DASHBOARD_LIVE_SIMS). */
  dashboardLiveSims: number;
  /** The age after which a snapshot is recomputed (DASHBOARD_SNAPSHOT_SECONDS). */
  dashboardSnapshotSeconds: number;
}

/** The layout of the stored bodies; raise it whenever a body's fields change (009_dashboard_snapshots.sql). */
export const SNAPSHOT_SHAPE = 1;

/** How long an instance holds a refresh before another may take it over: far longer than any refresh takes. */
const LEASE_SECONDS = 120;

/** The organisation's SIMs, from the lifecycle counts (one row per state, kept by triggers on sims). */
export async function simCountOf(q: Queryable, orgId: string): Promise<number> {
  const r = await q.query<{ n: string }>('SELECT coalesce(sum(n), 0) AS n FROM sim_status_counts WHERE org_id = $1', [orgId]);
  return Number(r.rows[0].n);
}

export class DashboardSnapshots {
  private readonly inflight = new Set<Promise<void>>();

  constructor(
    private readonly db: Db,
    private readonly opts: SnapshotOptions,
    private readonly log: FastifyBaseLogger,
  ) {}

  /** The figures of `kind` for the organisation and view at `now`; `compute` makes them from the rollups. */
  async figures<T>(orgId: string, kind: SnapshotKind, view: DashboardView, now: Date, compute: (now: Date) => Promise<T>): Promise<Figures<T>> {
    if ((await simCountOf(this.db, orgId)) <= this.opts.dashboardLiveSims) return { body: await compute(now), asOf: now, live: true };
    const stored = await this.db.query<{ as_of: Date; body: T }>(
      'SELECT as_of, body FROM dashboard_snapshots WHERE org_id = $1 AND kind = $2 AND view = $3 AND shape = $4',
      [orgId, kind, view, SNAPSHOT_SHAPE],
    );
    const row = stored.rows[0];
    if (!row) {
      const body = await compute(now);
      await this.store(orgId, kind, view, now, body);
      return { body, asOf: now, live: false };
    }
    const asOf = new Date(row.as_of);
    // Stale when older than the TTL, or from the future of this clock (a clock set back, in tests or by an operator).
    const age = now.getTime() - asOf.getTime();
    if (age > this.opts.dashboardSnapshotSeconds * 1000 || age < 0) this.refreshLater(orgId, kind, view, now, compute);
    return { body: row.body, asOf, live: false };
  }

  /** Resolves when this instance's background refreshes have ended (tests; closing the server). */
  async idle(): Promise<void> {
    while (this.inflight.size) await Promise.all([...this.inflight]);
  }

  /**
   * Take the refresh of one snapshot for this instance: true for exactly one caller until the lease runs out or the
   * refresh ends. Database time, so instances with different clocks agree.
   */
  async claim(orgId: string, kind: SnapshotKind, view: DashboardView): Promise<boolean> {
    const r = await this.db.query(
      `UPDATE dashboard_snapshots SET refreshing_until = now() + make_interval(secs => $4)
        WHERE org_id = $1 AND kind = $2 AND view = $3 AND (refreshing_until IS NULL OR refreshing_until < now())
        RETURNING 1`,
      [orgId, kind, view, LEASE_SECONDS],
    );
    return r.rows.length === 1;
  }

  private async store(orgId: string, kind: SnapshotKind, view: DashboardView, asOf: Date, body: unknown) {
    await this.db.query(
      `INSERT INTO dashboard_snapshots (org_id, kind, view, as_of, body, shape) VALUES ($1, $2, $3, $4, $5::jsonb, $6)
       ON CONFLICT (org_id, kind, view) DO UPDATE SET as_of = EXCLUDED.as_of, body = EXCLUDED.body, shape = EXCLUDED.shape, refreshing_until = NULL`,
      [orgId, kind, view, asOf.toISOString(), JSON.stringify(body), SNAPSHOT_SHAPE],
    );
  }

  private refreshLater<T>(orgId: string, kind: SnapshotKind, view: DashboardView, now: Date, compute: (now: Date) => Promise<T>) {
    const work = (async () => {
      if (!(await this.claim(orgId, kind, view))) return;
      try {
        await this.store(orgId, kind, view, now, await compute(now));
      } catch (err) {
        // Give the refresh back at once, so the next call tries again instead of waiting for the lease.
        await this.db.query('UPDATE dashboard_snapshots SET refreshing_until = NULL WHERE org_id = $1 AND kind = $2 AND view = $3', [orgId, kind, view]);
        throw err;
      }
    })()
      .catch((err) => this.log.error({ err, orgId, kind, view }, 'dashboard snapshot refresh'))
      .finally(() => this.inflight.delete(work));
    this.inflight.add(work);
  }
}
