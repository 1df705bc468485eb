/** Small network checks shared by the cluster script, the benches and the tests: is a port answering, which ports are free. */
import net from 'node:net';

/** Whether something accepts a connection on host:port within a second. */
export const answersOn = (port: number, host = '127.0.0.1') =>
  new Promise<boolean>((resolve) => {
    const s = net.connect({ host, port });
    s.setTimeout(1000);
    s.once('connect', () => (s.destroy(), resolve(true)));
    s.once('error', () => resolve(false));
    s.once('timeout', () => (s.destroy(), resolve(false)));
  });

/** A port p with p..p+n all free on every address (a load balancer's and its n instances'). */
export async function freeRun(n: number): Promise<number> {
  const free = (p: number) =>
    new Promise<boolean>((resolve) => {
      const s = net
        .createServer()
        .once('error', () => resolve(false))
        .listen(p, '0.0.0.0', () => s.close(() => resolve(true)));
    });
  for (;;) {
    const p = 20_000 + Math.floor(Math.random() * 20_000);
    if ((await Promise.all(Array.from({ length: n + 1 }, (_, i) => free(p + i)))).every(Boolean)) return p;
  }
}
