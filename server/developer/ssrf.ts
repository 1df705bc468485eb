/**
 * Where a webhook may go (issue 16, SSRF): HTTPS only, to a host whose every address is public. Loopback, private,
 * shared (CGNAT), link-local (cloud metadata at 169.254.169.254 among them), multicast, reserved and documentation
 * ranges are refused, in IPv4 and IPv6, also when written as IPv4-mapped or NAT64 IPv6. Checked when a URL is saved and
 * again before every delivery, whose connection then goes to the address checked (a name that resolves elsewhere a
 * moment later is not followed). WEBHOOK_ALLOW_PRIVATE lifts the address rule for tests (`true`: for every host; a list of
 * host names: for those names only, so a literal private address is still refused); production refuses it.
 */
import { lookup } from 'node:dns/promises';
import net from 'node:net';

const BLOCKED = new net.BlockList();
for (const [prefix, bits] of [
  ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12],
  ['192.0.0.0', 24], ['192.0.2.0', 24], ['192.88.99.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15], ['198.51.100.0', 24],
  ['203.0.113.0', 24], ['224.0.0.0', 4], ['240.0.0.0', 4],
] as const) BLOCKED.addSubnet(prefix, bits, 'ipv4');
for (const [prefix, bits] of [
  ['::', 128], ['::1', 128], ['100::', 64], ['2001::', 23], ['2001:db8::', 32], ['fc00::', 7], ['fe80::', 10], ['fec0::', 10], ['ff00::', 8],
] as const) BLOCKED.addSubnet(prefix, bits, 'ipv6');

/** The IPv4 address an IPv6 address carries (IPv4-mapped ::ffff:a.b.c.d, NAT64 64:ff9b::/96, IPv4-compatible), if any. */
function embeddedIpv4(address: string): string | null {
  const m = /^(?:::ffff:|64:ff9b::|::)(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (m) return m[1];
  const hex = /^(?:::ffff:|64:ff9b::)([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i.exec(address);
  if (!hex) return null;
  const hi = parseInt(hex[1], 16);
  const lo = parseInt(hex[2], 16);
  return `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
}

/** Is this address one a webhook may not reach? */
export function isPrivateAddress(address: string): boolean {
  const family = net.isIP(address);
  if (family === 4) return BLOCKED.check(address, 'ipv4');
  if (family === 6) {
    const v4 = embeddedIpv4(address);
    if (v4) return BLOCKED.check(v4, 'ipv4');
    return BLOCKED.check(address, 'ipv6');
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
  return raw.split(',').map((h) => h.trim().toLowerCase()).filter(Boolean);
}

const allowsPrivate = (allowance: PrivateAllowance, host: string): boolean =>
  allowance === true || (Array.isArray(allowance) && allowance.includes(host.toLowerCase()));

/** Resolve the URL's host and check every address: the delivery connects only to those. */
export async function checkTarget(raw: string, allowPrivate: PrivateAllowance): Promise<{ ok: true; target: CheckedTarget } | { ok: false; problem: UrlProblem }> {
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
