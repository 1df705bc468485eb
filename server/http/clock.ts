/**
 * "Now" for requests and the jobs started with the app: the configured clock (server/config.ts; tests fix it), else the
 * wall clock. One definition, so a route and the job that later works on what it wrote agree on the time.
 */

/** The time on a clock that may be unset (the wall clock then). */
export const nowFrom = (clock?: () => Date): Date => clock?.() ?? new Date();

/** The time for a request: its server's configured clock, else the wall clock. */
export const nowOf = (req: { server: { config: { clock?: () => Date } } }): Date => nowFrom(req.server.config.clock);
