/**
 * The boundary between the console's server and an operator's core network (ARCHITECTURE.md: the network simulator
 * stands where the network would be). Commands go out through a NetworkAdapter; what the network observes comes back
 * through NetworkReports, which the server implements once (server/network-reports/network-reports.ts) for the simulator and for a
 * real adapter alike, so CDRs, rollups and state changes are written the same way whoever reports them.
 */

/** One SIM as the network knows it. */
export interface SimRef {
  orgId: string;
  simId: string;
  iccid: string;
  imsi: string | null;
  msisdn: string | null;
}

/** The network's answer to a command for one SIM. */
export interface CommandAnswer {
  iccid: string;
  ok: boolean;
  /** Why the network refused, in its own words (kept in the SIM event; the caller is told "retry later"). */
  error?: string;
}

/** What the server asks of the network. */
export interface NetworkAdapter {
  /**
   * Provision SIMs for service (the activation of an activation task). The network answers each SIM through
   * NetworkReports.activationCompleted, possibly before this resolves; the promise resolves once the request is
   * accepted, with the SIMs refused outright.
   */
  activate(taskId: string, sims: SimRef[]): Promise<CommandAnswer[]>;
  /** Bar data and SMS for SIMs (answered at once). */
  suspend(sims: SimRef[]): Promise<CommandAnswer[]>;
  /** Lift the bar. */
  resume(sims: SimRef[]): Promise<CommandAnswer[]>;
  /** Detach the SIMs and let them attach again (ends their data session). */
  reset(sims: SimRef[]): Promise<CommandAnswer[]>;
  /**
   * Set SIMs' data policy (bundles' overage and out-of-coverage policies): 'stop' bars data (SMS still pass), a
   * throttle caps its speed at 128 or 256 kbps, 'none' lifts either. Idempotent: the same policy again changes nothing.
   */
  setDataPolicy(sims: Array<{ sim: SimRef; control: 'none' | 'throttle_128' | 'throttle_256' | 'stop' }>): Promise<CommandAnswer[]>;
  /** Send a mobile-terminated SMS already stored as sms_records row smsId; accepted means handed to the SMSC. */
  sendSms(sim: SimRef, sms: { id: string; content: string }): Promise<CommandAnswer>;
}

export type Rat = '2G' | '3G' | 'LTE' | 'CATM' | 'NBIoT' | 'undetermined';
export type ConnectionStatus = 'online' | 'connected' | 'offline' | 'unknown';

/** A network named by operator, country and MCC/MNC, e.g. "Vodafone DE 262-02". */
export interface NetworkName {
  name: string;
  mccMnc: string;
  country: string;
}

/** One call detail record: one direction of one stretch of a data session. */
export interface Cdr {
  sim: SimRef;
  network: NetworkName;
  planCode: string | null;
  rat: Rat;
  direction: 'uplink' | 'downlink';
  volumeKb: number;
  start: Date;
  end: Date;
}

/** What the network reports back; the server's implementation writes each report in one transaction. */
export interface NetworkReports {
  /** The network finished (ok) or gave up on (not ok) a SIM's activation of task taskId. */
  activationCompleted(e: { sim: SimRef; taskId: string; ok: boolean; error?: string; at: Date }): Promise<void>;
  /** The same for several SIMs of task taskId in one report, written set-based (a network that answers in batches). */
  activationsCompleted(e: { taskId: string; at: Date; answers: Array<{ sim: SimRef; ok: boolean; error?: string }> }): Promise<void>;
  /** The SIM attached, detached or changed network: its connection status. */
  connectionStatus(e: { sim: SimRef; status: ConnectionStatus; network?: NetworkName; rat?: Rat; at: Date }): Promise<void>;
  /** A data session opened: APN and IP assigned. */
  sessionOpened(e: { sim: SimRef; apn: string; ip: string; network: NetworkName; rat: Rat; at: Date }): Promise<void>;
  /** A data session closed, having carried kb in all. */
  sessionClosed(e: { sim: SimRef; kb: number; at: Date }): Promise<void>;
  /** Usage: one CDR with its rollups (recordUsage). */
  usage(cdr: Cdr): Promise<void>;
  /** Where the device was seen. */
  location(e: { sim: SimRef; lat: number; lon: number; at: Date }): Promise<void>;
  /** An MT SMS reached the device. */
  smsDelivered(e: { smsId: string; orgId: string; at: Date }): Promise<void>;
  /** A mobile-originated SMS from the device, possibly answering an MT one. */
  moSms(e: { sim: SimRef; content: string; replyToId: string | null; at: Date; id?: string }): Promise<void>;
}
