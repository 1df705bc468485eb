/**
 * A self-signed certificate for localhost and 127.0.0.1, made with openssl in `dir` as cert.pem and key.pem: the test
 * suites' HTTPS receivers and servers and the benches' serve with it, a client trusting it through NODE_EXTRA_CA_CERTS.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

export function makeSelfSignedCertificate(dir: string, days = 2): { cert: string; key: string } {
  const cert = path.join(dir, 'cert.pem');
  const key = path.join(dir, 'key.pem');
  const subject = ['-subj', '/CN=localhost', '-addext', 'subjectAltName=DNS:localhost,IP:127.0.0.1'];
  execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-sha256', '-days', String(days), ...subject, '-keyout', key, '-out', cert], {
    stdio: 'ignore',
  });
  return { cert, key };
}

/**
 * A CA file in `dir` for NODE_EXTRA_CA_CERTS, which names one file and is read when a process starts: the certificates
 * it names already (a machine may set it), then `cert`. Answers its path.
 */
export function trustedWith(dir: string, cert: string): string {
  const trusted = path.join(dir, 'trusted.pem');
  const before = process.env.NODE_EXTRA_CA_CERTS;
  const extra = before && fs.existsSync(before) ? fs.readFileSync(before, 'utf8') : '';
  fs.writeFileSync(trusted, `${extra.trimEnd()}\n${fs.readFileSync(cert, 'utf8')}`);
  return trusted;
}
