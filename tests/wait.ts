/** Small waits for tests that drive a real server process: a free port to start it on, and polling until a condition holds. */
import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';

/** A TCP port on 127.0.0.1 that nothing listens on now. */
export const freePort = () =>
  new Promise<number>((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Poll `fn` until it returns a value (not undefined); errors count as not yet. */
export async function until<T>(what: string, fn: () => Promise<T | undefined>, timeoutMs: number, everyMs = 50): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn().catch(() => undefined);
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(everyMs);
  }
}

/** A server program of the test's own (nats-server, redis-server) on `port`: started until it accepts connections, stopped by signal. */
export function childServer(command: string, args: string[], port: number, signal: NodeJS.Signals = 'SIGTERM') {
  let child: ChildProcess | null = null;
  return {
    async start() {
      // A service keeps the machine's clock, as the machine's own NATS and Redis do: a run under libfaketime
      // (scripts/test-all.sh) fakes ours only (redis-server does not start under it).
      const { LD_PRELOAD: _preload, FAKETIME: _faketime, ...env } = process.env;
      child = spawn(command, args, { stdio: 'ignore', env });
      await until(`${command} to answer`, () => answers(port), 20_000);
    },
    async stop() {
      const c = child;
      if (!c || c.exitCode !== null) return;
      await new Promise<void>((resolve) => {
        c.once('exit', () => resolve());
        c.kill(signal);
      });
      child = null;
    },
  };
}

/** True once something accepts a connection on 127.0.0.1:`port`, else undefined (for until). */
const answers = (port: number) =>
  new Promise<true | undefined>((resolve) => {
    const s = net.connect({ host: '127.0.0.1', port });
    s.setTimeout(1000);
    s.once('connect', () => (s.destroy(), resolve(true)));
    s.once('error', () => resolve(undefined));
    s.once('timeout', () => (s.destroy(), resolve(undefined)));
  });
