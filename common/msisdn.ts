/**
 * A subscriber number in international format without the plus (SPEC.md section 5): an ITU-T E.164 country calling
 * code followed by the national number, at most 15 digits in all. Country calling codes are prefix-free, so the code
 * of a number is the one of its first 1, 2 or 3 digits that is assigned. The per-country national lengths are not
 * checked: IoT numbers (M2M ranges, the international networks 881-883) are often longer than a country's usual
 * mobile numbers, and the network is the judge of whether a number exists.
 */

/** Assigned country calling codes (ITU-T E.164, its list of assigned codes), including the international networks. */
const CODES = new Set(
  (
    '1 7 20 27 30 31 32 33 34 36 39 40 41 43 44 45 46 47 48 49 51 52 53 54 55 56 57 58 60 61 62 63 64 65 66 81 82 84 86 ' +
    '90 91 92 93 94 95 98 211 212 213 216 218 220 221 222 223 224 225 226 227 228 229 230 231 232 233 234 235 236 237 ' +
    '238 239 240 241 242 243 244 245 246 247 248 249 250 251 252 253 254 255 256 257 258 260 261 262 263 264 265 266 ' +
    '267 268 269 290 291 297 298 299 350 351 352 353 354 355 356 357 358 359 370 371 372 373 374 375 376 377 378 379 ' +
    '380 381 382 383 385 386 387 389 420 421 423 500 501 502 503 504 505 506 507 508 509 590 591 592 593 594 595 596 ' +
    '597 598 599 670 672 673 674 675 676 677 678 679 680 681 682 683 685 686 687 688 689 690 691 692 800 808 850 852 ' +
    '853 855 856 870 878 880 881 882 883 886 888 960 961 962 963 964 965 966 967 968 970 971 972 973 974 975 976 977 ' +
    '979 992 993 994 995 996 998'
  ).split(' '),
);

/** E.164: at most 15 digits with the country code. */
export const MSISDN_MAX_DIGITS = 15;
/** The shortest national number accepted after the country code. */
export const MSISDN_MIN_NATIONAL = 4;

/** Why a number is refused; each has a message under rules.msisdn.<rule> in common/locales. */
export type MsisdnRule = 'format' | 'countryCode' | 'length';

/** The country calling code a number starts with, if any. */
export function countryCallingCode(digits: string): string | null {
  for (const n of [1, 2, 3]) if (CODES.has(digits.slice(0, n))) return digits.slice(0, n);
  return null;
}

/** Check a number: its country code, or the rule it breaks. */
export function checkMsisdn(value: string): { ok: true; countryCode: string } | { ok: false; rule: MsisdnRule } {
  if (!/^[0-9]+$/.test(value) || value.startsWith('0')) return { ok: false, rule: 'format' };
  const cc = countryCallingCode(value);
  if (!cc) return { ok: false, rule: 'countryCode' };
  if (value.length > MSISDN_MAX_DIGITS || value.length - cc.length < MSISDN_MIN_NATIONAL) return { ok: false, rule: 'length' };
  return { ok: true, countryCode: cc };
}
