/**
 * The dashboard's heatmap against direct SQL on the seeded test database, on a fixed clock: SIMs per cell from their
 * last known location, usage per cell from the CDRs of the view's window, countries of known places, the legend's
 * maximum, nothing of another organisation, and a view that changes usage but not where SIMs are.
 */
import { describe, expect, it } from 'vitest';
import { bucketsOf, VIEWS, type View } from '../../server/dashboard/dashboard-routes.js';
import { CELL_DEG, coarsen } from '../../server/dashboard/heatmap-routes.js';
import { call, DB_KINDS, DEMO, type Session, signedInSuite } from '../helper.js';

const NOW = new Date();

interface Answer {
  cellDeg: number;
  totalSims: number;
  locatedSims: number;
  usageKb: number;
  cells: { lat: number; lon: number; sims: number; usageKb: number }[];
  countries: { country: string; sims: number; usageKb: number }[];
  max: { cellSims: number; cellUsageKb: number; countrySims: number; countryUsageKb: number };
}

describe('coarser cells for a fleet spread wide', () => {
  it('merges cells into wider ones until few enough, keeping every SIM and kilobyte', () => {
    const fine = [
      { y: 0, x: 0, sims: 1, usageKb: 10, lat: 0.1, lon: 0.1 },
      { y: 1, x: 1, sims: 3, usageKb: 5, lat: 0.9, lon: 0.9 },
      { y: 4, x: 4, sims: 2, usageKb: 0, lat: 2.2, lon: 2.2 },
    ];
    expect(coarsen(fine, 3)).toMatchObject({ deg: CELL_DEG, cells: fine });
    const { cells, deg } = coarsen(fine, 2);
    expect(deg).toBe(CELL_DEG * 2);
    expect(cells).toHaveLength(2);
    expect(cells[0]).toMatchObject({ y: 0, x: 0, sims: 4, usageKb: 15 });
    expect(cells[0].lat).toBeCloseTo(0.7);
  });
});

describe.each(DB_KINDS)('heatmap on %s', (kind) => {
  const suite = signedInSuite({ kind, config: { clock: () => NOW } }, { user: DEMO.user, other: 'admin@other.example.com' });

  const heatmap = async (s: Session, view: View): Promise<Answer> => {
    const res = await call(suite.t.app, s, { method: 'GET', url: `/api/main/dashboard/heatmap?view=${view}` });
    expect(res.statusCode, res.body).toBe(200);
    return res.json().data;
  };
  /** SIMs and CDR volume of the view's window per CELL_DEG cell, straight from sims and cdrs, keyed "lat,lon" of the cell's centre. */
  const direct = async (org: string, view: View) => {
    const b = bucketsOf(view, NOW);
    const r = await suite.t.db.query<{ lat: number; lon: number; n: string; kb: string }>(
      `SELECT (floor(s.lat / $4) * $4 + $4 / 2)::float8 AS lat, (floor(s.lon / $4) * $4 + $4 / 2)::float8 AS lon, count(*) AS n,
              coalesce(sum((SELECT sum(c.volume_kb) FROM cdrs c WHERE c.org_id = s.org_id AND c.sim_id = s.id AND c.start_at >= $2 AND c.start_at < $3)), 0) AS kb
         FROM sims s WHERE s.org_id = $1 AND s.lat IS NOT NULL GROUP BY 1, 2`,
      [org, b[0].start.toISOString(), b.at(-1)!.end.toISOString(), CELL_DEG],
    );
    return new Map(r.rows.map((c) => [`${c.lat},${c.lon}`, { sims: Number(c.n), usageKb: Number(c.kb) }]));
  };
  const byCell = (a: Answer) => new Map(a.cells.map((c) => [`${c.lat},${c.lon}`, { sims: c.sims, usageKb: c.usageKb }]));

  it.each(VIEWS)('counts SIMs and the %s usage per cell as the SIM and CDR tables do', async (view) => {
    const a = await heatmap(suite.user, view);
    const want = await direct('org-demo', view);
    expect(a.cellDeg).toBe(CELL_DEG);
    expect(want.size).toBeGreaterThan(1);
    expect(byCell(a)).toEqual(want);
    const located = await suite.t.db.query<{ n: string }>(`SELECT count(*) AS n FROM sims WHERE org_id = 'org-demo' AND lat IS NOT NULL`);
    const total = await suite.t.db.query<{ n: string }>(`SELECT count(*) AS n FROM sims WHERE org_id = 'org-demo'`);
    expect(a.locatedSims).toBe(Number(located.rows[0].n));
    expect(a.totalSims).toBe(Number(total.rows[0].n));
    expect(a.usageKb).toBe([...want.values()].reduce((s, c) => s + c.usageKb, 0));
  });

  it('gives the legend the largest cell and country', async () => {
    const a = await heatmap(suite.user, 'week');
    expect(a.max.cellSims).toBe(Math.max(...a.cells.map((c) => c.sims)));
    expect(a.max.cellUsageKb).toBe(Math.max(...a.cells.map((c) => c.usageKb)));
    expect(a.max.countrySims).toBe(a.countries[0].sims);
    expect(a.max.countryUsageKb).toBe(Math.max(...a.countries.map((c) => c.usageKb)));
    // The demo fleet is centred on Germany.
    expect(a.countries[0].country).toBe('DE');
  });

  it('changes usage with the view, not the places or counts of SIMs', async () => {
    const [day, half] = [await heatmap(suite.user, '24h'), await heatmap(suite.user, '6months')];
    expect(half.cells.map((c) => [c.lat, c.lon, c.sims])).toEqual(day.cells.map((c) => [c.lat, c.lon, c.sims]));
    expect(half.countries.map((c) => [c.country, c.sims])).toEqual(day.countries.map((c) => [c.country, c.sims]));
    expect(half.locatedSims).toBe(day.locatedSims);
    expect(half.usageKb).toBeGreaterThan(day.usageKb);
  });

  it('refuses a view it does not know', async () => {
    const res = await call(suite.t.app, suite.user, { method: 'GET', url: '/api/main/dashboard/heatmap?view=year' });
    expect(res.statusCode).toBe(400);
    expect((await call(suite.t.app, null, { method: 'GET', url: '/api/main/dashboard/heatmap?view=week' })).statusCode).toBe(401);
  });

  it("never counts another organisation's SIMs", async () => {
    // The other organisation's SIMs all move to Sydney, where the demo organisation has none.
    await suite.t.db.query(`UPDATE sims SET lat = -33.87, lon = 151.21, location_at = now() WHERE org_id = 'org-other'`);
    const mine = await heatmap(suite.user, '6months');
    expect(mine.cells.some((c) => c.lat < 0)).toBe(false);
    expect(mine.countries.map((c) => c.country)).not.toContain('AU');
    const theirs = await heatmap(suite.other, '6months');
    const n = await suite.t.db.query<{ n: string }>(`SELECT count(*) AS n FROM sims WHERE org_id = 'org-other'`);
    expect(theirs.cells).toHaveLength(1);
    expect(theirs).toMatchObject({ locatedSims: Number(n.rows[0].n), countries: [{ country: 'AU', sims: Number(n.rows[0].n) }] });
  });

  it('counts SIMs and usage per country of their last location', async () => {
    // Every located SIM of the demo organisation moves to Berlin, Madrid or Tokyo, in turn by ICCID.
    await suite.t.db.query(
      `UPDATE sims s SET lat = p.lat, lon = p.lon
         FROM (SELECT id, (row_number() OVER (ORDER BY iccid)) % 3 AS k FROM sims WHERE org_id = 'org-demo' AND lat IS NOT NULL) o,
              (VALUES (0, 52.52, 13.405), (1, 40.4168, -3.7038), (2, 35.68, 139.69)) AS p(k, lat, lon)
        WHERE s.id = o.id AND o.k = p.k`,
    );
    const b = bucketsOf('week', NOW);
    const r = await suite.t.db.query<{ country: string; n: string; kb: string }>(
      `SELECT CASE WHEN s.lon > 100 THEN 'JP' WHEN s.lon < 0 THEN 'ES' ELSE 'DE' END AS country, count(*) AS n,
              coalesce(sum((SELECT sum(c.volume_kb) FROM cdrs c WHERE c.org_id = s.org_id AND c.sim_id = s.id AND c.start_at >= $1 AND c.start_at < $2)), 0) AS kb
         FROM sims s WHERE s.org_id = 'org-demo' AND s.lat IS NOT NULL GROUP BY 1`,
      [b[0].start.toISOString(), b.at(-1)!.end.toISOString()],
    );
    const a = await heatmap(suite.user, 'week');
    expect(a.cells).toHaveLength(3);
    expect(new Map(a.countries.map((c) => [c.country, [c.sims, c.usageKb]]))).toEqual(new Map(r.rows.map((c) => [c.country, [Number(c.n), Number(c.kb)]])));
  });
});
