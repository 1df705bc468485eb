/**
 * Stopping the server's background work (docs/decisions.md, "Stopping on SIGTERM"): each loop stops taking work at once,
 * lets what it has in flight finish until the hand-back signal, and then gives what is still unfinished back to the
 * database (its claim or lease cleared), so the next instance takes it over at once instead of after a lease timeout.
 */

/** Resolves when `signal` aborts; never without one. */
export function whenAborted(signal?: AbortSignal): Promise<void> {
  if (!signal) return new Promise(() => undefined);
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
}

/** Wait for `work` until `signal` aborts: true when the work ended first (or there was none), false when it is still going. */
export async function endedBefore(work: Promise<unknown> | null | undefined, signal?: AbortSignal): Promise<boolean> {
  if (!work) return true;
  return Promise.race([
    work.then(
      () => true,
      () => true,
    ),
    whenAborted(signal).then(() => false),
  ]);
}

/** Thrown inside a piece of work that is being handed back, to end it where it stands. */
export class HandedBack extends Error {
  constructor() {
    super('handed back: the server is stopping');
  }
}

/**
 * The time work in flight gets to finish once the server is asked to stop, out of SHUTDOWN_TIMEOUT_SECONDS: the rest
 * (a quarter, at most 2 s) is kept for handing back what did not finish and closing the database.
 */
export function graceMs(shutdownTimeoutSeconds: number): number {
  const boundMs = shutdownTimeoutSeconds * 1000;
  return boundMs - Math.min(2000, boundMs / 4);
}
