/**
 * A self-signed certificate for the tests' own HTTPS receivers (webhooks), made with openssl for localhost and
 * 127.0.0.1, and trusted through NODE_EXTRA_CA_CERTS, which every process started afterwards reads when it starts (the
 * vitest workers, the end-to-end servers). The server verifies certificates as it does in production.
 */
import fs from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { makeSelfSignedCertificate, trustedWith } from '../scripts/self-signed.js';

/** Whether a process of this id is alive (signal 0 checks without sending; EPERM means it is, under another user). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Makes the certificate in a directory of its own under `relativeBase` (named by this process's id, unique by
 * mkdtemp), points NODE_EXTRA_CA_CERTS and TEST_TLS_DIR of this process at it, and returns it with its removal. Two
 * runs in one checkout (two vitest runs, or vitest beside Playwright) each trust and serve their own key: a shared
 * directory let one run's certificate replace the other's under its running workers. Directories left by runs that
 * died (their process gone) are removed here.
 */
export function trustTestTls(relativeBase: string): { dir: string; remove: () => void } {
  const base = path.resolve(relativeBase);
  fs.mkdirSync(base, { recursive: true });
  for (const entry of fs.readdirSync(base)) {
    const pid = /^(\d+)-/.exec(entry)?.[1];
    if (pid && Number(pid) !== process.pid && !alive(Number(pid))) fs.rmSync(path.join(base, entry), { recursive: true, force: true });
  }
  const dir = fs.mkdtempSync(path.join(base, `${process.pid}-`));
  const { cert } = makeSelfSignedCertificate(dir);
  process.env.NODE_EXTRA_CA_CERTS = trustedWith(dir, cert);
  process.env.TEST_TLS_DIR = dir;
  return { dir, remove: () => fs.rmSync(dir, { recursive: true, force: true }) };
}

export interface Received {
  headers: Record<string, string>;
  body: string;
}

/**
 * An HTTPS receiver on 127.0.0.1 with the certificate trustTestTls made (named as localhost, as a customer's host
 * would be): it keeps what it is sent and answers each request with the next status of `answer` (then `status`,
 * 200 unless told), or not at all while hung up.
 */
export async function httpsReceiver(opts: { status?: number } = {}) {
  const dir = process.env.TEST_TLS_DIR;
  if (!dir) throw new Error('httpsReceiver: call trustTestTls first (the suites do it in their global setup)');
  const received: Received[] = [];
  let answers: number[] = [];
  let hang = false;
  const server = https.createServer({ key: fs.readFileSync(path.join(dir, 'key.pem')), cert: fs.readFileSync(path.join(dir, 'cert.pem')) }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ headers: req.headers as Record<string, string>, body: Buffer.concat(chunks).toString('utf8') });
      if (hang) return;
      const status = answers.shift() ?? opts.status ?? 200;
      res.writeHead(status, { 'content-type': 'text/plain' }).end(status < 300 ? 'thanks' : 'receiver error');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `https://localhost:${(server.address() as AddressInfo).port}/hook`,
    received,
    answer: (codes: number[]) => void (answers = [...codes]),
    hangUp: (on: boolean) => void (hang = on),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
