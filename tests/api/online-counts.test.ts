/**
 * "Online now" (sim_online_counts, 010_online_counts.sql) against a direct count of sims after every kind of write the
 * statement triggers must follow: inserts, connection flips both ways in one statement, transfers between
 * organisations, deletes and statements of many rows; and the dashboard card reads it.
 */
import { describe, expect, it } from 'vitest';
import { luhnCheckDigit } from '../../common/iccid.js';
import { newId } from '../../server/db/ids.js';
import { call, DB_KINDS, DEMO, signedInSuite } from '../helper.js';

const ONLINE = "connection_status IN ('online', 'connected')";

let serial = 0;
/** A valid ICCID no seed uses: 8949 99 and a serial of this file, with its Luhn digit. */
const newIccid = () => {
  const body = `894999${String(Date.now() % 1e6).padStart(6, '0')}${String(serial++).padStart(6, '0')}`;
  return body + luhnCheckDigit(body);
};

describe.each(DB_KINDS)('online counts on %s', (kind) => {
  const suite = signedInSuite(kind, { user: DEMO.user });

  /** Organisations whose kept count differs from a direct count (a missing row counts 0). */
  const mismatches = async () =>
    (
      await suite.t.db.query<{ org_id: string; direct: number; kept: number }>(
        `SELECT coalesce(d.org_id, c.org_id) AS org_id, coalesce(d.n, 0)::int AS direct, coalesce(c.n, 0)::int AS kept
         FROM (SELECT org_id, count(*) AS n FROM sims WHERE ${ONLINE} GROUP BY 1) d
         FULL JOIN sim_online_counts c ON c.org_id = d.org_id
        WHERE coalesce(d.n, 0) <> coalesce(c.n, 0)`,
      )
    ).rows;
  const online = async (org: string) =>
    (await suite.t.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM sims WHERE org_id = $1 AND ${ONLINE}`, [org])).rows[0].n;
  const kept = async (org: string) =>
    Number((await suite.t.db.query<{ n: string }>('SELECT coalesce(sum(n), 0) AS n FROM sim_online_counts WHERE org_id = $1', [org])).rows[0].n);
  /** Insert SIMs of one organisation with the given connection states, in one statement; returns their ids. */
  const insert = async (org: string, states: string[]) => {
    const ids = states.map(() => newId());
    await suite.t.db.query(
      `INSERT INTO sims (org_id, id, iccid, technology, connection_status)
       SELECT $1, id, iccid, 'ONE_IMSI', state FROM unnest($2::text[], $3::text[], $4::text[]) AS x(id, iccid, state)`,
      [org, ids, states.map(() => newIccid()), states],
    );
    return ids;
  };

  it('matches a direct count after the seed', async () => {
    expect(await mismatches()).toEqual([]);
    expect(await kept('org-demo')).toBeGreaterThan(0);
  });

  it('follows SIMs inserted online, connected, offline and unknown', async () => {
    const before = await kept('org-demo-north');
    await insert('org-demo-north', ['online', 'connected', 'offline', 'unknown', 'online']);
    expect(await kept('org-demo-north')).toBe(before + 3);
    expect(await mismatches()).toEqual([]);
  });

  it('follows one update that takes some SIMs online and others offline', async () => {
    const ids = await insert('org-demo', ['online', 'online', 'connected', 'offline', 'unknown', 'offline']);
    const before = await kept('org-demo');
    // Two go offline, three come online, one stays online with another word for it (connected -> online).
    await suite.t.db.query(
      `UPDATE sims SET connection_status = CASE connection_status WHEN 'online' THEN 'offline' WHEN 'connected' THEN 'online' ELSE 'connected' END
        WHERE id = ANY($1)`,
      [ids],
    );
    expect(await kept('org-demo')).toBe(before - 2 + 3);
    expect(await mismatches()).toEqual([]);
  });

  it('moves the count with SIMs transferred to another organisation', async () => {
    const ids = await insert('org-demo', ['online', 'connected', 'offline']);
    const [demo, other] = [await kept('org-demo'), await kept('org-other')];
    await suite.t.db.query("UPDATE sims SET org_id = 'org-other' WHERE id = ANY($1)", [ids]);
    expect(await kept('org-demo')).toBe(demo - 2);
    expect(await kept('org-other')).toBe(other + 2);
    // Back again, and offline on the way: the count leaves org-other and does not come back to org-demo.
    await suite.t.db.query("UPDATE sims SET org_id = 'org-demo', connection_status = 'offline' WHERE id = ANY($1)", [ids]);
    expect(await kept('org-other')).toBe(other);
    expect(await kept('org-demo')).toBe(demo - 2);
    expect(await mismatches()).toEqual([]);
  });

  it('follows deleted SIMs', async () => {
    const ids = await insert('org-demo-south', ['online', 'offline', 'connected']);
    const before = await kept('org-demo-south');
    await suite.t.db.query('DELETE FROM sims WHERE id = ANY($1)', [ids]);
    expect(await kept('org-demo-south')).toBe(before - 2);
    expect(await mismatches()).toEqual([]);
  });

  it('follows statements of many rows at once: a thousand inserted, every SIM reshuffled, an organisation moved', async () => {
    await insert(
      'org-demo',
      Array.from({ length: 1000 }, (_, i) => ['online', 'offline', 'connected', 'unknown'][i % 4]),
    );
    expect(await mismatches()).toEqual([]);
    await suite.t.db.query(`UPDATE sims SET connection_status = (ARRAY['online', 'offline', 'connected', 'unknown'])[1 + abs(hashtext(id)) % 4]`);
    expect(await mismatches()).toEqual([]);
    await suite.t.db.query(`UPDATE sims SET org_id = 'org-other' WHERE org_id = 'org-demo-north'`);
    expect(await kept('org-demo-north')).toBe(0);
    expect(await mismatches()).toEqual([]);
    // An update that changes no SIM's online-ness moves no count.
    const counts = (await suite.t.db.query('SELECT org_id, n FROM sim_online_counts ORDER BY org_id')).rows;
    await suite.t.db.query(`UPDATE sims SET updated_at = now()`);
    expect((await suite.t.db.query('SELECT org_id, n FROM sim_online_counts ORDER BY org_id')).rows).toEqual(counts);
  });

  it('is the card\'s "online now"', async () => {
    const res = await call(suite.t.app, suite.user, { method: 'GET', url: '/api/main/dashboard/card?view=week' });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data.onlineSims).toBe(await online('org-demo'));
    expect(res.json().data.onlineSims).toBeGreaterThan(0);
  });
});
