/**
 * The loop of the job worker and the SMS scheduler: one run of `work` at a time per instance, every pollMs or when
 * asked (tests and wake-ups call run()); a call while a run is going gets that run. stop() takes no more work and
 * waits for the run in progress to end (the subclasses hand back what is unfinished when told to: ./hand-back.ts).
 */
import type { FastifyBaseLogger } from 'fastify';

export abstract class PollLoop<T> {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<T> | null = null;
  /** Set by stop(): work() takes nothing new. */
  protected stopping = false;

  constructor(
    private readonly loopLog: FastifyBaseLogger,
    /** The log message of a run that failed. */
    private readonly loopName: string,
  ) {}

  /** One run. */
  protected abstract work(): Promise<T>;

  /** Run every pollMs; a run still going when the next is due is not doubled. */
  start(pollMs: number): void {
    this.timer = setInterval(() => void this.run().catch((err) => this.loopLog.error({ err }, this.loopName)), pollMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    this.halt();
    await this.running?.catch(() => undefined);
  }

  /** No further runs by the timer, and no new work taken; returns the run in progress, if any. */
  protected halt(): Promise<T> | null {
    this.stopping = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    return this.running;
  }

  protected run(): Promise<T> {
    if (this.running) return this.running;
    this.running = this.work().finally(() => {
      this.running = null;
    });
    return this.running;
  }
}
