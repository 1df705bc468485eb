/** One small database interface over PGlite (embedded) and PostgreSQL (pg), so the same SQL serves both. */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export interface QueryResult<T> {
  rows: T[];
  rowCount: number;
}
export interface Queryable {
  query<T = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<QueryResult<T>>;
  /** Run several statements at once, without parameters (migrations, seeds). */
  exec(sql: string): Promise<void>;
}
export interface Db extends Queryable {
  readonly kind: 'pglite' | 'postgres';
  /** Run fn in one transaction: all of its writes land or none. */
  tx<T>(fn: (q: Queryable) => Promise<T>): Promise<T>;
  /**
   * Read the rows of one SELECT through a server-side cursor, batch rows at a time, so a long result never sits in
   * memory at once (exports). onRows may use the database meanwhile (progress, heartbeat): on PostgreSQL the cursor
   * lives in its own connection's read-only transaction; on PGlite, whose one connection a transaction would hold for
   * the whole read, it is a WITH HOLD cursor declared in a short transaction and fetched between other queries.
   */
  cursor<T = Record<string, unknown>>(sql: string, params: unknown[], batch: number, onRows: (rows: T[]) => Promise<void>): Promise<void>;
  /**
   * PostgreSQL only: run a `COPY (...) TO STDOUT` and hand each chunk of its output to onChunk as it arrives (the
   * connection pauses while onChunk's promise is pending). PGlite has no streaming COPY out: undefined there.
   */
  copyOut?(sql: string, onChunk: (chunk: Buffer) => Promise<void> | void): Promise<void>;
  close(): Promise<void>;
  /** PGlite only: the whole database as one archive, which openPglite's `from` opens as a copy of it. */
  dump?(): Promise<Blob>;
  /** PostgreSQL only: the pool's connections now (all, idle, and callers waiting for one), for /metrics. */
  poolStats?(): { total: number; idle: number; waiting: number };
}

let cursorSeq = 0;

/** FETCH from an open cursor, batch rows at a time, into onRows, until it is exhausted. */
async function fetchAll<T>(q: Queryable, name: string, batch: number, onRows: (rows: T[]) => Promise<void>): Promise<void> {
  const n = Math.max(1, Math.floor(batch));
  for (;;) {
    const r = await q.query<T>(`FETCH ${n} FROM ${name}`);
    if (!r.rows.length) return;
    await onRows(r.rows);
    if (r.rows.length < n) return;
  }
}

/**
 * Db.cursor on a database, or, on a transaction's Queryable (a seed that writes its exports inside its own
 * transaction), a cursor of that transaction, closed at the end.
 */
export async function readCursor<T>(q: Queryable | Db, sql: string, params: unknown[], batch: number, onRows: (rows: T[]) => Promise<void>): Promise<void> {
  if ('cursor' in q && typeof q.cursor === 'function') return q.cursor(sql, params, batch, onRows);
  const name = `cursor_${cursorSeq++}`;
  await q.query(`DECLARE ${name} NO SCROLL CURSOR FOR ${sql}`, params);
  try {
    await fetchAll(q, name, batch, onRows);
  } finally {
    await q.query(`CLOSE ${name}`).catch(() => undefined);
  }
}

let savepointSeq = 0;

/**
 * A Db inside one transaction's Queryable (the demo seed, which runs whole in one transaction and runs the invoice job
 * there): its tx is a savepoint of that transaction (rolled back to when fn throws, as a transaction would be), its
 * cursor a cursor of it; closing it closes nothing.
 */
export function dbInTransaction(q: Queryable, kind: Db['kind']): Db {
  return {
    kind,
    query: (sql, params) => q.query(sql, params),
    exec: (sql) => q.exec(sql),
    async tx(fn) {
      const name = `sp_${savepointSeq++}`;
      await q.query(`SAVEPOINT ${name}`);
      try {
        const r = await fn(q);
        await q.query(`RELEASE SAVEPOINT ${name}`);
        return r;
      } catch (err) {
        await q.query(`ROLLBACK TO SAVEPOINT ${name}`);
        throw err;
      }
    },
    cursor: (sql, params, batch, onRows) => readCursor(q, sql, params, batch, onRows),
    close: async () => undefined,
  };
}

/**
 * Open PGlite in dataDir (or in memory when dataDir is "memory://"); `from`, a dump of another PGlite's data directory
 * (its dumpDataDir), starts it as a copy of that database instead of an empty one.
 */
export async function openPglite(dataDir: string, from?: Blob): Promise<Db> {
  const { PGlite } = await import('@electric-sql/pglite');
  if (!dataDir.startsWith('memory://')) fs.mkdirSync(dataDir, { recursive: true });
  const pg = await PGlite.create({ ...(dataDir.startsWith('memory://') ? {} : { dataDir }), ...(from ? { loadDataDir: from } : {}) });
  type Raw = { query: (s: string, p?: unknown[]) => Promise<{ rows: unknown[]; affectedRows?: number }>; exec: (s: string) => Promise<unknown> };
  const wrap = (q: Raw): Queryable => ({
    async query<T>(sql: string, params?: unknown[]) {
      const r = await q.query(sql, params);
      return { rows: r.rows as T[], rowCount: r.affectedRows ?? r.rows.length };
    },
    async exec(sql: string) {
      await q.exec(sql);
    },
  });
  return {
    kind: 'pglite',
    ...wrap(pg),
    tx: (fn) => pg.transaction((t) => fn(wrap(t))),
    async cursor<T>(sql: string, params: unknown[], batch: number, onRows: (rows: T[]) => Promise<void>) {
      // One session is shared by every caller: each cursor has its own name, and is closed whatever happens.
      const name = `cursor_${cursorSeq++}`;
      await pg.transaction(async (t) => {
        // Every row is read: plan for the whole result, not for the first rows (the default for a cursor).
        await t.query('SET LOCAL cursor_tuple_fraction = 1.0');
        await t.query(`DECLARE ${name} NO SCROLL CURSOR WITH HOLD FOR ${sql}`, params);
      });
      try {
        await fetchAll(wrap(pg), name, batch, onRows);
      } finally {
        await pg.query(`CLOSE ${name}`).catch(() => undefined);
      }
    },
    close: () => pg.close(),
    dump: () => pg.dumpDataDir('none'),
  };
}

/** Open a PostgreSQL server through a pool of poolSize connections (PG_POOL_SIZE, 10 by default). */
export async function openPostgres(url: string, poolSize = Number(process.env.PG_POOL_SIZE ?? 10)): Promise<Db> {
  const { default: pg } = await import('pg');
  // Keep int8 and numeric as strings is pg's default; counts are cast to int in SQL where numbers are wanted.
  // No JIT compilation (PG_JIT=on brings it back): the console's queries are short, and a plan costed high by a
  // correlated subquery (All SMS's thread heads) spent 460 of its 620 ms compiling (docs/decisions.md,
  // "PostgreSQL without JIT; the All SMS list at 10 million records").
  const pool = new pg.Pool({ connectionString: url, max: poolSize, ...(process.env.PG_JIT === 'on' ? {} : { options: '-c jit=off' }) });
  // An idle client dropped by the server (restart, failover) must not crash the process; the pool replaces it.
  pool.on('error', (err) => {
    console.warn(`postgres: idle client error: ${err.message}`);
  });
  return {
    kind: 'postgres',
    async query<T>(sql: string, params?: unknown[]) {
      const r = await pool.query(sql, params as unknown[]);
      return { rows: r.rows as T[], rowCount: r.rowCount ?? 0 };
    },
    async exec(sql) {
      await pool.query(sql);
    },
    async tx(fn) {
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        const result = await fn({
          async query<T>(sql: string, params?: unknown[]) {
            const r = await client.query(sql, params as unknown[]);
            return { rows: r.rows as T[], rowCount: r.rowCount ?? 0 };
          },
          async exec(sql: string) {
            await client.query(sql);
          },
        });
        await client.query('COMMIT');
        return result;
      } catch (err) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw err;
      } finally {
        client.release();
      }
    },
    async cursor<T>(sql: string, params: unknown[], batch: number, onRows: (rows: T[]) => Promise<void>) {
      const client = await pool.connect();
      try {
        // One snapshot for the whole read, in a connection of its own: the pool's others serve onRows meanwhile.
        await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
        await client.query('SET LOCAL cursor_tuple_fraction = 1.0');
        await client.query(`DECLARE rows_out NO SCROLL CURSOR FOR ${sql}`, params as unknown[]);
        await fetchAll(
          { query: async <R>(q: string) => ({ rows: (await client.query(q)).rows as R[], rowCount: 0 }), exec: async () => undefined },
          'rows_out',
          batch,
          onRows,
        );
        await client.query('COMMIT');
      } catch (err) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw err;
      } finally {
        client.release();
      }
    },
    async copyOut(sql: string, onChunk: (chunk: Buffer) => Promise<void> | void) {
      const client = await pool.connect();
      try {
        await new Promise<void>((resolve, reject) => {
          let failed: Error | null = null;
          let pending: Promise<void> = Promise.resolve();
          // A Submittable for pg: the simple query protocol, and the CopyData messages of COPY ... TO STDOUT.
          const copy = {
            submit(connection: { query(text: string): void; stream: { pause(): void; resume(): void } }) {
              this.connection = connection;
              connection.query(sql);
            },
            connection: null as null | { stream: { pause(): void; resume(): void } },
            handleCopyData(msg: { chunk: Buffer }) {
              if (failed) return;
              const r = onChunk(msg.chunk);
              if (r) {
                this.connection?.stream.pause();
                pending = pending
                  .then(() => r)
                  .then(
                    () => this.connection?.stream.resume(),
                    (err: Error) => {
                      failed = err;
                      this.connection?.stream.resume();
                    },
                  );
              }
            },
            handleCommandComplete() {},
            handleEmptyQuery() {},
            handleRowDescription() {},
            handleDataRow() {},
            handleError(err: Error) {
              failed ??= err;
            },
            handleReadyForQuery() {
              void pending.then(() => (failed ? reject(failed) : resolve()));
            },
          };
          client.query(copy as never);
        });
      } finally {
        client.release();
      }
    },
    poolStats: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }),
    close: () => pool.end(),
  };
}

/** DATABASE_URL selects PostgreSQL; otherwise PGlite in dataDir. */
export function openDb(opts: { databaseUrl?: string; dataDir: string }): Promise<Db> {
  return opts.databaseUrl ? openPostgres(opts.databaseUrl) : openPglite(path.join(opts.dataDir, 'pg'));
}

const MIGRATIONS_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), 'migrations');

let projectTables: { names: Set<string>; parents: Set<string> } | undefined;

/**
 * Whether a table name belongs to the project's own migrations (their CREATE TABLE names, the partitions of a
 * partitioned table, schema_migrations) or to PostgreSQL (pg_…): names a schema of SCHEMAS_DIR may not take.
 */
export function isProjectTable(name: string): boolean {
  if (!projectTables) {
    const sql = fs
      .readdirSync(MIGRATIONS_DIR)
      .filter((f) => f.endsWith('.sql'))
      .map((f) => fs.readFileSync(path.join(MIGRATIONS_DIR, f), 'utf8'))
      .join('\n');
    const names = [...sql.matchAll(/CREATE TABLE (?:IF NOT EXISTS )?"?([a-z_][a-z0-9_]*)"?/gi)].map((m) => m[1].toLowerCase());
    const parents = [...sql.matchAll(/PARTITION OF "?([a-z_][a-z0-9_]*)"?/gi)].map((m) => m[1].toLowerCase());
    projectTables = { names: new Set([...names, 'schema_migrations']), parents: new Set(parents) };
  }
  const t = projectTables;
  return t.names.has(name) || name.startsWith('pg_') || [...t.parents].some((p) => name.startsWith(`${p}_`));
}

/**
 * Apply the SQL files of server/db/migrations in name order, each once, each in its own transaction.
 * On PostgreSQL an advisory lock keeps several instances starting at once from racing.
 */
export async function migrate(db: Db): Promise<string[]> {
  const files = fs
    .readdirSync(MIGRATIONS_DIR)
    .filter((f) => f.endsWith('.sql'))
    .sort();
  const applied: string[] = [];
  await db.tx(async (q) => {
    if (db.kind === 'postgres') await q.query('SELECT pg_advisory_xact_lock(727001)');
    await q.query('CREATE TABLE IF NOT EXISTS schema_migrations (name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())');
    const done = new Set((await q.query<{ name: string }>('SELECT name FROM schema_migrations')).rows.map((r) => r.name));
    for (const file of files) {
      if (done.has(file)) continue;
      const sql = fs.readFileSync(path.join(MIGRATIONS_DIR, file), 'utf8');
      await q.exec(sql);
      await q.query('INSERT INTO schema_migrations (name) VALUES ($1)', [file]);
      applied.push(file);
    }
  });
  return applied;
}
