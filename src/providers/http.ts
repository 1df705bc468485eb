/**
 * One HTTP helper for the console: SPEC.md section 7's headers on every call, the envelope unwrapped,
 * errors normalised to { message, statusCode, code }, and SPEC.md section 4's session handling:
 * an expired token is refreshed once for any number of concurrent calls, which wait and are replayed.
 */
import { CODES } from '../../common/errors';
import { LIMITS } from '../../common/limits';
import { clearSession, saveSession, store, type SessionAnswer } from './session-store';

export interface HttpError {
  message: string;
  statusCode: number;
  code?: string;
}

export interface Envelope<T> {
  status: { code: string; success: boolean; message: string };
  data: T;
}

/** What the session handling asks the surrounding app to do. */
export type HttpEvent =
  | { type: 'toast'; message: string }
  | { type: 'signedOut'; message: string }
  | { type: 'tokenExpired' }
  | { type: 'sessionExpired'; message: string };

interface HttpConfig {
  fetch: typeof fetch;
  baseUrl: string;
  onEvent: (e: HttpEvent) => void;
}

const config: HttpConfig = {
  fetch: (...args) => fetch(...args),
  baseUrl: '',
  onEvent: () => undefined,
};

/** Wire the helper to the app (events) or, in tests, to another fetch and base URL. */
export function configureHttp(partial: Partial<HttpConfig>): void {
  Object.assign(config, partial);
}

function headers(extra: Record<string, string>): Record<string, string> {
  const token = store.get('token');
  const partner = store.get('partnerCode') ?? '';
  return {
    ...(token ? { Authorization: `Bearer ${token}` } : {}),
    partnerCode: partner,
    timestamp: String(Date.now()),
    tenantId: store.get('tenantId') ?? partner,
    timezone: store.get('TimeZone') === 'UTC' ? 'UTC' : Intl.DateTimeFormat().resolvedOptions().timeZone,
    language: store.get('lang') ?? 'en-US',
    ...extra,
  };
}

interface Raw<T> {
  status: number;
  envelope: Envelope<T> | null;
}

async function send<T>(method: string, url: string, body: unknown): Promise<Raw<T>> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), LIMITS.requestTimeoutMs);
  try {
    const res = await config.fetch(config.baseUrl + url, {
      method,
      credentials: 'same-origin',
      headers: headers(body === undefined ? {} : { 'Content-Type': 'application/json' }),
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: controller.signal,
    });
    let envelope: Envelope<T> | null = null;
    try {
      envelope = (await res.json()) as Envelope<T>;
    } catch {
      /* not JSON */
    }
    return { status: res.status, envelope };
  } catch {
    throw { message: 'Network Error', statusCode: 0 } satisfies HttpError;
  } finally {
    clearTimeout(timer);
  }
}

const REFRESH_URL = '/api/identity/sso/signin/direct/cube/refresh?user-info=true';
let refreshing: Promise<boolean> | null = null;

/**
 * One refresh for everyone waiting: the first caller starts it, the others await the same promise.
 * Also the session fetch on entering a protected route without a token.
 */
export function refreshOnce(): Promise<boolean> {
  refreshing ??= (async () => {
    try {
      const r = await send<SessionAnswer>('POST', REFRESH_URL, undefined);
      if (r.status === 200 && r.envelope?.status.success) {
        saveSession(r.envelope.data);
        return true;
      }
      // Refresh failed: the queue is dropped, the token removed, the user sent to sign-in with the server's message.
      // Without a token there was no session to lose (a first visit): nothing to announce.
      const hadToken = !!store.get('token');
      store.remove('token');
      if (hadToken) config.onEvent({ type: 'signedOut', message: r.envelope?.status.message ?? 'Token expired, please log in.' });
      return false;
    } catch {
      const hadToken = !!store.get('token');
      store.remove('token');
      if (hadToken) config.onEvent({ type: 'signedOut', message: 'Network Error' });
      return false;
    } finally {
      setTimeout(() => {
        refreshing = null;
      }, 0);
    }
  })();
  return refreshing;
}

const failure = <T>(r: Raw<T>): HttpError => ({ message: r.envelope?.status.message ?? `HTTP ${r.status}`, statusCode: r.status, code: r.envelope?.status.code });

/** Call the API; resolves with the envelope's data, rejects with an HttpError (already shown to the user where SPEC.md says so). */
export async function api<T>(method: string, url: string, body?: unknown, opts: { quiet?: boolean } = {}): Promise<T> {
  let r: Raw<T>;
  try {
    r = await send<T>(method, url, body);
  } catch (err) {
    if (!opts.quiet) config.onEvent({ type: 'toast', message: 'Network Error' });
    throw err;
  }
  if (r.status === 400 && r.envelope?.status.code === CODES.tokenUnauthorised && url !== REFRESH_URL) {
    if (!(await refreshOnce())) throw failure(r);
    r = await send<T>(method, url, body);
  }
  if (r.status === 200 && r.envelope?.status.success) return r.envelope.data;
  const err = failure(r);
  if (r.envelope?.status.code === CODES.sessionExpired) config.onEvent({ type: 'sessionExpired', message: err.message });
  else if (r.status === 401 && store.get('token')) {
    clearSession();
    config.onEvent({ type: 'tokenExpired' });
  } else if (!opts.quiet) {
    config.onEvent({ type: 'toast', message: err.message });
    if (r.status >= 500) void reportError(err, url);
  }
  throw err;
}

/** SPEC.md section 8: a 500 is shown and reported. */
async function reportError(err: HttpError, url: string): Promise<void> {
  await send('POST', '/api/public/errors', { message: err.message.slice(0, 2000), url: url.slice(0, 1000), status: err.statusCode }).catch(() => undefined);
}
