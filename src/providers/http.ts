/** One HTTP helper: SPEC.md section 7's headers, the envelope unwrapped, errors normalised to { message, statusCode }. */
import { LIMITS } from '../../common/limits';
import { store } from './session-store';

export interface HttpError {
  message: string;
  statusCode: number;
  code?: string;
}

export interface Envelope<T> {
  status: { code: string; success: boolean; message: string };
  data: T;
}

function headers(extra: Record<string, string> = {}): Record<string, string> {
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

/** Call the API; resolves with the envelope's data, rejects with an HttpError. */
export async function api<T>(method: string, url: string, body?: unknown): Promise<T> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), LIMITS.requestTimeoutMs);
  let res: Response;
  try {
    res = await fetch(url, {
      method,
      credentials: 'same-origin',
      headers: headers(body === undefined ? {} : { 'Content-Type': 'application/json' }),
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: controller.signal,
    });
  } catch {
    throw { message: 'Network Error', statusCode: 0 } satisfies HttpError;
  } finally {
    clearTimeout(timer);
  }
  let envelope: Envelope<T> | null = null;
  try {
    envelope = (await res.json()) as Envelope<T>;
  } catch {
    /* not JSON */
  }
  if (!res.ok || !envelope?.status?.success) {
    throw { message: envelope?.status?.message ?? res.statusText, statusCode: res.status, code: envelope?.status?.code } satisfies HttpError;
  }
  return envelope.data;
}
