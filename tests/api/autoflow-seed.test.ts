/**
 * The demo seed's rules have "run" for weeks: what their scheduled triggers meet at seed time fired back then.
 * The seed arms them (autoflow_trips with the keys the evaluation uses, server/autoflow/schedule.ts armScheduled), so the
 * first evaluation after a fresh start fires nothing (it used to fire hundreds of runs, mails and suspensions), while a
 * SIM that crosses afterwards fires as usual. The real server, database and action runner; the network's own writer
 * reports the usage.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { ActionRunner } from '../../server/autoflow/actions.js';
import { evaluateScheduled } from '../../server/autoflow/schedule.js';
import { DEMO_RULE_ID } from '../../server/db/seed-fleet.js';
import type { NetworkName } from '../../server/network/adapter.js';
import { networkReports } from '../../server/network-reports/network-reports.js';
import { DB_KINDS, signedInSuite } from '../helper.js';

const quiet = { info() {}, warn() {}, error() {}, debug() {} } as never;
const VODAFONE_DE: NetworkName = { name: 'Vodafone DE 262-02', mccMnc: '26202', country: 'DE' };
/** The demo rule's threshold: 50 MB in the cycle. */
const THRESHOLD_KB = 50 * 1024;

describe.each(DB_KINDS)('the demo seed’s rules on %s', (kind) => {
  const suite = signedInSuite(kind);
  let runner: ActionRunner;
  beforeAll(async () => {
    runner = new ActionRunner(suite.t.db, suite.t.app.network, suite.t.app.mailer, quiet, { retryBaseMs: 0, maxAttempts: 3 });
  });

  const count = async (sql: string, params: unknown[] = []) =>
    Number((await suite.t.db.query<{ n: string }>(`SELECT count(*)::text AS n FROM ${sql}`, params)).rows[0].n);
  /** What a firing would change: runs, mails, crossing events and the SIMs' status, data policy and tags. */
  const state = async () => ({
    runs: await count('autoflow_runs'),
    mails: await count('outbox'),
    crossings: await count("events WHERE type = 'usage' AND subtype = 'threshold_crossed'"),
    sims: (await suite.t.db.query('SELECT id, status, flow_control_policy, tags FROM sims ORDER BY id')).rows,
  });
  const runActions = async () => {
    let n = 0;
    for (let i = 0, k = 1; i < 20 && k > 0; i++) n += k = await runner.runOnce();
    return n;
  };

  it('are armed at seed time: one evaluation right after fires nothing and changes no SIM', async () => {
    // The seed met the demo rule's threshold for a SIM already above it, and armed it with the cycle as its key.
    const armed = (
      await suite.t.db.query<{ iccid: string; key: string; cycle_start: string }>(
        `SELECT s.iccid, x.key, s.cycle_start::text AS cycle_start FROM autoflow_trips x JOIN sims s ON s.id = x.sim_id WHERE x.rule_id = $1`,
        [DEMO_RULE_ID],
      )
    ).rows;
    for (const a of armed) expect(a.key).toBe(a.cycle_start);
    // Exactly the SIMs over the threshold at seed time. This small seed has few or none, depending on when it is seeded
    // (its usage is laid out back from now, its cycles are calendar months): demo-seed.test.ts holds the full demo seed
    // to more than 100 armed crossings.
    const over = await count("sims WHERE org_id = 'org-demo' AND cycle_usage_kb >= $1", [THRESHOLD_KB]);
    expect(armed).toHaveLength(over);

    const before = await state();
    const trips = await count('autoflow_trips');
    const r = await evaluateScheduled(suite.t.db, new Date());
    expect(r.rules).toBeGreaterThan(0);
    expect(r).toMatchObject({ fired: 0, rearmed: 0 });
    expect(await runActions()).toBe(0);
    expect(await state()).toEqual(before);
    expect(await count('autoflow_trips')).toBe(trips);
  });

  it('a SIM that crosses the threshold after the seed fires once', async () => {
    const sim = (
      await suite.t.db.query<{ id: string; iccid: string; imsi: string | null; msisdn: string | null; cycle_usage_kb: string }>(
        `SELECT id, iccid, imsi, msisdn, cycle_usage_kb::text FROM sims
          WHERE org_id = 'org-demo' AND status = 'active' AND cycle_start IS NOT NULL AND cycle_usage_kb < $1 ORDER BY iccid LIMIT 1`,
        [THRESHOLD_KB],
      )
    ).rows[0];
    expect(sim).toBeDefined();
    const fired = () => count("autoflow_runs WHERE rule_id = $1 AND iccid = $2 AND crossing LIKE 'data_usage:%'", [DEMO_RULE_ID, sim.iccid]);
    expect(await fired()).toBe(0);
    const at = new Date();
    const usage = (kb: number) =>
      networkReports(suite.t.db).usage({
        sim: { orgId: 'org-demo', simId: sim.id, iccid: sim.iccid, imsi: sim.imsi, msisdn: sim.msisdn },
        network: VODAFONE_DE,
        planCode: null,
        rat: 'LTE',
        direction: 'downlink',
        volumeKb: kb,
        start: new Date(at.getTime() - 600_000),
        end: at,
      });
    // Just below, then across.
    await usage(THRESHOLD_KB - 1 - Number(sim.cycle_usage_kb));
    expect((await evaluateScheduled(suite.t.db, new Date())).fired).toBe(0);
    await usage(1);
    const r = await evaluateScheduled(suite.t.db, new Date());
    expect(r.fired).toBe(1);
    expect(await fired()).toBe(1);
    expect((await evaluateScheduled(suite.t.db, new Date())).fired).toBe(0);
    expect(await fired()).toBe(1);
    // The demo rule e-mails its group once.
    expect(await runActions()).toBeGreaterThan(0);
    expect(await count("outbox WHERE to_address = 'ops@demo.example.com' AND subject LIKE $1", [`%${sim.iccid}%`])).toBe(1);
  });
});
