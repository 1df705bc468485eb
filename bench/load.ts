/**
 * The load of bench/throughput.ts, in a process of its own so that it does not share the server's event loop:
 * autocannon against one URL of the loopback server, every answer's time kept to give the 95th percentile (autocannon
 * reports 90 and 97.5). Reads its task as JSON from argv[2], prints one JSON line: { requests, seconds, errors,
 * non2xx, p50, p95 }.
 */
import autocannon from 'autocannon';

interface Task {
  url: string;
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  body?: string;
  connections: number;
  seconds: number;
}

const task = JSON.parse(process.argv[2]) as Task;
const times: number[] = [];
// Without a callback autocannon answers an instance that is both its event emitter and a promise of the result.
const instance = autocannon({
  url: task.url,
  method: task.method,
  headers: task.headers,
  body: task.body,
  connections: task.connections,
  duration: task.seconds,
  // A call waiting its turn on PGlite's one connection may take seconds: counted when it ends, not dropped at 10 s.
  timeout: 60,
}) as unknown as autocannon.Instance & Promise<autocannon.Result>;
instance.on('response', (_client: unknown, _status: number, _bytes: number, ms: number) => {
  times.push(ms);
});
const result = await instance;
times.sort((a, b) => a - b);
const at = (q: number) => (times.length ? times[Math.min(times.length - 1, Math.ceil(times.length * q) - 1)] : NaN);
process.stdout.write(
  `${JSON.stringify({ requests: result.requests.total, seconds: result.duration, errors: result.errors + result.timeouts, non2xx: result.non2xx, p50: at(0.5), p95: at(0.95) })}\n`,
);
