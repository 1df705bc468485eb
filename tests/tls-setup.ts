/**
 * Vitest global set-up: a self-signed certificate for the tests' own HTTPS receivers (webhooks), made with openssl for
 * localhost and 127.0.0.1, and trusted through NODE_EXTRA_CA_CERTS, which the test workers read when they start (they
 * are started after this runs and inherit its environment). The server verifies certificates as it does in production.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

export default function setup(): void {
  const dir = path.resolve('.tmp/test-tls');
  fs.mkdirSync(dir, { recursive: true });
  const key = path.join(dir, 'key.pem');
  const cert = path.join(dir, 'cert.pem');
  execFileSync('openssl', [
    'req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-sha256', '-days', '2', '-subj', '/CN=localhost',
    '-addext', 'subjectAltName=DNS:localhost,IP:127.0.0.1', '-keyout', key, '-out', cert,
  ], { stdio: 'ignore' });
  // NODE_EXTRA_CA_CERTS names one file: the certificates it named already (this machine sets it), then ours.
  const before = process.env.NODE_EXTRA_CA_CERTS;
  const extra = before && before !== path.join(dir, 'trusted.pem') && fs.existsSync(before) ? fs.readFileSync(before, 'utf8') : '';
  const trusted = path.join(dir, 'trusted.pem');
  fs.writeFileSync(trusted, `${extra.trimEnd()}\n${fs.readFileSync(cert, 'utf8')}`);
  process.env.NODE_EXTRA_CA_CERTS = trusted;
  process.env.TEST_TLS_DIR = dir;
}
