/**
 * Where console error reports go besides the error_reports table (SPEC.md section 8: "report it to an
 * error-reporting service"). With SENTRY_DSN set, each report is also sent to that Sentry-compatible service
 * (Sentry, GlitchTip, Bugsink all take the store endpoint); without it, nothing leaves the server.
 */
import crypto from 'node:crypto';
import { APP_VERSION } from '../../common/limits.js';

export interface ErrorReport {
  message: string;
  url?: string;
  status?: number;
  accountId: string | null;
  orgCode: string | null;
  requestId: string;
}

export interface ErrorSink {
  send(report: ErrorReport): Promise<void>;
}

/** The parts of a DSN (scheme://key@host[:port]/project), or an error naming what is wrong. */
export function parseDsn(dsn: string): { storeUrl: string; key: string } {
  let u: URL;
  try {
    u = new URL(dsn);
  } catch {
    throw new Error('SENTRY_DSN is not a URL: expected https://<key>@<host>/<project>');
  }
  const project = u.pathname.replace(/^\/+|\/+$/g, '');
  if (!/^https?:$/.test(u.protocol) || !u.username || !/^\d+$/.test(project)) {
    throw new Error('SENTRY_DSN must read https://<key>@<host>/<project> with a numeric project id');
  }
  return { storeUrl: `${u.protocol}//${u.host}/api/${project}/store/`, key: decodeURIComponent(u.username) };
}

/** Sends each report to a Sentry-compatible store endpoint; a failure is logged and never reaches the caller. */
export function sentrySink(dsn: string, log: (msg: string) => void): ErrorSink {
  const { storeUrl, key } = parseDsn(dsn);
  return {
    async send(r) {
      const event = {
        event_id: crypto.randomUUID().replace(/-/g, ''),
        timestamp: new Date().toISOString(),
        platform: 'javascript',
        level: 'error',
        logger: 'console',
        release: `iot-console@${APP_VERSION}`,
        message: { formatted: r.message },
        request: r.url ? { url: r.url } : undefined,
        tags: { status: r.status === undefined ? undefined : String(r.status), organisation: r.orgCode ?? undefined, request_id: r.requestId },
        user: r.accountId ? { id: r.accountId } : undefined,
      };
      try {
        const res = await fetch(storeUrl, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            'x-sentry-auth': `Sentry sentry_version=7, sentry_key=${key}, sentry_client=iot-console/${APP_VERSION}`,
          },
          body: JSON.stringify(event),
          signal: AbortSignal.timeout(5000),
        });
        if (!res.ok) log(`error-reporting service answered ${res.status}`);
      } catch (err) {
        log(`error-reporting service unreachable: ${(err as Error).message}`);
      }
    },
  };
}

export const noSink: ErrorSink = { send: async () => undefined };
