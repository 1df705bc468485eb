/**
 * The loop of the leased periodic jobs (server/job/periodic.ts), which the bundle, pool and invoice jobs run under: a
 * run at once under the job's lease, a stop that waits for the run in progress and then gives the lease up, so another
 * instance need not wait for it to run out; a run's error is logged and the loop goes on.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { FastifyBaseLogger } from 'fastify';
import { claimJob, startLeasedJob } from '../../server/job/periodic.js';
import { buildTestApp, DB_KINDS, type TestApp } from '../helper.js';

const HOUR = 3_600_000;

describe.each(DB_KINDS)('leased periodic jobs on %s', (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp({ kind });
  });
  afterAll(() => t.close());

  const leaseOf = async (name: string) =>
    (await t.db.query<{ lease_owner: string | null; lease_until: Date | null }>('SELECT lease_owner, lease_until FROM job_leases WHERE name = $1', [name]))
      .rows[0];
  const quietLog = () => ({ info: vi.fn(), warn: vi.fn(), error: vi.fn() }) as unknown as FastifyBaseLogger & { error: ReturnType<typeof vi.fn> };

  it('runs at once under its lease, waits for the run in progress on stop, then gives the lease up', async () => {
    const log = quietLog();
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    const seen: Array<{ owner: string; claimed: boolean; holder: string | null; leaseSeconds: number }> = [];
    const reports: unknown[] = [];
    const stop = startLeasedJob(t.db, log, {
      name: 'test_periodic',
      what: 'test job',
      everyMs: HOUR,
      run: async (owner, leaseSeconds) => {
        const claimed = await claimJob(t.db, 'test_periodic', owner, leaseSeconds);
        seen.push({ owner, claimed, holder: (await leaseOf('test_periodic')).lease_owner, leaseSeconds });
        await gate;
        return { claimed };
      },
      report: (s) => void reports.push(s),
    });
    await vi.waitFor(() => expect(seen).toHaveLength(1));
    expect(seen[0]).toMatchObject({ claimed: true, holder: seen[0].owner, leaseSeconds: 7200 });
    let stopped = false;
    const stopping = stop().then(() => (stopped = true));
    // The run has not ended, so neither has the stop, and the lease is still held (a stop that did not wait would have
    // given it up by the second read).
    expect((await leaseOf('test_periodic')).lease_owner).toBe(seen[0].owner);
    expect((await leaseOf('test_periodic')).lease_owner).toBe(seen[0].owner);
    expect(stopped).toBe(false);
    open();
    await stopping;
    expect(reports).toEqual([{ claimed: true }]);
    expect(await leaseOf('test_periodic')).toEqual({ lease_owner: null, lease_until: null });
    // Another instance takes the job at once.
    expect(await claimJob(t.db, 'test_periodic', 'other-instance', 60)).toBe(true);
    expect(log.error).not.toHaveBeenCalled();
  });

  it('logs a failed run as the job and does not give up the lease of another instance', async () => {
    const log = quietLog();
    expect(await claimJob(t.db, 'test_periodic_held', 'other-instance', 600)).toBe(true);
    const stop = startLeasedJob(t.db, log, {
      name: 'test_periodic_held',
      what: 'test job',
      everyMs: HOUR,
      leaseSeconds: 600,
      run: async (owner, leaseSeconds) => {
        if (!(await claimJob(t.db, 'test_periodic_held', owner, leaseSeconds))) throw new Error('lease held elsewhere');
        return null;
      },
      report: () => undefined,
    });
    await vi.waitFor(() => expect(log.error).toHaveBeenCalledTimes(1));
    expect(log.error.mock.calls[0][1]).toBe('test job');
    await stop();
    expect((await leaseOf('test_periodic_held')).lease_owner).toBe('other-instance');
  });
});
