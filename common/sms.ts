/**
 * What an SMS may carry (SPEC.md sections 5 and 9: text up to 140 characters; "content does not comply"). Pure, so the
 * console's live counter and the server's check are the same function (docs/decisions.md, "SMS content rules").
 *
 * - Text is sent in the GSM 7-bit default alphabet (3GPP TS 23.038) when every character is in it or its extension
 *   table, otherwise in UCS-2, which carries every character of Unicode's Basic Multilingual Plane. What neither can
 *   carry is refused: characters beyond the BMP (emoji such as 😀, which need UTF-16 surrogate pairs that UCS-2 does not
 *   have), lone surrogates, and control characters other than line feed and carriage return.
 * - Text counts characters (code points), at most 140 whatever the encoding; how the network splits a long UCS-2 text
 *   into concatenated parts is the network's business.
 * - Binary is written as hexadecimal digits in pairs (spaces between them are ignored), at most 140 octets, and stored
 *   in upper case.
 * - Empty (or only blanks) is refused for both.
 */
import { LIMITS } from './limits.js';

export const SMS_TYPES = ['text', 'binary'] as const;
export type SmsType = (typeof SMS_TYPES)[number];

/** Why content does not comply; each has a message under errors.sms.content.<rule> in common/locales. */
export type SmsContentRule = 'empty' | 'tooLong' | 'notHex' | 'alphabet';

export type SmsEncoding = 'gsm7' | 'ucs2' | 'binary';

export type SmsContentCheck =
  | { ok: true; content: string; encoding: SmsEncoding; length: number; limit: number }
  | { ok: false; rule: SmsContentRule; length: number; limit: number; /** the characters that cannot be carried (alphabet) */ offenders?: string[] };

/** The GSM 7-bit default alphabet (3GPP TS 23.038 §6.2.1), without the escape to the extension table. */
const GSM7_BASIC = '@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ !"#¤%&\'()*+,-./0123456789:;<=>?¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§¿abcdefghijklmnopqrstuvwxyzäöñüà';
/** Its extension table (reached through the escape): one character each, two septets on the air. */
const GSM7_EXTENSION = '\f^{}\\[~]|€';
const GSM7 = new Set([...GSM7_BASIC, ...GSM7_EXTENSION]);

/** A code point neither GSM 7-bit nor UCS-2 can carry. */
function uncarriable(ch: string): boolean {
  const cp = ch.codePointAt(0)!;
  if (cp > 0xffff) return true;
  if (cp >= 0xd800 && cp <= 0xdfff) return true;
  if (ch === '\n' || ch === '\r') return false;
  return cp < 0x20 || (cp >= 0x7f && cp < 0xa0);
}

/** Binary content as the server stores it: hex digits without blanks, upper case. */
export const normaliseHex = (content: string): string => content.replace(/\s+/g, '').toUpperCase();

/** The length the counter shows: characters of text, octets of binary (an odd trailing digit counts as an octet). */
export function smsLength(content: string, type: SmsType): number {
  return type === 'binary' ? Math.ceil(normaliseHex(content).length / 2) : [...content].length;
}

/** The limit of a type: 140 characters of text or 140 octets of binary. */
export const smsLimit = (type: SmsType): number => (type === 'binary' ? LIMITS.smsBinaryOctets : LIMITS.smsText);

/** Check content of a type: the content to store and its encoding, or the rule it breaks. */
export function checkSmsContent(content: string, type: SmsType): SmsContentCheck {
  const limit = smsLimit(type);
  if (type === 'binary') {
    const hex = normaliseHex(content);
    const length = Math.ceil(hex.length / 2);
    if (hex.length === 0) return { ok: false, rule: 'empty', length, limit };
    if (!/^[0-9A-F]+$/.test(hex) || hex.length % 2 !== 0) return { ok: false, rule: 'notHex', length, limit };
    if (length > limit) return { ok: false, rule: 'tooLong', length, limit };
    return { ok: true, content: hex, encoding: 'binary', length, limit };
  }
  const chars = [...content];
  const length = chars.length;
  if (content.trim().length === 0) return { ok: false, rule: 'empty', length, limit };
  if (length > limit) return { ok: false, rule: 'tooLong', length, limit };
  const offenders = [...new Set(chars.filter(uncarriable))];
  if (offenders.length) return { ok: false, rule: 'alphabet', length, limit, offenders };
  return { ok: true, content, encoding: chars.every((c) => GSM7.has(c)) ? 'gsm7' : 'ucs2', length, limit };
}

/**
 * A character as a person can read it in a message: printable ones as they are, the others (controls, lone
 * surrogates) as U+XXXX.
 */
export function showCharacter(ch: string): string {
  const cp = ch.codePointAt(0)!;
  const printable = cp > 0xffff || !(cp < 0x20 || (cp >= 0x7f && cp < 0xa0) || (cp >= 0xd800 && cp <= 0xdfff));
  return printable ? ch : `U+${cp.toString(16).toUpperCase().padStart(4, '0')}`;
}

/** SIM states that can receive an SMS; inactive, paused (suspended), expired and terminated SIMs cannot. */
export const SMS_RECEIVING_STATUSES: readonly string[] = ['pre_activated', 'active'];

/** Why one SIM of a send is refused; each has a message under errors.sms.refusal.<reason> in common/locales. */
export type SmsRefusal = 'notExist' | 'notExistMsisdn' | 'inactive' | 'paused' | 'expired' | 'terminated' | 'quotaExhausted' | 'network' | 'duplicate';
