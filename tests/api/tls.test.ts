/**
 * TLS_CERT_FILE and TLS_KEY_FILE: the server ends TLS itself, speaks HTTP/2 to a client that offers it (browsers) and
 * HTTP/1.1 to one that does not, with the same API, console files and live stream on both. The certificate is the
 * suites' own (tests/global-setup.ts), trusted through NODE_EXTRA_CA_CERTS like a customer's would be through their CA.
 */
import http2 from 'node:http2';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../server/config';
import { buildTestApp, DEMO, signIn, type Session, type TestApp } from '../helper';

const tlsDir = () => {
  const dir = process.env.TEST_TLS_DIR;
  if (!dir) throw new Error('tls.test.ts needs the suites’ certificate (tests/global-setup.ts)');
  return dir;
};

/** One request over an HTTP/2 session: status, headers and the body read until `enough` says so or the stream ends. */
function h2Get(session: http2.ClientHttp2Session, url: string, headers: Record<string, string> = {}, enough = (_body: string) => false) {
  return new Promise<{ status: number; headers: http2.IncomingHttpHeaders; body: string }>((resolve, reject) => {
    const req = session.request({ ':path': url, ...headers });
    let status = 0;
    let head: http2.IncomingHttpHeaders = {};
    let body = '';
    req.on('response', (h) => {
      status = Number(h[':status']);
      head = h;
    });
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => {
      body += chunk;
      if (enough(body)) {
        req.close();
        resolve({ status, headers: head, body });
      }
    });
    req.on('end', () => resolve({ status, headers: head, body }));
    req.on('error', reject);
    req.end();
  });
}

describe('a server given a certificate', () => {
  let t: TestApp;
  let base: string;
  let admin: Session;
  let consoleDir: string;

  beforeAll(async () => {
    consoleDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tls-console-'));
    fs.mkdirSync(path.join(consoleDir, 'assets'));
    fs.writeFileSync(path.join(consoleDir, 'index.html'), '<!doctype html><title>console</title><script type="module" src="/assets/app.js"></script>');
    fs.writeFileSync(path.join(consoleDir, 'assets', 'app.js'), `console.log(${JSON.stringify('x'.repeat(4000))});`);
    const dir = tlsDir();
    t = await buildTestApp({ config: { tls: { certFile: path.join(dir, 'cert.pem'), keyFile: path.join(dir, 'key.pem') }, consoleDir } });
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    base = `https://localhost:${(t.app.server.address() as AddressInfo).port}`;
    admin = await signIn(t.app, DEMO.admin);
  });
  afterAll(async () => {
    await t.close();
    fs.rmSync(consoleDir, { recursive: true, force: true });
  });

  it('speaks HTTP/2 to a client that offers it: the API, the console and its files', async () => {
    const session = http2.connect(base);
    try {
      const health = await h2Get(session, '/api/health');
      expect(session.alpnProtocol).toBe('h2');
      expect(health.status).toBe(200);
      const orgs = await h2Get(session, '/api/main/orgs', admin.headers);
      expect(orgs.status).toBe(200);
      expect(JSON.parse(orgs.body).status.success).toBe(true);
      const page = await h2Get(session, '/en-US/dashboard/analysis');
      expect(page.status).toBe(200);
      expect(page.body).toContain('/assets/app.js');
      const script = await h2Get(session, '/assets/app.js', { 'accept-encoding': 'identity' });
      expect(script.status).toBe(200);
      expect(script.body).toContain('xxxx');
    } finally {
      session.close();
    }
  });

  it('keeps the live stream open over HTTP/2', async () => {
    const session = http2.connect(base);
    try {
      const stream = await h2Get(session, `/api/identity/sse/connect?userId=${admin.accountId}`, admin.headers, (body) => body.includes('event: ready'));
      expect(stream.status).toBe(200);
      expect(stream.headers['content-type']).toMatch(/^text\/event-stream/);
      expect(stream.headers.connection).toBeUndefined();
      expect(stream.body).toContain('event: ready');
    } finally {
      session.close();
    }
  });

  it('refuses an upload declaring more than its limit over HTTP/2 too, before its body is sent', async () => {
    const session = http2.connect(base);
    try {
      const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
        const req = session.request({
          ':method': 'POST',
          ':path': '/api/customer/sms/task/targets/parse',
          ...admin.headers,
          'content-type': 'multipart/form-data; boundary=x',
          'content-length': String(50 * 1024 * 1024),
        });
        let status = 0;
        let body = '';
        req.on('response', (h) => (status = Number(h[':status'])));
        req.setEncoding('utf8');
        req.on('data', (d: string) => (body += d));
        req.on('end', () => resolve({ status, body }));
        req.on('error', reject);
      });
      expect(answer.status).toBe(413);
      expect(JSON.parse(answer.body).status.message).toBe('The upload is larger than 2 MB: a file may be at most 1 MB.');
    } finally {
      session.close();
    }
  });

  it('still answers an HTTP/1.1 client over TLS', async () => {
    const res = await fetch(`${base}/api/main/orgs`, { headers: admin.headers });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { status: { success: boolean } }).status.success).toBe(true);
  });
});

describe('TLS_CERT_FILE and TLS_KEY_FILE', () => {
  it('are read as a pair of files', () => {
    const dir = tlsDir();
    const tls = loadConfig({ TLS_CERT_FILE: path.join(dir, 'cert.pem'), TLS_KEY_FILE: path.join(dir, 'key.pem') } as NodeJS.ProcessEnv).tls;
    expect(tls).toEqual({ certFile: path.join(dir, 'cert.pem'), keyFile: path.join(dir, 'key.pem') });
    expect(loadConfig({} as NodeJS.ProcessEnv).tls).toBeUndefined();
  });

  it('refuse one without the other, and a file that is not there, naming the variable', () => {
    const dir = tlsDir();
    expect(() => loadConfig({ TLS_CERT_FILE: path.join(dir, 'cert.pem') } as NodeJS.ProcessEnv)).toThrow(/TLS_KEY_FILE is not set/);
    expect(() => loadConfig({ TLS_KEY_FILE: path.join(dir, 'key.pem') } as NodeJS.ProcessEnv)).toThrow(/TLS_CERT_FILE is not set/);
    expect(() => loadConfig({ TLS_CERT_FILE: path.join(dir, 'missing.pem'), TLS_KEY_FILE: path.join(dir, 'key.pem') } as NodeJS.ProcessEnv)).toThrow(
      /TLS_CERT_FILE names ".*missing\.pem", which is not a readable file/,
    );
    expect(() => loadConfig({ TLS_CERT_FILE: path.join(dir, 'cert.pem'), TLS_KEY_FILE: dir } as NodeJS.ProcessEnv)).toThrow(/TLS_KEY_FILE names/);
  });
});
