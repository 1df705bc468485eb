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
  process.env.NODE_EXTRA_CA_CERTS = cert;
  process.env.TEST_TLS_DIR = dir;
}
