/**
 * The public API's call log and its keys' last-used times, written in batches off the calls' path: a call, read or
 * write, adds its row here and is answered; the rows of up to FLUSH_MS (or BATCH_ROWS of them) go to the database in
 * one INSERT, and each key's latest use in one UPDATE. A GET of the public API therefore makes no write of its own.
 *
 * The log is complete but up to FLUSH_MS late. The routes that show it (the developer page's call log and key list)
 * flush this instance's rows first, so a developer sees their own last call at once; another instance's rows come
 * within FLUSH_MS. Rows still waiting when the server stops are written by close() (the app's onClose); a crash loses
 * at most the last FLUSH_MS of log rows, never a call's effect.
 */
import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../db/db.js';

export interface ApiCallRow {
  orgId: string;
  apiKeyId: string;
  ip: string;
  traceId: string;
  at: Date;
  httpCode: number;
  method: string;
  path: string;
  headers: Record<string, unknown>;
  body: string | null;
  response: string | null;
  durationMs: number;
}

const FLUSH_MS = 500;
const BATCH_ROWS = 200;

export class ApiCallLog {
  private rows: ApiCallRow[] = [];
  private timer: NodeJS.Timeout | null = null;
  private writing: Promise<void> = Promise.resolve();

  constructor(
    private readonly db: Db,
    private readonly log: FastifyBaseLogger,
  ) {}

  add(row: ApiCallRow): void {
    this.rows.push(row);
    if (this.rows.length >= BATCH_ROWS) void this.flush();
    else this.timer ??= setTimeout(() => void this.flush(), FLUSH_MS);
  }

  /** Write the rows added so far (after any write already under way); never throws. */
  flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const batch = this.rows;
    this.rows = [];
    this.writing = this.writing.then(() => (batch.length ? this.write(batch) : undefined));
    return this.writing;
  }

  close(): Promise<void> {
    return this.flush();
  }

  private async write(batch: ApiCallRow[]): Promise<void> {
    const json = JSON.stringify(batch.map((r) => ({ ...r, at: r.at.toISOString() })));
    try {
      // An organisation deleted meanwhile has no log left to add to: its rows are dropped, the others kept.
      await this.db.query(
        `INSERT INTO api_logs (org_id, api_key_id, ip, trace_id, at, http_code, method, path, headers, body, response, duration_ms)
         SELECT r."orgId", r."apiKeyId", r.ip, r."traceId", r.at, r."httpCode", r.method, r.path, r.headers, r.body, r.response, r."durationMs"
           FROM jsonb_to_recordset($1::jsonb) AS r("orgId" text, "apiKeyId" text, ip text, "traceId" text, at timestamptz, "httpCode" int,
                method text, path text, headers jsonb, body text, response text, "durationMs" int)
          WHERE EXISTS (SELECT 1 FROM organisations o WHERE o.id = r."orgId")`,
        [json],
      );
      await this.db.query(
        `UPDATE api_keys k SET last_used_at = greatest(k.last_used_at, u.at)
           FROM (SELECT r."apiKeyId" AS id, max(r.at) AS at FROM jsonb_to_recordset($1::jsonb) AS r("apiKeyId" text, at timestamptz) GROUP BY 1) u
          WHERE k.id = u.id`,
        [json],
      );
    } catch (err) {
      this.log.warn({ err, rows: batch.length }, 'public API calls not logged');
    }
  }
}
