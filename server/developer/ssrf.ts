/**
 * Where a webhook may go (SSRF): HTTPS only, to a host whose every address is public. Loopback, private,
 * shared (CGNAT), link-local (cloud metadata at 169.254.169.254 among them), multicast, reserved and documentation
 * ranges are refused, in IPv4 and IPv6, also when an IPv6 address carries a refused IPv4 one (IPv4-compatible,
 * IPv4-mapped and SIIT, NAT64 and its local-use prefix, 6to4: embeddedIpv4 below). Checked when a URL is saved and
 * again before every delivery, whose connection then goes to the address checked (a name that resolves elsewhere a
 * moment later is not followed). WEBHOOK_ALLOW_PRIVATE lifts the address rule for tests (`true`: for every host; a list of
 * host names: for those names only, so a literal private address is still refused); production refuses it.
 */
import { lookup } from 'node:dns/promises';
import net from 'node:net';

const BLOCKED = new net.BlockList();
for (const [prefix, bits] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const)
  BLOCKED.addSubnet(prefix, bits, 'ipv4');
for (const [prefix, bits] of [
  ['::', 128],
  ['::1', 128],
  ['100::', 64],
  ['2001::', 23],
  ['2001:db8::', 32],
  ['fc00::', 7],
  ['fe80::', 10],
  ['fec0::', 10],
  ['ff00::', 8],
] as const)
  BLOCKED.addSubnet(prefix, bits, 'ipv6');

/** The eight 16-bit groups of an IPv6 address (a trailing dotted IPv4 and a zone id allowed), or null. */
export function ipv6Groups(address: string): number[] | null {
  let text = address.replace(/%.*$/, '').toLowerCase();
  if (net.isIP(text) !== 6) return null;
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number);
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.includes('::') ? text.split('::') : [text, undefined];
  const part = (s: string | undefined) => (s ? s.split(':').map((g) => parseInt(g, 16)) : []);
  const left = part(head);
  const right = part(tail);
  const groups = tail === undefined ? left : [...left, ...Array<number>(8 - left.length - right.length).fill(0), ...right];
  return groups.length === 8 ? groups : null;
}

const v4Of = (hi: number, lo: number) => `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
const zero = (groups: number[], from: number, to: number) => groups.slice(from, to).every((g) => g === 0);

/**
 * The IPv4 addresses an IPv6 address stands for, when it is one of the forms that carry one: IPv4-compatible ::/96,
 * IPv4-mapped ::ffff:0:0/96, the SIIT form ::ffff:0:0:0/96, NAT64 64:ff9b::/96, 6to4 2002::/16 (the IPv4 in bits
 * 16-47), and the local-use NAT64 prefix 64:ff9b:1::/48. In that one the IPv4 sits where RFC 6052 puts it for the
 * prefix length the network chose (48, 56, 64 or 96 bits), so every placement that fits is returned: the 96-bit one
 * always, a shorter one when the bits after its IPv4 (the suffix) are zero. Bits 64-71 of such an address must be zero;
 * one that breaks that rule yields 0.0.0.0, so it is refused (the prefix is never globally reachable anyway). Null for
 * any other address.
 */
export function embeddedIpv4(groups: number[]): string[] | null {
  const [g0, g1, g2, , g4, g5, g6, g7] = groups;
  if (zero(groups, 0, 6)) return [v4Of(g6, g7)];
  if (zero(groups, 0, 5) && g5 === 0xffff) return [v4Of(g6, g7)];
  if (zero(groups, 0, 4) && g4 === 0xffff && g5 === 0) return [v4Of(g6, g7)];
  if (g0 === 0x64 && g1 === 0xff9b && zero(groups, 2, 6)) return [v4Of(g6, g7)];
  if (g0 === 0x2002) return [v4Of(g1, g2)];
  if (g0 === 0x64 && g1 === 0xff9b && g2 === 1) {
    // The address's bytes; 0-5 are the /48 prefix.
    const b = groups.flatMap((g) => [g >> 8, g & 255]);
    if (b[8] !== 0) return ['0.0.0.0'];
    const v4 = (idx: number[]) => idx.map((i) => b[i]).join('.');
    const zeroFrom = (i: number) => b.slice(i).every((x) => x === 0);
    const found = [v4([12, 13, 14, 15])];
    if (zeroFrom(13)) found.push(v4([9, 10, 11, 12]));
    if (zeroFrom(12)) found.push(v4([7, 9, 10, 11]));
    if (zeroFrom(11)) found.push(v4([6, 7, 9, 10]));
    return found;
  }
  return null;
}

/** Is this address one a webhook may not reach? An IPv6 form that carries an IPv4 one is judged by that IPv4. */
export function isPrivateAddress(address: string): boolean {
  const family = net.isIP(address.replace(/%.*$/, ''));
  if (family === 4) return BLOCKED.check(address, 'ipv4');
  if (family === 6) {
    const groups = ipv6Groups(address);
    if (!groups) return true;
    const v4 = embeddedIpv4(groups);
    if (v4) return v4.some((a) => BLOCKED.check(a, 'ipv4'));
    return BLOCKED.check(address.replace(/%.*$/, ''), 'ipv6');
  }
  return true;
}

export type UrlProblem = 'invalid' | 'notHttps' | 'privateAddress' | 'unresolvable';

export interface CheckedTarget {
  url: URL;
  /** Every address of the host, each checked; the connection tries them in turn (IPv6 and IPv4 alike). */
  addresses: Array<{ address: string; family: 4 | 6 }>;
}

/** The URL's form alone: a full https URL with a host, no user and password, at most 2,048 characters. */
export function urlFormProblem(raw: string): UrlProblem | null {
  if (raw.length > 2048) return 'invalid';
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'invalid';
  }
  if (url.protocol !== 'https:') return 'notHttps';
  if (!url.hostname || url.username || url.password) return 'invalid';
  return null;
}

/** Which hosts may resolve to private addresses: none (production), every one, or the names listed (tests). */
export type PrivateAllowance = boolean | readonly string[];

/** WEBHOOK_ALLOW_PRIVATE: unset or `false` none, `true` every host, otherwise a comma-separated list of host names. */
export function privateAllowanceOf(raw: string | undefined): PrivateAllowance {
  if (raw === undefined || raw.trim() === '' || raw === 'false') return false;
  if (raw === 'true') return true;
  return raw
    .split(',')
    .map((h) => h.trim().toLowerCase())
    .filter(Boolean);
}

const allowsPrivate = (allowance: PrivateAllowance, host: string): boolean =>
  allowance === true || (Array.isArray(allowance) && allowance.includes(host.toLowerCase()));

/** Resolve the URL's host and check every address: the delivery connects only to those. */
export async function checkTarget(
  raw: string,
  allowPrivate: PrivateAllowance,
): Promise<{ ok: true; target: CheckedTarget } | { ok: false; problem: UrlProblem }> {
  const form = urlFormProblem(raw);
  if (form) return { ok: false, problem: form };
  const url = new URL(raw);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  let addresses: { address: string; family: number }[];
  try {
    addresses = net.isIP(host) ? [{ address: host, family: net.isIP(host) }] : await lookup(host, { all: true, verbatim: true });
  } catch {
    return { ok: false, problem: 'unresolvable' };
  }
  if (!addresses.length) return { ok: false, problem: 'unresolvable' };
  if (!allowsPrivate(allowPrivate, host) && addresses.some((a) => isPrivateAddress(a.address))) return { ok: false, problem: 'privateAddress' };
  return { ok: true, target: { url, addresses: addresses.map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 })) } };
}
