/**
 * npm run cluster: several instances of the console on one PostgreSQL (with NATS and Redis where they answer), behind
 * Debian's HAProxy on one port.
 *
 * - Instances listen on 127.0.0.1 only, on the ports after PORT; HAProxy listens on PORT and sends each call to the
 *   next healthy instance (round robin), checking GET /api/health every second (twice failed: out; twice passed: in).
 * - A call that cannot reach an instance (refused: it has just died) is sent to another one (redispatch), as is a GET
 *   that met a kept-alive connection to it closing, so only the calls in flight on an instance when it dies are lost
 *   (and a POST sent just as it died, which the client may send again: nothing carried it out). The console's live
 *   connection (SSE, passed through unbuffered) drops with it and reconnects through HAProxy to another instance,
 *   resuming after its last event.
 * - HAProxy replaces any X-Forwarded-For the client sent with the client's address, and the instances trust it from
 *   127.0.0.1 only (TRUST_PROXY), so rate limits and sign-in throttles count real client addresses.
 * - Files (exports, uploads) are written under one DATA_DIR shared by the instances; the network simulator's traffic
 *   runs on the first instance only.
 *
 * Environment: CLUSTER_INSTANCES (default 3, 1-16), PORT (default 8080), HOST (HAProxy's address, default 0.0.0.0),
 * DATABASE_URL (default postgres://postgres@127.0.0.1:5432/iot, created when missing), NATS_URL and REDIS_URL (default
 * the local servers when they answer; set one empty to run without it), DATA_DIR (default ./data/cluster); every other
 * variable of the README reaches the instances. The instances' ports, process ids and HAProxy's are written to
 * DATA_DIR/cluster.json. SIGINT or SIGTERM stops the instances (each hands its work back) and then HAProxy.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';
import pg from 'pg';
import { answersOn } from './ports.js';

const env = process.env;

function intOf(name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min || n > max) {
    console.error(`${name} must be a whole number from ${min} to ${max}; it is "${raw}".`);
    process.exit(2);
  }
  return n;
}

const instances = intOf('CLUSTER_INSTANCES', 3, 1, 16);
const port = intOf('PORT', 8080, 1, 65535 - 16);
const host = env.HOST || '0.0.0.0';
const dataDir = path.resolve(env.DATA_DIR || './data/cluster');
const databaseUrl = env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/iot';

/** Whether the server of a URL (nats://…, redis://…) answers. */
const answers = (url: string) => {
  const u = new URL(url);
  return answersOn(Number(u.port), u.hostname);
};

/** A variable's value, or the local server's address when the variable is unset and that server answers. */
async function serviceUrl(name: string, local: string): Promise<string> {
  if (env[name] !== undefined) return env[name]!;
  return (await answers(local)) ? local : '';
}

/** Debian's HAProxy: found, or installed through apt-get as the tests install Chromium (root only). */
function haproxyBinary(): string {
  for (const p of ['/usr/sbin/haproxy', '/usr/bin/haproxy', '/usr/local/sbin/haproxy']) if (fs.existsSync(p)) return p;
  if (process.getuid?.() === 0 && fs.existsSync('/usr/bin/apt-get')) {
    console.log("Installing Debian's HAProxy for the load balancer");
    execFileSync('apt-get', ['update', '-qq'], { stdio: 'inherit' });
    execFileSync('apt-get', ['install', '-y', '-qq', 'haproxy'], { stdio: 'inherit', env: { ...env, DEBIAN_FRONTEND: 'noninteractive' } });
    return '/usr/sbin/haproxy';
  }
  console.error("The load balancer is Debian's HAProxy: run 'sudo apt-get install -y haproxy'.");
  process.exit(1);
}

/** The database of DATABASE_URL, created when the server has no database of that name yet. */
async function ensureDatabase(url: string): Promise<void> {
  const u = new URL(url);
  const name = decodeURIComponent(u.pathname.slice(1));
  if (!name) return;
  u.pathname = '/postgres';
  const client = new pg.Client({ connectionString: u.toString() });
  await client.connect();
  try {
    const found = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (found.rowCount === 0) {
      await client.query(`CREATE DATABASE "${name.replace(/"/g, '""')}"`);
      console.log(`Created the database ${name}`);
    }
  } finally {
    await client.end();
  }
}

function haproxyConfig(opts: { host: string; port: number; backends: Array<{ name: string; port: number }> }): string {
  return [
    'global',
    '  maxconn 4000',
    '',
    'defaults',
    '  mode http',
    '  timeout connect 2s',
    // Idle limits: the live stream sends a comment every 25 s, so it stays open.
    '  timeout client 1m',
    '  timeout server 1m',
    '  timeout http-keep-alive 10s',
    // A call refused by an instance that has just died goes to another one. So does a GET sent on a kept-alive
    // connection to it that closed with no answer (HAProxy would otherwise close the client's connection silently);
    // any other method is never sent twice, since the instance may have carried it out.
    '  retries 3',
    '  option redispatch 1',
    '  retry-on conn-failure empty-response',
    '',
    'frontend console',
    `  bind ${opts.host}:${opts.port}`,
    // The client's address, and only it: whatever X-Forwarded-For the client sent is dropped.
    '  http-request del-header X-Forwarded-For',
    '  http-request set-header X-Forwarded-Proto http',
    '  option forwardfor',
    // Metrics are each instance's own and an operator's business: scraped from each instance on 127.0.0.1, never here.
    '  http-request deny deny_status 404 if { path -m beg /metrics }',
    '  default_backend instances',
    '',
    'backend instances',
    '  balance roundrobin',
    '  option httpchk GET /api/health',
    '  http-check expect status 200',
    '  http-request disable-l7-retry unless METH_GET',
    '  default-server inter 1s fastinter 250ms downinter 1s fall 2 rise 2',
    // Which instance answered, for an operator (and the tests).
    '  http-response set-header X-Served-By %s',
    ...opts.backends.map((b) => `  server ${b.name} 127.0.0.1:${b.port} check`),
    '',
  ].join('\n');
}

function prefixed(child: ChildProcess, name: string): void {
  for (const stream of [child.stdout, child.stderr]) {
    if (stream) readline.createInterface({ input: stream }).on('line', (line) => console.log(`[${name}] ${line}`));
  }
}

async function main(): Promise<void> {
  const haproxy = haproxyBinary();
  const natsUrl = await serviceUrl('NATS_URL', 'nats://127.0.0.1:4222');
  const redisUrl = await serviceUrl('REDIS_URL', 'redis://127.0.0.1:6379');
  await ensureDatabase(databaseUrl);
  fs.mkdirSync(dataDir, { recursive: true });

  const backends = Array.from({ length: instances }, (_, i) => ({ name: `i${i + 1}`, port: port + 1 + i }));
  const cfgFile = path.join(dataDir, 'haproxy.cfg');
  fs.writeFileSync(cfgFile, haproxyConfig({ host, port, backends }));
  execFileSync(haproxy, ['-c', '-q', '-f', cfgFile], { stdio: 'inherit' });

  const children = new Map<string, ChildProcess>();
  let stopping = false;
  for (const [i, b] of backends.entries()) {
    const child = spawn(process.execPath, ['--import', 'tsx', 'server/main.ts'], {
      env: {
        ...env,
        PORT: String(b.port),
        HOST: '127.0.0.1',
        DATA_DIR: dataDir,
        DATABASE_URL: databaseUrl,
        NATS_URL: natsUrl,
        REDIS_URL: redisUrl,
        TRUST_PROXY: '127.0.0.1',
        ...(i > 0 ? { SIMULATOR: 'off' } : {}),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    prefixed(child, b.name);
    children.set(b.name, child);
    child.once('exit', (code, signal) => {
      children.delete(b.name);
      if (stopping) return;
      console.log(`[cluster] instance ${b.name} exited (${signal ?? `code ${code}`}); HAProxy sends its calls to the others`);
      if (children.size === 0) void stop(1);
    });
  }
  const balancer = spawn(haproxy, ['-db', '-f', cfgFile], { stdio: ['ignore', 'pipe', 'pipe'] });
  prefixed(balancer, 'haproxy');
  balancer.once('exit', (code, signal) => {
    if (stopping) return;
    console.error(`[cluster] HAProxy exited (${signal ?? `code ${code}`}): stopping the instances`);
    void stop(1);
  });

  fs.writeFileSync(
    path.join(dataDir, 'cluster.json'),
    JSON.stringify({ port, haproxyPid: balancer.pid, instances: backends.map((b) => ({ ...b, pid: children.get(b.name)?.pid })) }, null, 2),
  );
  console.log(
    `[cluster] ${instances} instance${instances === 1 ? '' : 's'} on ${databaseUrl.replace(/\/\/[^@/]*@/, '//…@')}` +
      `${natsUrl ? `, NATS ${natsUrl}` : ', no NATS'}${redisUrl ? `, Redis ${redisUrl}` : ', no Redis'}; HAProxy on ${host}:${port}`,
  );

  // Ready once HAProxy has an instance to send calls to (the first start of a new database seeds the demo first).
  const shown = `http://${host === '0.0.0.0' ? 'localhost' : host}:${port}`;
  void (async () => {
    while (!stopping) {
      const ok = await fetch(`http://127.0.0.1:${port}/api/health`).then(
        (r) => r.ok,
        () => false,
      );
      if (ok) return console.log(`[cluster] ready: ${shown}`);
      await new Promise((r) => setTimeout(r, 500));
    }
  })();

  async function stop(code: number): Promise<void> {
    if (stopping) return;
    stopping = true;
    console.log('[cluster] stopping the instances, then HAProxy');
    await Promise.all(
      [...children.values()].map(
        (c) =>
          new Promise<void>((resolve) => (c.exitCode !== null || c.signalCode !== null ? resolve() : (c.once('exit', () => resolve()), c.kill('SIGTERM')))),
      ),
    );
    if (balancer.exitCode === null && balancer.signalCode === null) {
      await new Promise<void>((resolve) => (balancer.once('exit', () => resolve()), balancer.kill('SIGTERM')));
    }
    process.exit(code);
  }
  process.on('SIGINT', () => void stop(0));
  process.on('SIGTERM', () => void stop(0));
}

await main();
