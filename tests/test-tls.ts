/**
 * A self-signed certificate for the tests' own HTTPS receivers (webhooks), made with openssl for localhost and
 * 127.0.0.1, and trusted through NODE_EXTRA_CA_CERTS, which every process started afterwards reads when it starts (the
 * vitest workers, the end-to-end servers). The server verifies certificates as it does in production.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

/** Makes the certificate in dir, points NODE_EXTRA_CA_CERTS and TEST_TLS_DIR of this process at it, returns dir. */
export function trustTestTls(relativeDir: string): string {
  const dir = path.resolve(relativeDir);
  fs.mkdirSync(dir, { recursive: true });
  const key = path.join(dir, 'key.pem');
  const cert = path.join(dir, 'cert.pem');
  execFileSync('openssl', [
    'req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-sha256', '-days', '2', '-subj', '/CN=localhost',
    '-addext', 'subjectAltName=DNS:localhost,IP:127.0.0.1', '-keyout', key, '-out', cert,
  ], { stdio: 'ignore' });
  // NODE_EXTRA_CA_CERTS names one file: the certificates it named already (this machine sets it), then ours.
  const trusted = path.join(dir, 'trusted.pem');
  const before = process.env.NODE_EXTRA_CA_CERTS;
  const extra = before && path.resolve(before) !== trusted && fs.existsSync(before) ? fs.readFileSync(before, 'utf8') : '';
  fs.writeFileSync(trusted, `${extra.trimEnd()}\n${fs.readFileSync(cert, 'utf8')}`);
  process.env.NODE_EXTRA_CA_CERTS = trusted;
  process.env.TEST_TLS_DIR = dir;
  return dir;
}
