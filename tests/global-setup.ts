/** Vitest global set-up: the tests' HTTPS receivers get a certificate the test workers trust (tests/test-tls.ts). */
import { trustTestTls } from './test-tls.js';

/** Returns the teardown: the run's certificate directory is removed when the run ends. */
export default function setup(): () => void {
  return trustTestTls('.tmp/test-tls').remove;
}
