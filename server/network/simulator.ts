/**
 * The simulated core network (ARCHITECTURE.md: it stands where the operator's network would be). It answers the
 * server's commands at once, and on each step it plays the network's side for a bounded number of active SIMs:
 * attach and detach, data sessions with CDRs and usage, locations; it delivers MT SMS and sometimes has the device
 * answer; it expires bundles and SIMs whose time is up. Everything it observes goes through NetworkReports, as a real
 * adapter's observations would. Deterministic for a seed and a sequence of step times; tests call step(now) by hand.
 */
import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../db/db.js';
import { decide, type SimFacts } from '../domain/lifecycle.js';
import { hash32, Rng } from '../domain/rng.js';
import type { CommandAnswer, ConnectionStatus, NetworkAdapter, NetworkName, NetworkReports, Rat, SimRef } from './adapter.js';
import { networkEvent } from '../sim/sim-events.js';

export interface SimulatorOptions {
  /** Background traffic (SIMULATOR=off turns it off); commands are answered either way. */
  enabled: boolean;
  /** Seed of the PRNG: the same seed and step times give the same traffic. */
  seed?: string | number;
  /** Active SIMs visited per step, round robin (SIMULATOR_SIMS_PER_TICK); also the bound on expiries and SMS per step. */
  simsPerTick?: number;
  /** Time between steps when started (SIMULATOR_TICK_MS). */
  tickMs?: number;
  /** Chance that a device answers a delivered MT SMS with an MO one. */
  moReplyChance?: number;
  /**
   * Deliver each MT SMS this long after it is handed over, even with traffic off (an SMSC answering on its own clock);
   * without it, SMS are delivered by the steps.
   */
  smsDeliveryMs?: number;
}

interface SentSms {
  id: string;
  org_id: string;
  sim_id: string | null;
  iccid: string;
  imsi: string | null;
  msisdn: string | null;
  content: string;
  active: boolean;
}

export interface StepSummary {
  visited: number;
  cdrs: number;
  sessionsOpened: number;
  sessionsClosed: number;
  bundlesExpired: number;
  simsExpired: number;
  smsDelivered: number;
  moReplies: number;
}

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

/** Home networks by the MCC/MNC an IMSI starts with. */
const HOME: Record<string, string> = {
  '26201': 'Telekom DE 262-01',
  '26202': 'Vodafone DE 262-02',
  '26203': 'O2 DE 262-03',
  '21401': 'Vodafone ES 214-01',
  '21403': 'Orange ES 214-03',
  '21407': 'Movistar ES 214-07',
  '23410': 'O2 GB 234-10',
  '23415': 'Vodafone GB 234-15',
  '23430': 'EE GB 234-30',
};
const ROAMING = ['Orange FR 208-01', 'KPN NL 204-08', 'Swisscom CH 228-01', 'A1 AT 232-01', 'TIM IT 222-01'];
const CENTRES: Record<string, [number, number]> = {
  DE: [51.2, 10.4],
  ES: [40.4, -3.7],
  GB: [52.5, -1.9],
  FR: [46.6, 2.4],
  NL: [52.2, 5.3],
  CH: [46.8, 8.2],
  AT: [47.6, 14.1],
  IT: [42.8, 12.5],
};
const RATS: Array<[Rat, number]> = [
  ['LTE', 40],
  ['CATM', 25],
  ['NBIoT', 15],
  ['3G', 10],
  ['2G', 7],
  ['undetermined', 3],
];
const REPLIES: Record<string, string> = { 'STATUS?': 'OK', PING: 'PONG', LOCATE: 'GPS 52.5200,13.4050', 'TEMP?': 'TEMP 4.2C', 'FW CHECK': 'FW 2.4.1' };

/** "Vodafone DE 262-02" as its parts; null for a name that does not follow the pattern. */
export function networkNamed(name: string | null | undefined): NetworkName | null {
  const m = name?.match(/^.+ ([A-Z]{2}) (\d{3})-(\d{2,3})$/);
  return m ? { name: name!, country: m[1], mccMnc: m[2] + m[3] } : null;
}

/** A device's radio is what it is: the same RAT for a SIM every time. */
function ratOf(simId: string): Rat {
  let r = (hash32(simId) % 100) + 0.5;
  for (const [rat, w] of RATS) {
    r -= w;
    if (r < 0) return rat;
  }
  return 'undetermined';
}

interface VisitRow {
  org_id: string;
  id: string;
  iccid: string;
  imsi: string | null;
  msisdn: string | null;
  connection_status: ConnectionStatus;
  network: string | null;
  apn: string | null;
  last_session_at: Date | null;
  lat: number | null;
  lon: number | null;
}

const refOf = (r: { org_id: string; id: string; iccid: string; imsi?: string | null; msisdn?: string | null }): SimRef => ({
  orgId: r.org_id,
  simId: r.id,
  iccid: r.iccid,
  imsi: r.imsi ?? null,
  msisdn: r.msisdn ?? null,
});

export class SimulatedNetwork implements NetworkAdapter {
  private readonly rng: Rng;
  private readonly simsPerTick: number;
  private readonly moReplyChance: number;
  /** The last SIM id visited: steps walk the active SIMs round robin. */
  private cursor = '';
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<StepSummary> | null = null;
  /** The data policy the server set per SIM id (setDataPolicy): a barred SIM carries no data, a throttled one less. */
  private readonly dataPolicy = new Map<string, 'throttle_128' | 'throttle_256' | 'stop'>();
  /** SMS deliveries waiting for their time (smsDeliveryMs). */
  private readonly deliveries = new Set<NodeJS.Timeout>();

  constructor(
    private readonly db: Db,
    private readonly reports: NetworkReports,
    private readonly opts: SimulatorOptions,
    private readonly log?: FastifyBaseLogger,
  ) {
    this.rng = new Rng(opts.seed ?? 'network');
    this.simsPerTick = Math.max(1, Math.floor(opts.simsPerTick ?? 50));
    this.moReplyChance = opts.moReplyChance ?? 0.3;
  }

  get enabled(): boolean {
    return this.opts.enabled;
  }

  /** Step every tickMs (when enabled); tests call step() instead. */
  start(): void {
    if (!this.opts.enabled || this.timer) return;
    // A network remembers the policies it was given before this process started (here they live in the server's rows).
    void this.db
      .query<{ id: string; flow_control_policy: 'throttle_128' | 'throttle_256' | 'stop' }>(
        "SELECT id, flow_control_policy FROM sims WHERE flow_control_policy <> 'none'",
      )
      .then((r) => r.rows.forEach((row) => this.dataPolicy.set(row.id, row.flow_control_policy)))
      .catch((err) => this.log?.error({ err }, 'network simulator: data policies'));
    this.timer = setInterval(() => void this.step(new Date()).catch((err) => this.log?.error({ err }, 'network simulator')), this.opts.tickMs ?? 5000);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    for (const d of this.deliveries) clearTimeout(d);
    this.deliveries.clear();
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running?.catch(() => undefined);
  }

  /** One step of the network at time now; nothing at all when switched off. One step at a time. */
  async step(now: Date = new Date()): Promise<StepSummary> {
    while (this.running) await this.running.catch(() => undefined);
    this.running = this.runStep(now).finally(() => {
      this.running = null;
    });
    return this.running;
  }

  private async runStep(now: Date): Promise<StepSummary> {
    const s: StepSummary = { visited: 0, cdrs: 0, sessionsOpened: 0, sessionsClosed: 0, bundlesExpired: 0, simsExpired: 0, smsDelivered: 0, moReplies: 0 };
    if (!this.opts.enabled) return s;
    s.bundlesExpired = await this.expireBundles(now);
    s.simsExpired = await this.expireSims(now);
    await this.deliverSms(now, s);
    const sims = (
      await this.db.query<VisitRow>(
        `SELECT org_id, id, iccid, imsi, msisdn, connection_status, network, apn, last_session_at, lat, lon
           FROM sims WHERE status = 'active' AND operation IS NULL AND id > $1 ORDER BY id LIMIT $2`,
        [this.cursor, this.simsPerTick],
      )
    ).rows;
    // At the end of the list the next step starts again from the beginning.
    this.cursor = sims.length < this.simsPerTick ? '' : sims[sims.length - 1].id;
    for (const sim of sims) await this.visit(sim, now, s);
    s.visited = sims.length;
    return s;
  }

  /** The network's side of one active SIM for this step. */
  private async visit(row: VisitRow, now: Date, s: StepSummary): Promise<void> {
    const sim = refOf(row);
    const rat = ratOf(row.id);
    const home = networkNamed(HOME[(row.imsi ?? '').slice(0, 5)]) ?? networkNamed('Vodafone DE 262-02')!;
    switch (row.connection_status) {
      case 'offline':
      case 'unknown': {
        if (!this.rng.chance(0.6)) return;
        const network = this.rng.chance(0.1) ? networkNamed(this.rng.pick(ROAMING))! : home;
        await this.reports.connectionStatus({ sim, status: 'connected', network, rat, at: now });
        const [lat, lon] = CENTRES[network.country] ?? [0, 0];
        await this.reports.location({ sim, lat: round4(lat + (this.rng.next() - 0.5) * 3), lon: round4(lon + (this.rng.next() - 0.5) * 4), at: now });
        return;
      }
      case 'connected': {
        if (this.rng.chance(0.7) && this.dataPolicy.get(row.id) !== 'stop') {
          const network = networkNamed(row.network) ?? home;
          const ip = `10.${this.rng.int(100, 199)}.${this.rng.int(0, 255)}.${this.rng.int(2, 254)}`;
          await this.reports.sessionOpened({ sim, apn: row.apn ?? 'iot.m2m', ip, network, rat, at: now });
          s.sessionsOpened += 1;
        } else if (this.rng.chance(0.1)) {
          await this.reports.connectionStatus({ sim, status: 'offline', at: now });
        }
        return;
      }
      case 'online': {
        const network = networkNamed(row.network) ?? home;
        const sessionStart = row.last_session_at ?? new Date(now.getTime() - 5 * MINUTE);
        const lastEnd = (
          await this.db.query<{ e: Date | null }>('SELECT max(end_at) AS e FROM cdrs WHERE org_id = $1 AND sim_id = $2 AND start_at >= $3', [
            row.org_id,
            row.id,
            sessionStart.toISOString(),
          ])
        ).rows[0].e;
        // An interim CDR pair covers the time since the last one, at most an hour.
        const start = new Date(Math.max(sessionStart.getTime(), lastEnd ? new Date(lastEnd).getTime() : 0, now.getTime() - HOUR));
        if (start < now) {
          const plan =
            (
              await this.db.query<{ sku: string }>(
                `SELECT sku FROM bundle_orders WHERE org_id = $1 AND sim_id = $2 AND status = 'IN_USE' ORDER BY activated_at NULLS LAST, id LIMIT 1`,
                [row.org_id, row.id],
              )
            ).rows[0]?.sku ?? null;
          const seconds = (now.getTime() - start.getTime()) / 1000;
          let total = Math.max(2, Math.round(seconds * (0.02 + this.rng.next() * 1.5)));
          const up = Math.max(1, Math.round(total * (0.2 + this.rng.next() * 0.25)));
          for (const direction of ['uplink', 'downlink'] as const) {
            // The policy is looked at before each CDR: the one that crossed an allowance may have barred the next.
            const policy = this.dataPolicy.get(row.id);
            if (policy === 'stop') break;
            // A throttled SIM carries at most kbps / 8 KB a second (its two directions share the rate).
            if (policy) total = Math.min(total, Math.max(2, Math.floor((Number(policy.slice(9)) / 8) * seconds)));
            const volumeKb = direction === 'uplink' ? Math.min(up, total - 1) : total - Math.min(up, total - 1);
            await this.reports.usage({ sim, network, planCode: plan, rat, direction, volumeKb, start, end: now });
            s.cdrs += 1;
          }
        }
        if (this.rng.chance(0.15) && row.lat !== null && row.lon !== null) {
          await this.reports.location({
            sim,
            lat: round4(row.lat + (this.rng.next() - 0.5) * 0.04),
            lon: round4(row.lon + (this.rng.next() - 0.5) * 0.04),
            at: now,
          });
        }
        if (this.rng.chance(0.35)) {
          const kb = (
            await this.db.query<{ kb: string | null }>('SELECT sum(volume_kb) AS kb FROM cdrs WHERE org_id = $1 AND sim_id = $2 AND start_at >= $3', [
              row.org_id,
              row.id,
              sessionStart.toISOString(),
            ])
          ).rows[0].kb;
          await this.reports.sessionClosed({ sim, kb: Number(kb ?? 0), at: now });
          s.sessionsClosed += 1;
        }
        return;
      }
    }
  }

  /** Bundles past their expected expiry end (EXPIRED), each a bundle event of its SIM. */
  private async expireBundles(now: Date): Promise<number> {
    return this.db.tx(async (q) => {
      const due = (
        await q.query<{ id: string; org_id: string; sim_id: string; iccid: string; name: string; status: string }>(
          `SELECT id, org_id, sim_id, iccid, name, status FROM bundle_orders
            WHERE status IN ('PENDING', 'IN_USE') AND expected_expire_at <= $1 ORDER BY expected_expire_at, id LIMIT $2 FOR UPDATE SKIP LOCKED`,
          [now.toISOString(), this.simsPerTick],
        )
      ).rows;
      for (const b of due) {
        await q.query(`UPDATE bundle_orders SET status = 'EXPIRED', expired_at = $2 WHERE id = $1`, [b.id, now.toISOString()]);
        await networkEvent(q, {
          orgId: b.org_id,
          simId: b.sim_id,
          iccid: b.iccid,
          type: 'bundle_change',
          detail: { bundleId: b.id, name: b.name, from: b.status, to: 'EXPIRED' },
          at: now,
        });
      }
      return due.length;
    });
  }

  /** Active and paused SIMs whose service ended move to expired (lifecycle expire); one busy with an operation waits. */
  private async expireSims(now: Date): Promise<number> {
    return this.db.tx(async (q) => {
      const due = (
        await q.query<SimFacts & { org_id: string; id: string; iccid: string }>(
          `SELECT org_id, id, iccid, status, sub_status AS "subStatus", technology, operation, false AS "hasAvailableBundle", false AS "inTestPeriod"
             FROM sims WHERE status IN ('active', 'paused') AND expires_at <= $1 AND operation IS NULL ORDER BY expires_at, id LIMIT $2 FOR UPDATE SKIP LOCKED`,
          [now.toISOString(), this.simsPerTick],
        )
      ).rows;
      let n = 0;
      for (const sim of due) {
        const d = decide(sim, 'expire');
        if (!d.ok) continue;
        await q.query(
          `UPDATE sims SET status = $3, sub_status = $4, connection_status = 'offline', deactivated_at = $5, updated_at = now() WHERE org_id = $1 AND id = $2`,
          [sim.org_id, sim.id, d.status, d.subStatus, now.toISOString()],
        );
        await networkEvent(q, {
          orgId: sim.org_id,
          simId: sim.id,
          iccid: sim.iccid,
          type: 'status_change',
          from: sim.status,
          to: d.status,
          detail: { action: 'expire', fromSub: sim.subStatus, toSub: d.subStatus },
          at: now,
        });
        n += 1;
      }
      return n;
    });
  }

  /** MT SMS handed to the network are delivered to active SIMs (failed for others); some devices answer. */
  private async deliverSms(now: Date, s: StepSummary): Promise<void> {
    const sent = (
      await this.db.query<SentSms>(
        `SELECT m.id, m.org_id, m.sim_id, m.iccid, s.imsi, s.msisdn, m.content, coalesce(s.status = 'active', false) AS active
           FROM sms_records m LEFT JOIN sims s ON s.id = m.sim_id
          WHERE m.direction = 'MT' AND m.status = 'sent' ORDER BY m.sent_at, m.id LIMIT $1`,
        [this.simsPerTick],
      )
    ).rows;
    for (const m of sent) await this.deliverOne(m, now, s);
  }

  private async deliverOne(m: SentSms, now: Date, s?: StepSummary): Promise<void> {
    if (!m.active || !m.sim_id) {
      // Still pending when the hand-off has not been written yet (smsDeliveryMs): the sender's update leaves a failed one alone.
      await this.db.query(
        `UPDATE sms_records SET status = 'failed', error = 'Absent subscriber' WHERE org_id = $1 AND id = $2 AND status IN ('pending', 'sent')`,
        [m.org_id, m.id],
      );
      return;
    }
    await this.reports.smsDelivered({ smsId: m.id, orgId: m.org_id, at: now });
    if (s) s.smsDelivered += 1;
    if (this.rng.chance(this.moReplyChance)) {
      const sim = refOf({ org_id: m.org_id, id: m.sim_id, iccid: m.iccid, imsi: m.imsi, msisdn: m.msisdn });
      await this.reports.moSms({
        sim,
        content: REPLIES[m.content.trim().toUpperCase()] ?? 'OK',
        replyToId: m.id,
        at: new Date(now.getTime() + 1000),
        id: this.rng.id(),
      });
      if (s) s.moReplies += 1;
    }
  }

  /** Deliver one SMS now (smsDeliveryMs after its hand-off), if it is still on its way. */
  private async deliverLater(smsId: string): Promise<void> {
    const m = (
      await this.db.query<SentSms>(
        `SELECT m.id, m.org_id, m.sim_id, m.iccid, s.imsi, s.msisdn, m.content, coalesce(s.status = 'active', false) AS active
           FROM sms_records m LEFT JOIN sims s ON s.id = m.sim_id WHERE m.id = $1 AND m.direction = 'MT' AND m.status IN ('pending', 'sent')`,
        [smsId],
      )
    ).rows[0];
    if (m) await this.deliverOne(m, new Date());
  }

  // Commands: the simulated network accepts every SIM it knows (one with an IMSI) and answers at once.

  /** The SIMs it accepts are confirmed in one report for the whole request, as a network answering in batches would. */
  async activate(taskId: string, sims: SimRef[]): Promise<CommandAnswer[]> {
    const answers: CommandAnswer[] = sims.map((sim) =>
      sim.imsi ? { iccid: sim.iccid, ok: true } : { iccid: sim.iccid, ok: false, error: 'IMSI not provisioned' },
    );
    const confirmed = sims.filter((sim) => sim.imsi);
    if (confirmed.length) await this.reports.activationsCompleted({ taskId, at: new Date(), answers: confirmed.map((sim) => ({ sim, ok: true })) });
    return answers;
  }

  /** A barred SIM loses its connection. */
  async suspend(sims: SimRef[]): Promise<CommandAnswer[]> {
    return this.detach(sims);
  }

  /** The policy holds from now on: the next CDR of a barred SIM is not written, a throttled SIM's are smaller. */
  async setDataPolicy(sims: Array<{ sim: SimRef; control: 'none' | 'throttle_128' | 'throttle_256' | 'stop' }>): Promise<CommandAnswer[]> {
    for (const { sim, control } of sims) {
      if (control === 'none') this.dataPolicy.delete(sim.simId);
      else this.dataPolicy.set(sim.simId, control);
    }
    return sims.map(({ sim }) => ({ iccid: sim.iccid, ok: true }));
  }

  /** What the network enforces for a SIM now (tests read it). */
  dataPolicyOf(simId: string): 'none' | 'throttle_128' | 'throttle_256' | 'stop' {
    return this.dataPolicy.get(simId) ?? 'none';
  }

  async resume(sims: SimRef[]): Promise<CommandAnswer[]> {
    return sims.map((s) => ({ iccid: s.iccid, ok: true }));
  }

  /** A reset detaches the SIM; it attaches again on a later step. */
  async reset(sims: SimRef[]): Promise<CommandAnswer[]> {
    return this.detach(sims);
  }

  async sendSms(sim: SimRef, sms?: { id: string; content: string }): Promise<CommandAnswer> {
    const ok = Boolean(sim.msisdn);
    if (ok && sms && this.opts.smsDeliveryMs !== undefined) {
      const timer = setTimeout(() => {
        this.deliveries.delete(timer);
        void this.deliverLater(sms.id).catch((err) => this.log?.error({ err }, 'network simulator: SMS delivery'));
      }, this.opts.smsDeliveryMs);
      timer.unref();
      this.deliveries.add(timer);
    }
    return { iccid: sim.iccid, ok };
  }

  private async detach(sims: SimRef[]): Promise<CommandAnswer[]> {
    const now = new Date();
    for (const sim of sims) await this.reports.connectionStatus({ sim, status: 'offline', at: now });
    return sims.map((s) => ({ iccid: s.iccid, ok: true }));
  }
}

const round4 = (n: number): number => Math.round(n * 10_000) / 10_000;
