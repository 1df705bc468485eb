/**
 * Hostile uploads on every route that reads an uploaded spreadsheet, over a real socket where the connection matters:
 * - a zip bomb: an .xlsx of about 1 MB whose one entry inflates to about 1 GB, its headers lying about it (or telling
 *   the truth about a size past the limit), is refused at once naming the rule, and /api/health answers meanwhile;
 *   a normal .xlsx and .csv are still read;
 * - a body past its limit: refused from its Content-Length before the client sends any of it, and refused as soon as a
 *   streamed file or request passes its limit, the connection then closed while the client is still sending.
 */
import net from 'node:net';
import zlib from 'node:zlib';
import * as XLSX from '@e965/xlsx';
import { beforeAll, describe, expect, it } from 'vitest';
import { translate } from '../../common/i18n.js';
import { call, DB_KINDS, DEMO, type Session, signedInSuite } from '../helper.js';

const MB = 1024 * 1024;

/**
 * A one-entry .xlsx whose entry is `repeats` MB of zeros deflated (about 1 KB a MB: the same flushed block again and
 * again), its local and central headers declaring the sizes given, whatever the data inflates to.
 */
function zipBomb(repeats: number, sizes: { local: number; central: number }): Buffer {
  const block = zlib.deflateRawSync(Buffer.alloc(MB), { finishFlush: zlib.constants.Z_FULL_FLUSH });
  // The blocks, then an empty final block.
  const data = Buffer.concat([...Array<Buffer>(repeats).fill(block), Buffer.from([0x03, 0x00])]);
  const name = Buffer.from('xl/worksheets/sheet1.xml');
  const local = Buffer.alloc(30);
  local.writeUInt32LE(0x04034b50, 0);
  local.writeUInt16LE(20, 4);
  local.writeUInt16LE(8, 8); // deflate
  local.writeUInt32LE(data.length, 18);
  local.writeUInt32LE(sizes.local, 22);
  local.writeUInt16LE(name.length, 26);
  const central = Buffer.alloc(46);
  central.writeUInt32LE(0x02014b50, 0);
  central.writeUInt16LE(20, 4);
  central.writeUInt16LE(20, 6);
  central.writeUInt16LE(8, 10);
  central.writeUInt32LE(data.length, 20);
  central.writeUInt32LE(sizes.central, 24);
  central.writeUInt16LE(name.length, 28);
  central.writeUInt32LE(0, 42); // the local header's offset
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(1, 8);
  end.writeUInt16LE(1, 10);
  end.writeUInt32LE(central.length + name.length, 12);
  end.writeUInt32LE(local.length + name.length + data.length, 16);
  return Buffer.concat([local, name, data, central, name, end]);
}

/** A workbook as SheetJS writes it (compressed, true headers). */
function book(rows: string[][]): Buffer {
  const wb = XLSX.utils.book_new();
  XLSX.utils.book_append_sheet(wb, XLSX.utils.aoa_to_sheet(rows), 'Sheet1');
  return XLSX.write(wb, { type: 'buffer', bookType: 'xlsx', compression: true }) as Buffer;
}

/** A multipart body as a browser sends it. */
async function form(fields: Record<string, string>, file: { name: string; bytes: Buffer }) {
  const fd = new FormData();
  for (const [k, v] of Object.entries(fields)) fd.append(k, v);
  fd.append('file', new Blob([new Uint8Array(file.bytes)]), file.name);
  const req = new Request('http://local/', { method: 'POST', body: fd });
  return { payload: Buffer.from(await req.arrayBuffer()), contentType: req.headers.get('content-type')! };
}

/** Every route that reads an uploaded spreadsheet, with the fields it needs besides the file. */
const UPLOAD_ROUTES: Array<[string, Record<string, string>]> = [
  ['/api/main/sim/transfer/parse/org-demo-north', {}],
  ['/api/main/sim/transfer', { targetOrgId: 'org-demo-north', acknowledged: 'true' }],
  ['/api/main/sim/organizationCode/DEMO/batchUpdateInfo/parse', { type: 'notes' }],
  ['/api/main/sim/organizationCode/DEMO/batchUpdateInfo', { type: 'notes' }],
  ['/api/rule/auto_flow/cube/validation/scope', {}],
  ['/api/rule/auto_flow/cube/validation/imei_change', {}],
  ['/api/customer/sms/task/targets/parse', {}],
  ['/api/main/sms/send', { content: 'hello' }],
];

/** What a raw HTTP/1.1 exchange gave: the answer's head and body, and how much of its body the client had sent. */
interface Exchange {
  status: number;
  headers: string;
  body: { status: { message: string } };
  sentWhenAnswered: number;
  closedWhileSending: boolean;
}

/**
 * Send a request over a plain socket: its head, then `body` (when given) chunk by chunk as fast as the socket takes
 * it, stopping when the server answers and closes. Resolves once the connection is closed.
 */
function rawRequest(port: number, head: string, body?: { chunks: Iterable<Buffer>; chunked: boolean }): Promise<Exchange> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    let received = Buffer.alloc(0);
    let sent = 0;
    let sentWhenAnswered = -1;
    let finished = false;
    let closed = false;
    socket.on('data', (d) => {
      received = Buffer.concat([received, d]);
      if (sentWhenAnswered < 0) sentWhenAnswered = sent;
    });
    socket.on('error', () => {}); // a reset after the answer, while still sending, is what is asked for
    // A sanity bound only, so that a server that never answers fails the test rather than hangs it.
    socket.setTimeout(20_000, () => socket.destroy());
    socket.on('close', () => {
      closed = true;
      const text = received.toString('utf8');
      const at = text.indexOf('\r\n\r\n');
      if (at < 0) return reject(new Error(`no answer (sent ${sent} bytes)`));
      const headers = text.slice(0, at);
      let rest = text.slice(at + 4);
      // A chunked answer: its one chunk.
      if (/transfer-encoding: chunked/i.test(headers)) rest = rest.replace(/^[0-9a-f]+\r\n/i, '').replace(/\r\n0\r\n\r\n$/, '');
      resolve({ status: Number(headers.split(' ')[1]), headers, body: JSON.parse(rest), sentWhenAnswered, closedWhileSending: !finished });
    });
    socket.on('connect', async () => {
      socket.write(head);
      if (!body) return;
      for (const chunk of body.chunks) {
        if (closed || sentWhenAnswered >= 0) return;
        const piece = body.chunked ? Buffer.concat([Buffer.from(`${chunk.length.toString(16)}\r\n`), chunk, Buffer.from('\r\n')]) : chunk;
        sent += chunk.length;
        if (!socket.write(piece)) {
          await new Promise<void>((r) => {
            const done = () => (socket.off('drain', done), socket.off('close', done), r());
            socket.on('drain', done).on('close', done);
          });
        }
      }
      if (closed || sentWhenAnswered >= 0) return;
      finished = true;
      socket.end(body.chunked ? '0\r\n\r\n' : '');
    });
  });
}

describe.each(DB_KINDS)('hostile uploads on %s', (kind) => {
  const suite = signedInSuite(kind, { admin: DEMO.admin });
  let port = 0;
  beforeAll(async () => {
    await suite.t.app.listen({ port: 0, host: '127.0.0.1' });
    port = (suite.t.app.server.address() as net.AddressInfo).port;
  });

  const post = async (s: Session, url: string, fields: Record<string, string>, file: { name: string; bytes: Buffer }, language = 'en-US') => {
    const f = await form(fields, file);
    return call(suite.t.app, s, { method: 'POST', url, payload: f.payload, headers: { 'content-type': f.contentType, language } });
  };
  const headOf = (url: string, contentType: string, length: string) =>
    [
      `POST ${url} HTTP/1.1`,
      'Host: 127.0.0.1',
      ...Object.entries(suite.admin.headers).map(([k, v]) => `${k}: ${v}`),
      `Content-Type: ${contentType}`,
      length,
      '',
      '',
    ].join('\r\n');

  describe('a zip bomb', () => {
    // About 1 MB that inflates to about 1 GB.
    const bomb = zipBomb(1000, { local: 0, central: 1000 });
    const agreeingBomb = zipBomb(1000, { local: 1000, central: 1000 });
    const honestBomb = zipBomb(1000, { local: 1000 * MB, central: 1000 * MB });
    const damaged = 'File is a damaged workbook (its zip headers disagree with each other or with its contents)';

    it('is a real bomb: under the 1 MB upload limit, each of its 1,000 blocks inflating to 1 MB', () => {
      expect(bomb.length).toBeLessThan(MB);
      const data = bomb.subarray(30 + 24, bomb.length - 46 - 24 - 22);
      const block = zlib.deflateRawSync(Buffer.alloc(MB), { finishFlush: zlib.constants.Z_FULL_FLUSH });
      expect(data.length).toBe(1000 * block.length + 2);
      expect(zlib.inflateRawSync(Buffer.concat([block, Buffer.from([0x03, 0x00])])).length).toBe(MB);
      // Far past anything its headers say (inflating all of it takes seconds: stopped at 64 MB here).
      expect(() => zlib.inflateRawSync(data, { maxOutputLength: 64 * MB })).toThrow(RangeError);
    });

    it.each(UPLOAD_ROUTES)('%s refuses it, whichever size its headers declare', async (url, fields) => {
      for (const [bytes, message] of [
        [bomb, damaged],
        [agreeingBomb, damaged],
        [honestBomb, 'File must not unpack to more than 32 MB'],
      ] as const) {
        const res = await post(suite.admin, url, fields, { name: 'targets.xlsx', bytes });
        expect(res.statusCode, url).toBe(400);
        expect(res.json().status.message, url).toBe(message);
        expect(res.json().data).toMatchObject({ field: 'file' });
      }
    });

    it('is refused in the caller’s language', async () => {
      const res = await post(suite.admin, '/api/customer/sms/task/targets/parse', {}, { name: 'targets.xlsx', bytes: bomb }, 'zh-CN');
      expect(res.json().status.message).toBe(translate('zh-CN', 'rules.fileZipHeaders', { field: 'file' }));
    });

    it('over a real socket: refused while /api/health answers meanwhile', async () => {
      const f = await form({}, { name: 'targets.xlsx', bytes: bomb });
      const base = `http://127.0.0.1:${port}`;
      const started = Date.now();
      const upload = fetch(`${base}/api/customer/sms/task/targets/parse`, {
        method: 'POST',
        body: f.payload,
        headers: { ...suite.admin.headers, 'content-type': f.contentType },
      });
      const health = fetch(`${base}/api/health`);
      const [u, h] = await Promise.all([upload, health]);
      expect(h.status).toBe(200);
      expect(((await h.json()) as { data: { status: string } }).data.status).toBe('ok');
      expect(u.status).toBe(400);
      expect(((await u.json()) as { status: { message: string } }).status.message).toBe(damaged);
      // A sanity bound only (inflating the whole gigabyte took seconds): speed itself belongs in benchmarks.
      expect(Date.now() - started).toBeLessThan(10_000);
    });

    it('a normal .xlsx and .csv are still read', async () => {
      const iccid = (await suite.t.db.query<{ iccid: string }>("SELECT iccid FROM sims WHERE org_id = 'org-demo' ORDER BY iccid LIMIT 1")).rows[0].iccid;
      for (const file of [
        { name: 'targets.xlsx', bytes: book([['ICCID'], [iccid]]) },
        { name: 'targets.csv', bytes: Buffer.from(`ICCID\r\n${iccid}\r\n`) },
      ]) {
        const res = await post(suite.admin, '/api/customer/sms/task/targets/parse', {}, file);
        expect(res.statusCode, file.name).toBe(200);
        expect(res.json().data.iccids).toEqual([iccid]);
        const scope = await post(suite.admin, '/api/rule/auto_flow/cube/validation/scope', {}, file);
        expect(scope.statusCode, file.name).toBe(200);
        expect(scope.json().data.count).toBe(1);
      }
    });
  });

  describe('a body past its limit', () => {
    const boundary = 'limit-boundary';
    const contentType = `multipart/form-data; boundary=${boundary}`;
    /** Chunks of 64 KB, `total` bytes in all. */
    function* filler(total: number, first = Buffer.alloc(0)): Generator<Buffer> {
      yield first;
      for (let sent = 0; sent < total; sent += 64 * 1024) yield Buffer.alloc(64 * 1024, 0x41);
    }

    it.each(UPLOAD_ROUTES)('%s answers a declared 50 MB at once, before any of the body is sent, and closes', async (url) => {
      const res = await rawRequest(port, headOf(url, contentType, `Content-Length: ${50 * MB}`));
      expect(res.status).toBe(413);
      expect(res.body.status.message).toBe('The upload is larger than 2 MB: a file may be at most 1 MB.');
      expect(res.headers).toMatch(/^connection: close$/im);
    });

    it('a streamed file answers as soon as it passes 1 MB and the connection closes while the client still sends', async () => {
      const start = Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="targets.csv"\r\nContent-Type: text/csv\r\n\r\nICCID\r\n`,
      );
      const res = await rawRequest(port, headOf('/api/customer/sms/task/targets/parse', contentType, 'Transfer-Encoding: chunked'), {
        chunks: filler(64 * MB, start),
        chunked: true,
      });
      expect(res.status).toBe(400);
      expect(res.body.status.message).toBe('File must be at most 1 MB');
      expect(res.headers).toMatch(/^connection: close$/im);
      expect(res.closedWhileSending).toBe(true);
      expect(res.sentWhenAnswered).toBeLessThan(64 * MB);
    });

    it('a streamed text field answers as soon as the request passes 2 MB, in the caller’s language, and closes', async () => {
      const start = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="content"\r\n\r\n`);
      const head = headOf('/api/main/sms/send', contentType, 'Transfer-Encoding: chunked').replace('language: en-US', 'language: es-ES');
      const res = await rawRequest(port, head, { chunks: filler(64 * MB, start), chunked: true });
      expect(res.status).toBe(413);
      expect(res.body.status.message).toBe('La subida supera 2 MB: un archivo puede ocupar como máximo 1 MB.');
      expect(res.closedWhileSending).toBe(true);
      expect(res.sentWhenAnswered).toBeLessThan(64 * MB);
    });

    it('a file of exactly 1 MB in a request within the limit is still taken', async () => {
      const res = await post(
        suite.admin,
        '/api/customer/sms/task/targets/parse',
        {},
        { name: 'targets.csv', bytes: Buffer.concat([Buffer.from('ICCID\r\n'), Buffer.alloc(MB - 7, 0x20)]) },
      );
      // Read, not refused for its size: it has no ICCIDs under its header.
      expect(res.json().status.message).not.toMatch(/1 MB|2 MB/);
      expect(res.statusCode).toBe(400);
    });
  });
});
