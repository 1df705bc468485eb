/**
 * The tests' own certificate (tests/test-tls.ts): each run makes it in a directory of its own, so a second run in the
 * same checkout cannot replace the key that the first run's receivers serve and its workers trust.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { trustTestTls } from '../test-tls.js';

const saved = { NODE_EXTRA_CA_CERTS: process.env.NODE_EXTRA_CA_CERTS, TEST_TLS_DIR: process.env.TEST_TLS_DIR };
const base = fs.mkdtempSync(path.join(os.tmpdir(), 'test-tls-'));

afterEach(() => {
  for (const [k, v] of Object.entries(saved))
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
});

describe('the tests’ certificate', () => {
  it('two runs under one directory keep their own key and certificate, and each removes only its own', () => {
    const first = trustTestTls(base);
    const firstKey = fs.readFileSync(path.join(first.dir, 'key.pem'), 'utf8');
    const firstTrusted = fs.readFileSync(path.join(first.dir, 'trusted.pem'), 'utf8');
    const second = trustTestTls(base);
    expect(second.dir).not.toBe(first.dir);
    expect(fs.readFileSync(path.join(first.dir, 'key.pem'), 'utf8')).toBe(firstKey);
    expect(fs.readFileSync(path.join(first.dir, 'trusted.pem'), 'utf8')).toBe(firstTrusted);
    expect(process.env.TEST_TLS_DIR).toBe(second.dir);
    second.remove();
    expect(fs.existsSync(second.dir)).toBe(false);
    expect(fs.existsSync(path.join(first.dir, 'cert.pem'))).toBe(true);
    first.remove();
    fs.rmSync(base, { recursive: true, force: true });
  });

  it('a directory left by a run whose process is gone is removed by the next run', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'test-tls-'));
    // Process ids are below 2^22 on Linux: this one is never alive.
    const orphan = path.join(dir, '4999999-dead');
    fs.mkdirSync(orphan);
    const run = trustTestTls(dir);
    expect(fs.existsSync(orphan)).toBe(false);
    run.remove();
    fs.rmSync(dir, { recursive: true, force: true });
  });
});
