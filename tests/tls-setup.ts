/** Vitest global set-up: the tests' HTTPS receivers get a certificate the test workers trust (tests/test-tls.ts). */
import { trustTestTls } from './test-tls.js';

export default function setup(): void {
  trustTestTls('.tmp/test-tls');
}
