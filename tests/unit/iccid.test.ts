import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { hasValidLuhn, ICCID_PATTERN, isValidIccid, isValidImei, isValidImsi, isValidMsisdn, luhnCheckDigit, makeIccid, makeImei } from '../../common/iccid.js';

// 8949020000001000000 + check digit: a 20-digit German ICCID.
const ICCID20 = makeIccid('894902', 1_000_000, 20);
const ICCID19 = makeIccid('894902', 1_000_000, 19);

describe('luhnCheckDigit', () => {
  it('computes the classic example 7992739871 -> 3', () => {
    expect(luhnCheckDigit('7992739871')).toBe(3);
  });

  it('computes the check digit of a known IMEI body', () => {
    expect(luhnCheckDigit('49015420323751')).toBe(8);
  });

  it('refuses non-digits', () => {
    expect(() => luhnCheckDigit('12a4')).toThrow();
  });

  it('agrees with hasValidLuhn on every check digit', () => {
    for (let d = 0; d <= 9; d++) expect(hasValidLuhn(`7992739871${d}`)).toBe(d === 3);
  });
});

describe('isValidIccid', () => {
  it('accepts 19 and 20 digits starting with 89 and a correct check digit', () => {
    expect(ICCID20).toHaveLength(20);
    expect(ICCID19).toHaveLength(19);
    expect(isValidIccid(ICCID20)).toBe(true);
    expect(isValidIccid(ICCID19)).toBe(true);
  });

  it('accepts a real-world shaped ICCID', () => {
    expect(isValidIccid('89014103211118510720')).toBe(true);
  });

  it('refuses 18 digits even with a correct check digit', () => {
    expect(isValidIccid(makeIccidOfLength(18))).toBe(false);
  });

  it('refuses 21 digits even with a correct check digit', () => {
    expect(isValidIccid(makeIccidOfLength(21))).toBe(false);
  });

  it('refuses a wrong check digit', () => {
    const wrong = ICCID20.slice(0, -1) + String((Number(ICCID20.at(-1)) + 1) % 10);
    expect(isValidIccid(wrong)).toBe(false);
  });

  it('refuses a prefix other than 89 even with a correct check digit', () => {
    const body = '8849020000001000000';
    expect(isValidIccid(body + luhnCheckDigit(body))).toBe(false);
  });

  it('refuses letters, spaces and the empty string', () => {
    expect(isValidIccid('8949020000001A000007')).toBe(false);
    expect(isValidIccid(` ${ICCID19}`)).toBe(false);
    expect(isValidIccid('')).toBe(false);
  });
});

// The three number checks, each the same check with its own numbers: what it accepts and what it refuses.
describe.each([
  [
    'isValidImei',
    isValidImei,
    ['15 digits with a correct check digit', ['490154203237518', makeImei('35332011', 42)]],
    ['a wrong check digit, 14 or 16 digits and letters', ['490154203237517', '49015420323751', '4901542032375180', '49015420323751X']],
  ],
  [
    'isValidImsi',
    isValidImsi,
    ['exactly 15 digits', ['262020001000000']],
    ['14 or 16 digits and letters', ['26202000100000', '2620200010000001', '26202000100000A']],
  ],
  [
    'isValidMsisdn',
    isValidMsisdn,
    ['E.164 digits without plus up to 15', ['491511000000', '123456789012345']],
    ['a plus, a leading zero, 16 digits and letters', ['+491511000000', '01511000000', '1234567890123456', '49151ABC0000']],
  ],
] as Array<[string, (v: string) => boolean, [string, string[]], [string, string[]]]>)('%s', (_name, valid, accepts, refuses) => {
  it(`accepts ${accepts[0]}`, () => {
    for (const v of accepts[1]) expect(valid(v), v).toBe(true);
  });

  it(`refuses ${refuses[0]}`, () => {
    for (const v of refuses[1]) expect(valid(v), v).toBe(false);
  });
});

describe('makeIccid', () => {
  it('pads the serial and appends the check digit', () => {
    expect(ICCID20.startsWith('8949020000001000000')).toBe(true);
    expect(hasValidLuhn(ICCID20)).toBe(true);
  });

  it('refuses a serial that does not fit', () => {
    expect(() => makeIccid('894902', '99999999999999', 20)).toThrow();
  });

  it('refuses a prefix that does not start with 89', () => {
    expect(() => makeIccid('123456', 1, 20)).toThrow();
  });
});

/** A Luhn-correct digit string of 89 and the given total length. */
function makeIccidOfLength(length: number): string {
  const body = '89'.padEnd(length - 1, '1');
  return body + luhnCheckDigit(body);
}

describe('ICCID_PATTERN: the shape written once', () => {
  const root = path.resolve(import.meta.dirname, '../..');
  const pattern = ICCID_PATTERN.replace(/[\\^$[\]{}]/g, (c) => `\\${c}`);
  const literal = new RegExp(pattern);

  it('is the shape isValidIccid checks', () => {
    expect(new RegExp(ICCID_PATTERN).test(ICCID20)).toBe(true);
    expect(new RegExp(ICCID_PATTERN).test(ICCID19)).toBe(true);
    expect(new RegExp(ICCID_PATTERN).test(`${ICCID20}0`)).toBe(false);
    expect(new RegExp(ICCID_PATTERN).test(ICCID20.slice(0, 18))).toBe(false);
  });

  it('every schema field named iccid with a pattern uses it', () => {
    const seen: string[] = [];
    const walk = (node: unknown, where: string) => {
      if (!node || typeof node !== 'object') return;
      for (const [k, v] of Object.entries(node)) {
        if (k === 'iccid' && v && typeof v === 'object' && 'pattern' in v) {
          seen.push(where);
          expect((v as { pattern: string }).pattern, where).toBe(ICCID_PATTERN);
        }
        walk(v, `${where}.${k}`);
      }
    };
    for (const f of fs.readdirSync(path.join(root, 'schemas')).filter((n) => n.endsWith('.json')))
      walk(JSON.parse(fs.readFileSync(path.join(root, 'schemas', f), 'utf8')), f);
    expect(seen.length).toBeGreaterThanOrEqual(5);
  });

  it('no source file of the server, the console or common/ writes it out again', () => {
    const found: string[] = [];
    const walk = (dir: string) => {
      for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
        const p = path.join(dir, e.name);
        if (e.isDirectory()) walk(p);
        else if (/\.(ts|tsx)$/.test(e.name) && p !== path.join(root, 'common/iccid.ts')) {
          fs.readFileSync(p, 'utf8')
            .split('\n')
            .forEach((line, i) => {
              // Comments may name it; code uses ICCID_PATTERN.
              if (literal.test(line) && !/^\s*(\/\/|\*|\/\*)/.test(line)) found.push(`${path.relative(root, p)}:${i + 1}`);
            });
        }
      }
    };
    for (const d of ['server', 'src', 'common']) walk(path.join(root, d));
    expect(found).toEqual([]);
  });
});
