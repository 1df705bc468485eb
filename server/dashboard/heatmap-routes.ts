/**
 * The dashboard's heatmap (SPEC.md section 2, dashboard/heatmap): where the organisation's SIMs are and how much they
 * used in a view of 24h, week or 6 months. Places are the SIMs' last known locations (sims.lat/lon, however old:
 * "where the SIMs are", not "where they were seen in the period"), counted on the server into a grid of cells, so the
 * answer's size follows the number of places, never the number of SIMs (an organisation can hold a million).
 * Usage per SIM comes from the rollups of 007_dashboard.sql on the dashboard's UTC+8 clock (bucketsOf), never from
 * the CDRs.
 */
import type { Queryable } from '../db/db.js';
import { reverseGeocode } from '../geo/reverse-geocoder.js';
import { defineRoutes, type RouteDef } from '../http/route.js';
import { arrayOf, outObj, typed } from '../http/shapes.js';
import { locatedCells } from './dashboard-repo.js';
import { bucketsOf, dashboardRoute, monthsOf, snapshotOf, SNAPSHOT_PROPERTIES, spanOf, type View } from './dashboard-routes.js';
import { simCountOf } from './dashboard-snapshots.js';

/** The finest cell, in degrees: about 55 km north to south, fine enough to tell a country's regions apart. */
export const CELL_DEG = 0.5;
/** The most cells an answer carries; a fleet spread wider is drawn on coarser cells (1°, 2°, ...). */
export const MAX_CELLS = 5000;

interface Cell {
  y: number;
  x: number;
  sims: number;
  usageKb: number;
  /** The mean position of the cell's SIMs: inside the cell, and nearer the towns they are in than its centre. */
  lat: number;
  lon: number;
}

/** The organisation's located SIMs per CELL_DEG cell, with each cell's usage between `from` and `to`. */
async function cellsOf(q: Queryable, orgId: string, view: View, now: Date): Promise<Cell[]> {
  const buckets = bucketsOf(view, now);
  // Hours for the day and the week; UTC+8 months (their first day) for the half year, as the dashboard's rank does.
  const rows = await locatedCells(q, orgId, view === '6months' ? monthsOf(buckets) : spanOf(buckets), CELL_DEG);
  return rows.map((c) => ({ y: c.y, x: c.x, sims: Number(c.n), usageKb: Number(c.kb), lat: c.lat, lon: c.lon }));
}

/** Merge cells into cells `factor` times as wide, until there are at most MAX_CELLS; returns the cells and their size. */
export function coarsen(cells: Cell[], maxCells = MAX_CELLS): { cells: Cell[]; deg: number } {
  let deg = CELL_DEG;
  let out = cells;
  while (out.length > maxCells) {
    deg *= 2;
    const merged = new Map<string, Cell>();
    for (const c of cells) {
      const y = Math.floor((c.y * CELL_DEG) / deg);
      const x = Math.floor((c.x * CELL_DEG) / deg);
      const m = merged.get(`${y},${x}`);
      if (m) {
        m.lat = (m.lat * m.sims + c.lat * c.sims) / (m.sims + c.sims);
        m.lon = (m.lon * m.sims + c.lon * c.sims) / (m.sims + c.sims);
        m.sims += c.sims;
        m.usageKb += c.usageKb;
      } else merged.set(`${y},${x}`, { ...c, y, x });
    }
    out = [...merged.values()];
  }
  return { cells: out, deg };
}

/**
 * SIMs and usage per country of the SIMs' last location. Each finest cell is named by the offline geocoder
 * (server/geo/reverse-geocoder.ts) at the mean position of its SIMs: one look-up in a kd-tree per cell (a few
 * thousand at most, microseconds each) instead of one per SIM, and no scan of the CDRs. CDRs' `country` would say
 * where a SIM used the network in the period, not where it is, and no rollup keeps it. The cost of the cell: a cell
 * across a border counts wholly for the country nearest its SIMs' mean position (a border strip of up to ~50 km).
 * A cell with no town within 200 km (open sea) counts for no country.
 */
async function countriesOf(cells: Cell[]) {
  const by = new Map<string, { country: string; sims: number; usageKb: number }>();
  for (const c of cells) {
    const place = await reverseGeocode(c.lat, c.lon);
    if (!place) continue;
    const row = by.get(place.country) ?? { country: place.country, sims: 0, usageKb: 0 };
    row.sims += c.sims;
    row.usageKb += c.usageKb;
    by.set(place.country, row);
  }
  return [...by.values()].sort((a, b) => b.sims - a.sims || b.usageKb - a.usageKb || a.country.localeCompare(b.country));
}

/** The map of the organisation at `now`: its cells (coarsened to at most MAX_CELLS), countries and totals. */
async function heatmapOf(db: Queryable, orgId: string, view: View, now: Date) {
  const buckets = bucketsOf(view, now);
  const fine = await cellsOf(db, orgId, view, now);
  const countries = await countriesOf(fine);
  const { cells, deg } = coarsen(fine);
  const half = deg / 2;
  return {
    from: buckets[0].start.toISOString(),
    to: buckets.at(-1)!.end.toISOString(),
    cellDeg: deg,
    totalSims: await simCountOf(db, orgId),
    locatedSims: fine.reduce((a, c) => a + c.sims, 0),
    usageKb: fine.reduce((a, c) => a + c.usageKb, 0),
    // Drawn at the cell's centre, so the map shows the grid it was counted on rather than any SIM's position.
    cells: cells.map((c) => ({
      lat: Math.min(90, c.y * deg + half),
      lon: Math.min(180, c.x * deg + half),
      sims: c.sims,
      usageKb: c.usageKb,
    })),
    countries,
    max: {
      cellSims: Math.max(0, ...cells.map((c) => c.sims)),
      cellUsageKb: Math.max(0, ...cells.map((c) => c.usageKb)),
      countrySims: Math.max(0, ...countries.map((c) => c.sims)),
      countryUsageKb: Math.max(0, ...countries.map((c) => c.usageKb)),
    },
  };
}

const num = { type: 'number' } as const;

const routes: RouteDef[] = [
  dashboardRoute(
    '/dashboard/heatmap',
    outObj({
      ...SNAPSHOT_PROPERTIES,
      from: { type: 'string' },
      to: { type: 'string' },
      cellDeg: num,
      totalSims: num,
      locatedSims: num,
      usageKb: num,
      cells: arrayOf(typed({ lat: 'number', lon: 'number', sims: 'number', usageKb: 'number' })),
      countries: arrayOf(typed({ country: 'string', sims: 'number', usageKb: 'number' })),
      max: typed({ cellSims: 'number', cellUsageKb: 'number', countrySims: 'number', countryUsageKb: 'number' }),
    }),
    async (req, orgId, view) => {
      const db = req.server.db;
      const { head, body } = await snapshotOf(req, orgId, 'heatmap', view, (now) => heatmapOf(db, orgId, view, now));
      return { ...head, ...body };
    },
  ),
];

export const heatmapRoutes = defineRoutes(routes);
