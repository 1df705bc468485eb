/**
 * Throughput under load (BENCH_ONLY=throughput): one call through the real HTTP server on the loopback, at a number of
 * concurrent connections (autocannon, in a process of its own: bench/load.ts), beside the same SQL run by as many
 * concurrent callers on the database directly. Requests per second and the 95th percentile of both, and their ratio.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import type { FastifyInstance } from 'fastify';
import type { AddressInfo } from 'node:net';

export interface LoadFigures {
  /** Requests (or queries) answered per second. */
  perSecond: number;
  p50: number;
  p95: number;
  /** Answers that were not a success (errors, timeouts, non-2xx). */
  failed: number;
}

export interface ThroughputRow {
  db: string;
  size: string;
  what: string;
  /** How the database was reached (pool size). */
  setup: string;
  api: LoadFigures;
  sql: LoadFigures;
}

const LOAD = path.join(path.dirname(fileURLToPath(import.meta.url)), 'load.ts');

/** autocannon against the app, listening on a loopback port, from a child process. */
export async function loadApi(app: FastifyInstance, call: { method: 'GET' | 'POST'; url: string; body?: unknown; headers: Record<string, string> }, connections: number, seconds: number): Promise<LoadFigures> {
  if (!app.server.listening) await app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = app.server.address() as AddressInfo;
  const task = {
    url: `http://127.0.0.1:${port}${call.url}`,
    method: call.method,
    // What a browser sends: JSON, and the encodings it accepts (answers over 1 KB are compressed).
    headers: { ...call.headers, 'content-type': 'application/json', 'accept-encoding': 'gzip, deflate, br' },
    body: call.body === undefined ? undefined : JSON.stringify(call.body),
    connections,
    seconds,
  };
  const out = await new Promise<string>((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', LOAD, JSON.stringify(task)], { stdio: ['ignore', 'pipe', 'inherit'] });
    let text = '';
    child.stdout.on('data', (d: Buffer) => (text += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(text) : reject(new Error(`bench/load.ts ended with ${code}`))));
  });
  const r = JSON.parse(out.trim().split('\n').at(-1)!) as { requests: number; seconds: number; errors: number; non2xx: number; p50: number; p95: number };
  return { perSecond: r.requests / r.seconds, p50: r.p50, p95: r.p95, failed: r.errors + r.non2xx };
}

/** fn run by `connections` concurrent callers, each calling again as soon as its call ends, for `seconds`. */
export async function loadDirect(fn: () => Promise<unknown>, connections: number, seconds: number): Promise<LoadFigures> {
  const times: number[] = [];
  let failed = 0;
  const t0 = performance.now();
  const until = t0 + seconds * 1000;
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (performance.now() < until) {
        const s = performance.now();
        try {
          await fn();
          times.push(performance.now() - s);
        } catch {
          failed += 1;
        }
      }
    }),
  );
  const elapsed = (performance.now() - t0) / 1000;
  times.sort((a, b) => a - b);
  const at = (q: number) => (times.length ? times[Math.min(times.length - 1, Math.ceil(times.length * q) - 1)] : NaN);
  return { perSecond: times.length / elapsed, p50: at(0.5), p95: at(0.95), failed };
}

export const THROUGHPUT_HEAD = [
  '| database | size | call | time; connections to the database | API req/s | API p95 ms | SQL calls/s | SQL p95 ms | API / SQL |',
  '|---|---|---|---|---:|---:|---:|---:|---:|',
];

export const throughputLine = (r: ThroughputRow) =>
  `| ${r.db} | ${r.size} | ${r.what} | ${r.setup} | ${r.api.perSecond.toFixed(0)}${r.api.failed ? ` (${r.api.failed} failed)` : ''} | ${r.api.p95.toFixed(1)} | ${r.sql.perSecond.toFixed(0)}${r.sql.failed ? ` (${r.sql.failed} failed)` : ''} | ${r.sql.p95.toFixed(1)} | ${((r.api.perSecond / r.sql.perSecond) * 100).toFixed(0)} % |`;
