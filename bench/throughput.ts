/**
 * Throughput under load (BENCH_ONLY=throughput): one call through the real HTTP server on the loopback (an app of this
 * process, or any address: HAProxy in front of several instances), at a number of concurrent connections (autocannon,
 * in a process of its own: bench/load.ts), beside the same SQL run by as many concurrent callers on the database
 * directly. Requests per second and the 95th percentile of both, and their ratio.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import type { FastifyInstance } from 'fastify';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import type { AddressInfo } from 'node:net';
import { freeRun } from '../scripts/ports.js';

export { answersOn } from '../scripts/ports.js';

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
const CLUSTER = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'scripts', 'cluster.ts');

/** autocannon against the app, listening on a loopback port, from a child process. */
export async function loadApi(
  target: FastifyInstance | string,
  call: { method: 'GET' | 'POST'; url: string; body?: unknown; headers: Record<string, string> },
  connections: number,
  seconds: number,
): Promise<LoadFigures> {
  let base: string;
  if (typeof target === 'string') base = target;
  else {
    if (!target.server.listening) await target.listen({ host: '127.0.0.1', port: 0 });
    base = `http://127.0.0.1:${(target.server.address() as AddressInfo).port}`;
  }
  const task = {
    url: `${base}${call.url}`,
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

/**
 * `npm run cluster` (scripts/cluster.ts) on the bench's PostgreSQL database: `instances` processes behind HAProxy,
 * with Redis, without jobs, the simulator or NATS (the load is calls) unless `env` says otherwise; ready once every
 * instance has answered.
 */
export async function startCluster(
  databaseUrl: string,
  instances: number,
  env: Record<string, string> = {},
): Promise<{ base: string; stop: () => Promise<void> }> {
  const port = await freeRun(instances);
  const dataDir = fs.mkdtempSync('/tmp/bench-cluster-');
  const child = spawn(process.execPath, ['--import', 'tsx', CLUSTER], {
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      CLUSTER_INSTANCES: String(instances),
      DATABASE_URL: databaseUrl,
      DATA_DIR: dataDir,
      SEED: 'false',
      JOBS: 'off',
      SIMULATOR: 'off',
      NATS_URL: '',
      REDIS_URL: 'redis://127.0.0.1:6379',
      REDIS_PREFIX: `bench-cluster:${port}:`,
      RATE_LIMIT_PER_MINUTE: '1000000000',
      LOG_LEVEL: 'warn',
      ...env,
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const base = `http://127.0.0.1:${port}`;
  const seen = new Set<string>();
  const deadline = Date.now() + 120_000;
  while (seen.size < instances) {
    if (Date.now() > deadline || child.exitCode !== null) throw new Error('the cluster did not start');
    const r = await fetch(`${base}/api/health`).catch(() => null);
    if (r?.ok) seen.add(r.headers.get('x-served-by') ?? '');
    else await new Promise((res) => setTimeout(res, 200));
  }
  return {
    base,
    stop: () =>
      new Promise<void>((resolve) => {
        child.once('exit', () => (fs.rmSync(dataDir, { recursive: true, force: true }), resolve()));
        child.kill('SIGTERM');
      }),
  };
}

/** Delete a stream a bench made on this machine's NATS (gone already is fine). */
export async function deleteStream(stream: string): Promise<void> {
  const nc = await connect({ servers: 'nats://127.0.0.1:4222' });
  try {
    await (await jetstreamManager(nc)).streams.delete(stream).catch(() => undefined);
  } finally {
    await nc.close();
  }
}
