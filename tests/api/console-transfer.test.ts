/**
 * What the server sends over the wire: the console's files as the brotli or gzip copy written
 * at build time (scripts/precompress.ts), chosen by Accept-Encoding; a year's immutable cache for hashed assets and
 * no-cache for index.html (also where it answers a route of the console); large JSON answers compressed on the fly,
 * small ones and event streams not.
 */
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { precompressDir } from '../../scripts/precompress.js';
import { buildTestApp, call, DEMO, signIn, type Session, type TestApp } from '../helper.js';

const ASSET = 'assets/index-Bx7kQ2aZ.js';
const SMALL_ASSET = 'assets/tiny-Ck3d9LmP.js';
const IMMUTABLE = 'public, max-age=31536000, immutable';

/** A built console in miniature: an index.html and a hashed asset above the compression floor, and one below it. */
function fakeConsole(): { dir: string; js: string; html: string } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'iot-console-dist-'));
  fs.mkdirSync(path.join(dir, 'assets'));
  const html = `<!doctype html><html><head><title>IoT Connect</title><script type="module" src="/${ASSET}"></script>${'<link rel="modulepreload" href="/assets/chunk.js">'.repeat(40)}</head><body><div id="root"></div></body></html>`;
  const js = Array.from({ length: 400 }, (_, i) => `export const value${i} = "the console's code, line ${i}";`).join('\n');
  fs.writeFileSync(path.join(dir, 'index.html'), html);
  fs.writeFileSync(path.join(dir, ASSET), js);
  fs.writeFileSync(path.join(dir, SMALL_ASSET), 'export const x = 1;\n');
  return { dir, js, html };
}

describe('transfer of the console and the API', () => {
  let t: TestApp;
  let site: ReturnType<typeof fakeConsole>;
  let admin: Session;

  beforeAll(async () => {
    site = fakeConsole();
    const written = await precompressDir(site.dir);
    // The build step writes both copies beside each file worth compressing, and none beside a tiny one.
    expect(written.map((w) => w.file).sort()).toEqual([ASSET, 'index.html'].sort());
    for (const f of [ASSET, 'index.html']) for (const ext of ['.br', '.gz']) expect(fs.existsSync(path.join(site.dir, f + ext))).toBe(true);
    expect(fs.existsSync(path.join(site.dir, `${SMALL_ASSET}.br`))).toBe(false);
    t = await buildTestApp({ config: { consoleDir: site.dir } });
    admin = await signIn(t.app, DEMO.admin);
  });
  afterAll(async () => {
    await t.close();
    fs.rmSync(site.dir, { recursive: true, force: true });
  });

  const get = (url: string, acceptEncoding?: string) =>
    t.app.inject({ method: 'GET', url, headers: acceptEncoding === undefined ? {} : { 'accept-encoding': acceptEncoding } });

  describe('a hashed asset', () => {
    it('is the brotli copy when the browser accepts br, the gzip copy when only gzip, the file itself otherwise', async () => {
      const br = await get(`/${ASSET}`, 'gzip, deflate, br');
      expect(br.statusCode).toBe(200);
      expect(br.headers['content-encoding']).toBe('br');
      expect(br.headers['content-type']).toMatch(/^(?:application|text)\/javascript/);
      expect(zlib.brotliDecompressSync(br.rawPayload).toString()).toBe(site.js);
      expect(br.rawPayload.length).toBeLessThan(site.js.length / 3);

      const gz = await get(`/${ASSET}`, 'gzip');
      expect(gz.headers['content-encoding']).toBe('gzip');
      expect(zlib.gunzipSync(gz.rawPayload).toString()).toBe(site.js);

      for (const none of [undefined, 'identity', 'deflate']) {
        const plain = await get(`/${ASSET}`, none);
        expect(plain.headers['content-encoding'], `Accept-Encoding: ${none}`).toBeUndefined();
        expect(plain.body).toBe(site.js);
      }
    });

    it('says it varies by Accept-Encoding and is cached for a year, immutable, whichever copy is sent', async () => {
      for (const ae of ['br', 'gzip', undefined]) {
        const res = await get(`/${ASSET}`, ae);
        expect(res.headers.vary, `Accept-Encoding: ${ae}`).toMatch(/accept-encoding/i);
        expect(res.headers['cache-control']).toBe(IMMUTABLE);
      }
      // A file too small to be worth a compressed copy is sent as it is, never compressed per request.
      const small = await get(`/${SMALL_ASSET}`, 'br, gzip');
      expect(small.statusCode).toBe(200);
      expect(small.headers['content-encoding']).toBeUndefined();
      expect(small.headers['cache-control']).toBe(IMMUTABLE);
    });

    it('a missing asset is a 404, never index.html and never cached for a year', async () => {
      const res = await get('/assets/index-OLDBUILD.js', 'br');
      expect(res.statusCode).toBe(404);
      expect(res.headers['cache-control']).not.toBe(IMMUTABLE);
    });
  });

  describe('index.html', () => {
    it('is asked for again on every visit (no-cache), compressed by the same negotiation, at / and at a route of the console', async () => {
      for (const url of ['/', '/index.html', '/en-US/login', '/en-US/dashboard/analysis?view=month']) {
        const br = await get(url, 'br, gzip');
        expect(br.statusCode, url).toBe(200);
        expect(br.headers['cache-control'], url).toBe('no-cache');
        expect(br.headers['content-type'], url).toMatch(/^text\/html/);
        expect(br.headers.vary, url).toMatch(/accept-encoding/i);
        expect(br.headers['content-encoding'], url).toBe('br');
        expect(zlib.brotliDecompressSync(br.rawPayload).toString()).toBe(site.html);

        const gz = await get(url, 'gzip');
        expect(gz.headers['content-encoding'], url).toBe('gzip');
        expect(zlib.gunzipSync(gz.rawPayload).toString()).toBe(site.html);

        const plain = await get(url);
        expect(plain.headers['content-encoding'], url).toBeUndefined();
        expect(plain.headers['cache-control'], url).toBe('no-cache');
        expect(plain.body).toBe(site.html);
      }
    });
  });

  describe('API answers', () => {
    it('a large JSON answer is compressed as the client accepts, with Vary', async () => {
      const list = (ae?: string) =>
        call(t.app, admin, { method: 'POST', url: '/api/main/sim/list/es', payload: { pageSize: 100 }, headers: ae ? { 'accept-encoding': ae } : {} });
      const plain = await list();
      expect(plain.statusCode).toBe(200);
      expect(plain.headers['content-encoding']).toBeUndefined();
      expect(plain.rawPayload.length).toBeGreaterThan(4096);
      const json = plain.json();

      const br = await list('gzip, deflate, br');
      expect(br.headers['content-encoding']).toBe('br');
      expect(br.headers.vary).toMatch(/accept-encoding/i);
      expect(br.rawPayload.length).toBeLessThan(plain.rawPayload.length / 3);
      expect(JSON.parse(zlib.brotliDecompressSync(br.rawPayload).toString()).data).toEqual(json.data);

      const gz = await list('gzip');
      expect(gz.headers['content-encoding']).toBe('gzip');
      expect(JSON.parse(zlib.gunzipSync(gz.rawPayload).toString()).data).toEqual(json.data);
    });

    it('a small answer is sent as it is', async () => {
      const res = await get('/api/health', 'br, gzip');
      expect(res.statusCode).toBe(200);
      expect(res.rawPayload.length).toBeLessThan(1024);
      expect(res.headers['content-encoding']).toBeUndefined();
      expect(res.json().data.status).toBe('ok');
    });

    it('the event stream is never compressed: its first event arrives as text at once', async () => {
      await t.app.listen({ port: 0, host: '127.0.0.1' });
      const { port } = t.app.server.address() as AddressInfo;
      const { headers, first } = await new Promise<{ headers: http.IncomingHttpHeaders; first: string }>((resolve, reject) => {
        const req = http.get(
          {
            host: '127.0.0.1',
            port,
            path: `/api/identity/sse/connect?userId=${admin.accountId}`,
            headers: { ...admin.headers, 'accept-encoding': 'br, gzip' },
          },
          (res) => {
            res.once('data', (chunk: Buffer) => {
              resolve({ headers: res.headers, first: chunk.toString() });
              req.destroy();
            });
          },
        );
        req.on('error', reject);
      });
      expect(headers['content-type']).toMatch(/^text\/event-stream/);
      expect(headers['content-encoding']).toBeUndefined();
      expect(first).toMatch(/^retry: 3000\nevent: ready\n/);
    });
  });
});
