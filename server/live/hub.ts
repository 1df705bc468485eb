/**
 * Live events to the browsers connected to this instance (SSE). Events are rows of live_events, written in the
 * transaction of the change they announce; each instance polls the table while it holds connections, so an event
 * written anywhere reaches every instance (ARCHITECTURE.md: no state a second instance would need).
 */
import type { Db, Queryable } from '../db/db.js';

export type LiveType = 'permissions' | 'task' | 'sms';

export interface LiveEvent {
  id: string;
  type: LiveType;
  orgId: string | null;
  accountId: string | null;
  data: unknown;
}

export interface LiveSubscriber {
  accountId: string;
  orgId: string;
  /**
   * Also hears the task events of the organisation's other members: those who see the organisation's tasks (task
   * readAll, GET /rest/job/all, administrators) follow their progress live as they follow their own.
   */
  orgTasks?: boolean;
  send(event: LiveEvent): void;
  /** Ends the connection (the server is shutting down). */
  end(): void;
}

/** Rows are read again for this long, so an event whose transaction committed late is not skipped. */
const OVERLAP_MS = 30_000;
const PRUNE_AFTER = '1 hour';
const PRUNE_EVERY_MS = 10 * 60_000;

/** Write an event in q's transaction: it is delivered only if that transaction commits. */
export async function publishLive(q: Queryable, e: { type: LiveType; orgId?: string | null; accountId?: string | null; data?: unknown }): Promise<void> {
  await q.query('INSERT INTO live_events (org_id, account_id, type, data) VALUES ($1, $2, $3, $4)', [
    e.orgId ?? null,
    e.accountId ?? null,
    e.type,
    JSON.stringify(e.data ?? {}),
  ]);
}

/**
 * Does this event concern this connection: addressed to its account, or to its organisation as a whole; or a task of
 * its organisation, whoever's, when it sees the organisation's tasks. Nothing else of another account reaches it.
 */
export const concerns = (e: Pick<LiveEvent, 'type' | 'accountId' | 'orgId'>, s: Pick<LiveSubscriber, 'accountId' | 'orgId' | 'orgTasks'>): boolean =>
  e.accountId ? e.accountId === s.accountId || (e.type === 'task' && s.orgTasks === true && e.orgId === s.orgId) : e.orgId === s.orgId;

export class LiveHub {
  private readonly subscribers = new Set<LiveSubscriber>();
  private timer: NodeJS.Timeout | null = null;
  private watermark: Date | null = null;
  private readonly delivered = new Map<string, number>();
  private polling = false;
  private lastPrune = 0;
  private firstSubscribedAt = 0;
  private closed = false;

  constructor(
    private readonly db: Db,
    private readonly pollMs: number,
  ) {}

  get size(): number {
    return this.subscribers.size;
  }

  /** Add a connection; polling runs only while there is at least one. Returns the unsubscribe function. */
  subscribe(s: LiveSubscriber): () => void {
    // Closed (the server stopping): a connection that arrives now is ended at once, as the others were.
    if (this.closed) {
      s.end();
      return () => undefined;
    }
    this.subscribers.add(s);
    if (!this.timer) {
      this.firstSubscribedAt = Date.now();
      this.timer = setInterval(() => void this.poll(), this.pollMs);
    }
    return () => {
      this.subscribers.delete(s);
      if (this.subscribers.size === 0 && this.timer) {
        clearInterval(this.timer);
        this.timer = null;
        this.watermark = null;
      }
    };
  }

  /** Events of the last minutes after lastId for one connection (a reconnecting browser's Last-Event-ID). */
  async replay(s: Pick<LiveSubscriber, 'accountId' | 'orgId' | 'orgTasks'>, lastId: string): Promise<LiveEvent[]> {
    // The same choice as concerns(), in SQL.
    const rows = await this.db.query<Row>(
      `SELECT id::text, type, org_id, account_id, data FROM live_events
        WHERE id > $1 AND created_at > now() - interval '5 minutes'
          AND (account_id = $2 OR (account_id IS NULL AND org_id = $3) OR ($4::boolean AND type = 'task' AND org_id = $3))
        ORDER BY live_events.id LIMIT 500`,
      [lastId, s.accountId, s.orgId, s.orgTasks === true],
    );
    return rows.rows.map(toEvent);
  }

  /** One round: read new rows (with an overlap for late commits), deliver each once. */
  async poll(): Promise<void> {
    if (this.polling) return;
    this.polling = true;
    try {
      if (!this.watermark) {
        // Start from now: what was written before the first connection is history, not news.
        this.watermark = (await this.db.query<{ now: Date }>('SELECT now() AS now')).rows[0].now;
        const past = await this.db.query<{ id: string }>('SELECT id::text FROM live_events WHERE created_at > $1 AND created_at < $2', [
          new Date(this.watermark.getTime() - OVERLAP_MS),
          new Date(this.firstSubscribedAt),
        ]);
        for (const r of past.rows) this.delivered.set(r.id, Date.now());
        return;
      }
      const since = new Date(this.watermark.getTime() - OVERLAP_MS);
      const rows = await this.db.query<Row & { created_at: Date }>(
        // By the number: ORDER BY id would sort the text output column of the same name, 100 before 99.
        'SELECT id::text, type, org_id, account_id, data, created_at FROM live_events WHERE created_at > $1 ORDER BY live_events.id LIMIT 2000',
        [since],
      );
      const now = Date.now();
      for (const r of rows.rows) {
        if (r.created_at > this.watermark) this.watermark = r.created_at;
        if (this.delivered.has(r.id)) continue;
        this.delivered.set(r.id, now);
        const event = toEvent(r);
        for (const s of this.subscribers) if (concerns(event, s)) s.send(event);
      }
      for (const [id, at] of this.delivered) if (now - at > 2 * OVERLAP_MS) this.delivered.delete(id);
      if (now - this.lastPrune > PRUNE_EVERY_MS) {
        this.lastPrune = now;
        await this.db.query(`DELETE FROM live_events WHERE created_at < now() - interval '${PRUNE_AFTER}'`);
      }
    } catch {
      // The database is briefly away: the next round reads the same window again.
    } finally {
      this.polling = false;
    }
  }

  /** End every connection (shutdown). */
  close(): void {
    this.closed = true;
    for (const s of [...this.subscribers]) s.end();
    this.subscribers.clear();
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }
}

interface Row {
  id: string;
  type: LiveType;
  org_id: string | null;
  account_id: string | null;
  data: unknown;
}
const toEvent = (r: Row): LiveEvent => ({ id: r.id, type: r.type, orgId: r.org_id, accountId: r.account_id, data: r.data });
