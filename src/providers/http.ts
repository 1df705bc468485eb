/**
 * One HTTP helper for the console: SPEC.md section 7's headers on every call, the envelope unwrapped,
 * errors normalised to { message, statusCode, code }, and SPEC.md section 4's session handling:
 * an expired token is refreshed once for any number of concurrent calls, which wait and are replayed.
 */
import { CODES } from '../../common/errors';
import { LIMITS } from '../../common/limits';
import { clearAllStorage, saveSession, store, type SessionAnswer } from './session-store';

export interface HttpError {
  message: string;
  statusCode: number;
  code?: string;
  /** The field a 400 names (the server's validation answer), so a form can show the message under it. */
  field?: string;
}

export interface Envelope<T> {
  status: { code: string; success: boolean; message: string };
  data: T;
}

/** What the session handling asks the surrounding app to do. */
export type HttpEvent =
  | { type: 'toast'; message: string; statusCode?: number; code?: string }
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
  res: Response;
}

interface SendOptions {
  /** Extra headers (SPEC.md section 7: operator and scene on autoflow rule uploads). */
  headers?: Record<string, string>;
  /** The answer is a file or a stream: only a JSON answer is read as an envelope. */
  binary?: boolean;
  /** A long-lived stream (SSE): no time-out, the caller aborts. */
  signal?: AbortSignal;
}

const isJson = (res: Response) => (res.headers?.get?.('content-type') ?? 'application/json').includes('application/json');

async function send<T>(method: string, url: string, body: unknown, opts: SendOptions = {}): Promise<Raw<T>> {
  const controller = new AbortController();
  const timer = opts.signal ? undefined : setTimeout(() => controller.abort(), LIMITS.requestTimeoutMs);
  const multipart = typeof FormData !== 'undefined' && body instanceof FormData;
  try {
    const res = await config.fetch(config.baseUrl + url, {
      method,
      credentials: 'same-origin',
      // Answers are the state of now: never from the browser's cache (which keeps a 410 as fresh for ever).
      cache: 'no-store',
      // A multipart body sets its own Content-Type with the boundary.
      headers: headers({ ...(body === undefined || multipart ? {} : { 'Content-Type': 'application/json' }), ...opts.headers }),
      body: body === undefined ? undefined : multipart ? (body as FormData) : JSON.stringify(body),
      signal: opts.signal ?? controller.signal,
    });
    let envelope: Envelope<T> | null = null;
    if (!opts.binary || isJson(res)) {
      try {
        envelope = (await res.json()) as Envelope<T>;
      } catch {
        /* not JSON */
      }
    }
    return { status: res.status, envelope, res };
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

const failure = <T>(r: Raw<T>): HttpError => {
  const data = r.envelope?.data as { field?: unknown } | null | undefined;
  return {
    message: r.envelope?.status.message ?? `HTTP ${r.status}`,
    statusCode: r.status,
    code: r.envelope?.status.code,
    ...(typeof data?.field === 'string' ? { field: data.field } : {}),
  };
};

/**
 * One call with SPEC.md sections 4 and 8 applied: an expired token is refreshed once (shared by every call in flight)
 * and the call replayed; failures are shown or acted on, then rejected as an HttpError.
 */
async function request<T>(method: string, url: string, body: unknown, opts: SendOptions & { quiet?: boolean }): Promise<Raw<T>> {
  let r: Raw<T>;
  const sentWith = store.get('token');
  try {
    r = await send<T>(method, url, body, opts);
  } catch (err) {
    if (!opts.quiet) config.onEvent({ type: 'toast', message: 'Network Error' });
    throw err;
  }
  if (r.status === 400 && r.envelope?.status.code === CODES.tokenUnauthorised && url !== REFRESH_URL) {
    // A call sent with the old token may be answered after the one refresh has ended: it is replayed with the new
    // token, not a reason for a second refresh.
    const refreshed = store.get('token') !== sentWith && !!store.get('token');
    if (!refreshed && !(await refreshOnce())) throw failure(r);
    r = await send<T>(method, url, body, opts);
  }
  // 202: accepted as a task of the task center (a download too large to answer at once), its envelope says which.
  if ((r.status === 200 || (r.status === 202 && r.envelope)) && (r.envelope ? r.envelope.status.success : opts.binary)) return r;
  const err = failure(r);
  if (r.envelope?.status.code === CODES.sessionExpired) config.onEvent({ type: 'sessionExpired', message: err.message });
  else if (r.status === 401 && store.get('token')) {
    clearAllStorage();
    config.onEvent({ type: 'tokenExpired' });
  } else {
    if (!opts.quiet) config.onEvent({ type: 'toast', message: err.message, statusCode: r.status, code: err.code });
    // A 500 is reported whoever shows it.
    if (r.status >= 500) void reportError(err, url);
  }
  throw err;
}

/** Call the API with a JSON body; resolves with the envelope's data, rejects with an HttpError (already shown where SPEC.md says so). */
export async function api<T>(method: string, url: string, body?: unknown, opts: { quiet?: boolean } = {}): Promise<T> {
  return (await request<T>(method, url, body, opts)).envelope!.data;
}

/**
 * A GET with no side effects: no refresh of an expired token, no toast, no sign-out. Resolves with the answer's data
 * when the server answered it with success, else with null (the caller then asks through api() as usual). For calls
 * started before the app is wired to show what happens (src/early-calls.ts).
 */
export async function peek<T>(url: string): Promise<{ data: T } | null> {
  try {
    const r = await send<T>('GET', url, undefined);
    return r.status === 200 && r.envelope?.status.success ? { data: r.envelope.data } : null;
  } catch {
    return null;
  }
}

/** Send files and fields as multipart/form-data (SMS send, SIM transfer, uploads); extra headers where SPEC.md names them. */
export async function upload<T>(
  url: string,
  form: FormData,
  opts: { headers?: Record<string, string>; quiet?: boolean; method?: 'POST' | 'PUT' } = {},
): Promise<T> {
  return (await request<T>(opts.method ?? 'POST', url, form, opts)).envelope!.data;
}

/** Fetch a file (exports, templates, PDFs): its bytes and the name the server gave it. */
export async function download(method: string, url: string, body?: unknown): Promise<{ blob: Blob; filename: string | null }> {
  return fileOf((await request<unknown>(method, url, body, { binary: true })).res);
}

/** A file answer's bytes and the name its Content-Disposition gives (the UTF-8 one first). */
async function fileOf(res: Response): Promise<{ blob: Blob; filename: string | null }> {
  const disposition = res.headers.get('content-disposition') ?? '';
  const star = /filename\*=UTF-8''([^;]+)/i.exec(disposition);
  const plain = /filename="?([^";]+)"?/i.exec(disposition);
  return { blob: await res.blob(), filename: star ? decodeURIComponent(star[1]) : (plain?.[1] ?? null) };
}

/** A task the server queued instead of answering a download at once (202): the task center prepares the file. */
export interface QueuedTask {
  taskId: string;
  referenceId: string;
  quantity: number;
}

/** Fetch a file, or learn that the task center prepares it (202) and which task does. */
export async function downloadOrTask(url: string): Promise<{ file: { blob: Blob; filename: string | null } } | { task: QueuedTask }> {
  const r = await request<QueuedTask>('GET', url, undefined, { binary: true });
  return r.status === 202 && r.envelope ? { task: r.envelope.data } : { file: await fileOf(r.res) };
}

/** Save a downloaded file in the browser under its name. */
export function saveFile({ blob, filename }: { blob: Blob; filename: string | null }, fallbackName: string): void {
  const href = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = href;
  a.download = filename ?? fallbackName;
  a.click();
  setTimeout(() => URL.revokeObjectURL(href), 1000);
}

/** Open a long-lived stream (server-sent events) with the session's headers; quiet, the caller retries. */
export async function openStream(url: string, signal: AbortSignal, extra: Record<string, string> = {}): Promise<Response> {
  return (await request<unknown>('GET', url, undefined, { binary: true, signal, quiet: true, headers: { Accept: 'text/event-stream', ...extra } })).res;
}

/** SPEC.md section 8's organisation codes keep their own words on a 403; any other 403 reads "Permission denied". */
const OWN_WORDS_403 = new Set<string>([
  CODES.orgFirstLevelPermission,
  CODES.orgCannotDelete,
  CODES.orgSettlementName,
  CODES.orgInsufficientPermission,
  CODES.orgNameExists,
]);

/** The toast of a failed call: the server's message, or SPEC.md section 8's "Permission denied" (a key) for a 403. */
export function toastOf(e: { message: string; statusCode?: number; code?: string }): { key: string } | { text: string } {
  if (e.message === 'Network Error') return { key: 'http.networkError' };
  if (e.statusCode === 403 && !(e.code && OWN_WORDS_403.has(e.code))) return { key: 'errors.permissionDenied' };
  return { text: e.message };
}

/** A failed read is tried again only when the failure may pass (no answer, or a 5xx), once: one failure, one toast. */
export function retryRead(failureCount: number, error: unknown): boolean {
  const status = (error as Partial<HttpError> | null)?.statusCode;
  return failureCount < 1 && (status === 0 || (typeof status === 'number' && status >= 500));
}

/** SPEC.md section 8: a 500 is shown and reported. */
async function reportError(err: HttpError, url: string): Promise<void> {
  await send('POST', '/api/public/errors', { message: err.message.slice(0, 2000), url: url.slice(0, 1000), status: err.statusCode }).catch(() => undefined);
}

/** A page that crashed in the browser: reported like a 500, without status (quiet, best effort). */
export async function reportCrash(message: string, url: string): Promise<void> {
  await send('POST', '/api/public/errors', { message: message.slice(0, 2000), url: url.slice(0, 1000) }).catch(() => undefined);
}

/** End the session on the server (refresh cookie included); never fails, the local session is cleared either way. */
export async function signOutOnServer(): Promise<void> {
  await send('POST', '/api/identity/sso/signin/signout/cube', undefined).catch(() => undefined);
}
