/**
 * Identifiers of a SIM and its device (ARCHITECTURE.md "Domain facts"): ICCID (ITU-T E.118), IMEI, IMSI, MSISDN.
 * Plain string checks, no Node-only API, so the console and the server share them.
 */

const DIGITS = /^[0-9]+$/;

/** The Luhn check digit (0-9) for a string of digits that does not yet carry one. */
export function luhnCheckDigit(digits: string): number {
  if (!DIGITS.test(digits)) throw new Error('luhnCheckDigit needs digits only');
  let sum = 0;
  // Walk from the right: the digit next to the (future) check digit is doubled.
  for (let i = digits.length - 1, double = true; i >= 0; i--, double = !double) {
    let d = digits.charCodeAt(i) - 48;
    if (double) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return (10 - (sum % 10)) % 10;
}

/** True when the last digit of a digit string is the Luhn check digit of the rest. */
export function hasValidLuhn(digits: string): boolean {
  if (digits.length < 2 || !DIGITS.test(digits)) return false;
  return luhnCheckDigit(digits.slice(0, -1)) === digits.charCodeAt(digits.length - 1) - 48;
}

/**
 * An ICCID's shape as a JSON-schema pattern: 19 or 20 digits starting with 89. Anchored at both ends with bounded
 * repetition (the input guard's rule). The schemas in schemas/*.json write it out; tests/unit/iccid.test.ts holds
 * them to this one.
 */
export const ICCID_PATTERN = '^89[0-9]{17,18}$';
const ICCID_SHAPE = new RegExp(ICCID_PATTERN);

/** ICCID: 19 or 20 digits, starting with 89 (telecom), the last a Luhn check digit (ITU-T E.118). */
export function isValidIccid(value: string): boolean {
  return ICCID_SHAPE.test(value) && hasValidLuhn(value);
}

/** IMEI: 15 digits, the last a Luhn check digit over the first 14. */
export function isValidImei(value: string): boolean {
  return /^[0-9]{15}$/.test(value) && hasValidLuhn(value);
}

/** IMSI: 15 digits (MCC 3 + MNC 2-3 + MSIN). */
export function isValidImsi(value: string): boolean {
  return /^[0-9]{15}$/.test(value);
}

/** MSISDN: E.164 digits with the country code and no plus, up to 15 digits, never starting with 0. */
export function isValidMsisdn(value: string): boolean {
  return /^[1-9][0-9]{5,14}$/.test(value);
}

/** Build a valid ICCID: prefix (starting with 89), the serial zero-padded to fill length-1 digits, then the check digit. */
export function makeIccid(prefix: string, serial: number | bigint | string, length: 19 | 20 = 20): string {
  const body = prefix + String(serial).padStart(length - 1 - prefix.length, '0');
  if (!/^89[0-9]+$/.test(body) || body.length !== length - 1) throw new Error(`cannot make a ${length}-digit ICCID from ${prefix} and ${serial}`);
  return body + luhnCheckDigit(body);
}

/** Build a valid IMEI from an 8-digit TAC and a serial (6 digits), adding the check digit. */
export function makeImei(tac: string, serial: number): string {
  const body = tac + String(serial).padStart(14 - tac.length, '0');
  if (!/^[0-9]{14}$/.test(body)) throw new Error(`cannot make an IMEI from ${tac} and ${serial}`);
  return body + luhnCheckDigit(body);
}
