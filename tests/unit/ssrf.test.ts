/**
 * The webhook address check over the IPv6 forms that carry an IPv4 address: each is judged by the IPv4 inside, as a
 * literal in the URL (checked at save and before every delivery) and as a DNS answer would give it.
 */
import { describe, expect, it } from 'vitest';
import { checkTarget, ipv6Groups, isPrivateAddress } from '../../server/developer/ssrf.js';

describe('IPv6 addresses that carry an IPv4 one', () => {
  it('reads every way of writing an IPv6 address into its eight groups', () => {
    expect(ipv6Groups('::7f00:1')).toEqual([0, 0, 0, 0, 0, 0, 0x7f00, 1]);
    expect(ipv6Groups('::127.0.0.1')).toEqual([0, 0, 0, 0, 0, 0, 0x7f00, 1]);
    expect(ipv6Groups('::ffff:0:127.0.0.1')).toEqual([0, 0, 0, 0, 0xffff, 0, 0x7f00, 1]);
    expect(ipv6Groups('2002:7f00:1::')).toEqual([0x2002, 0x7f00, 1, 0, 0, 0, 0, 0]);
    expect(ipv6Groups('fe80::1%eth0')).toEqual([0xfe80, 0, 0, 0, 0, 0, 0, 1]);
    expect(ipv6Groups('2606:4700:4700:0:0:0:0:1111')).toEqual([0x2606, 0x4700, 0x4700, 0, 0, 0, 0, 0x1111]);
    expect(ipv6Groups('127.0.0.1')).toBeNull();
    expect(ipv6Groups('not an address')).toBeNull();
  });

  // Each form with a refused IPv4 inside (loopback, private, link-local metadata, CGNAT) and with a public one.
  const refused: Array<[string, string]> = [
    ['IPv4-compatible, as the URL parser stores [::127.0.0.1]', '::7f00:1'],
    ['IPv4-compatible, dotted', '::127.0.0.1'],
    ['IPv4-compatible, private', '::10.0.0.1'],
    ['IPv4-mapped', '::ffff:127.0.0.1'],
    ['IPv4-mapped, hex', '::ffff:a9fe:a9fe'],
    ['IPv4-mapped, written out', '0:0:0:0:0:ffff:c0a8:101'],
    ['SIIT ::ffff:0:0:0/96, dotted', '::ffff:0:127.0.0.1'],
    ['SIIT, as the URL parser stores it', '::ffff:0:7f00:1'],
    ['NAT64 64:ff9b::/96', '64:ff9b::7f00:1'],
    ['NAT64, dotted', '64:ff9b::169.254.169.254'],
    ['NAT64 local use /96', '64:ff9b:1::a00:1'],
    ['NAT64 local use /64', '64:ff9b:1:0:7f:0:100:0'],
    ['NAT64 local use /48', '64:ff9b:1:7f00:0:100::'],
    ['NAT64 local use with bits 64-71 set', '64:ff9b:1:0:ff00::808:808'],
    ['6to4 of loopback', '2002:7f00:1::'],
    ['6to4 of a private network, with a subnet and host', '2002:c0a8:101:5::1'],
    ['6to4 of CGNAT', '2002:6440:1::'],
    ['the unspecified address', '::'],
    ['loopback', '::1'],
  ];
  it.each(refused)('refuses %s (%s)', (_, address) => {
    expect(isPrivateAddress(address)).toBe(true);
  });

  const allowed: Array<[string, string]> = [
    ['IPv4-mapped public', '::ffff:8.8.8.8'],
    ['SIIT public', '::ffff:0:808:808'],
    ['NAT64 public', '64:ff9b::808:808'],
    ['NAT64 local use /96, public', '64:ff9b:1::808:808'],
    ['NAT64 local use /96 under a chosen prefix, public', '64:ff9b:1:abcd::808:808'],
    ['6to4 public', '2002:808:808::1'],
    ['a global address', '2606:4700:4700::1111'],
  ];
  it.each(allowed)('allows %s (%s)', (_, address) => {
    expect(isPrivateAddress(address)).toBe(false);
  });

  it('refuses the same forms written into a webhook URL, as at save and before each delivery', async () => {
    for (const url of [
      'https://[::127.0.0.1]/',
      'https://[::ffff:0:127.0.0.1]/',
      'https://[2002:7f00:1::]/',
      'https://[64:ff9b:1::7f00:1]/hook',
      'https://[::ffff:169.254.169.254]/',
    ]) {
      expect(await checkTarget(url, false), url).toEqual({ ok: false, problem: 'privateAddress' });
    }
    expect(await checkTarget('https://[2002:808:808::1]/hook', false)).toMatchObject({ ok: true });
  });
});
