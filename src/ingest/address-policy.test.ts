/** The address rule book of the SSRF guard (pure; the fetcher tests cover it end to end). */
import { describe, expect, it } from 'vitest';
import { AllowListError, createAddressPolicy, METADATA_ADDRESSES } from './address-policy.ts';

describe('createAddressPolicy', () => {
  const strict = createAddressPolicy([]);

  it.each(['8.8.8.8', '151.101.1.140', '2001:4860:4860::8888', '2606:4700::6810:84e5', '::ffff:8.8.8.8', '64:ff9b::808:808'])(
    'accepts the public address %s',
    (address) => {
      expect(strict.check(address)).toEqual({ ok: true });
    },
  );

  it.each([
    ['127.0.0.1', 'loopback'],
    ['10.20.30.40', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.0.10', 'private'],
    ['169.254.1.1', 'linkLocal'],
    ['100.64.12.1', 'carrierGradeNat'],
    ['0.0.0.0', 'unspecified'],
    ['255.255.255.255', 'broadcast'],
    ['239.255.255.250', 'multicast'],
    ['198.18.0.1', 'reserved'],
    ['::1', 'loopback'],
    ['::', 'unspecified'],
    ['fe80::1%eth0', 'linkLocal'],
    ['fd12:3456::1', 'uniqueLocal'],
    ['ff02::1', 'multicast'],
    ['::ffff:127.0.0.1', 'ipv4Mapped loopback'],
    ['::ffff:0:10.0.0.1', 'rfc6145 private'],
    ['64:ff9b::a00:1', 'nat64 private'],
    ['::7f00:1', 'ipv4Compatible'],
    ['2001:db8::1', 'reserved'],
    ['2002:a00:1::1', '6to4'],
    ['2001:0:4136:e378::1', 'teredo'],
  ])('refuses %s (%s)', (address, reason) => {
    const verdict = strict.check(address);
    expect(verdict.ok).toBe(false);
    if (!verdict.ok) expect(verdict.reason).toContain(reason);
  });

  it.each(METADATA_ADDRESSES.map((a) => [a]))('refuses the metadata address %s, also in IPv4-mapped form', (address) => {
    expect(strict.check(address).ok).toBe(false);
    if (!address.includes(':')) expect(strict.check(`::ffff:${address}`).ok).toBe(false);
  });

  it('admits what the allow-list names: CIDR blocks, single addresses, IPv4 entries for IPv4-mapped forms', () => {
    const policy = createAddressPolicy(['127.0.0.1/32', '10.0.0.0/8', '::1', ' 192.168.1.7 ']);
    expect(policy.check('127.0.0.1')).toEqual({ ok: true });
    expect(policy.check('::ffff:127.0.0.1')).toEqual({ ok: true });
    expect(policy.check('127.0.0.2').ok).toBe(false);
    expect(policy.check('10.200.1.1')).toEqual({ ok: true });
    expect(policy.check('::1')).toEqual({ ok: true });
    expect(policy.check('192.168.1.7')).toEqual({ ok: true });
    expect(policy.check('192.168.1.8').ok).toBe(false);
  });

  it('re-admits a metadata address only when the allow-list names exactly that address', () => {
    expect(createAddressPolicy(['169.254.0.0/16']).check('169.254.169.254').ok).toBe(false);
    expect(createAddressPolicy(['169.254.0.0/16']).check('169.254.1.1')).toEqual({ ok: true });
    expect(createAddressPolicy(['169.254.169.254/32']).check('169.254.169.254')).toEqual({ ok: true });
  });

  it('refuses text that is not an address, and rejects a malformed allow-list entry', () => {
    expect(strict.check('example.com').ok).toBe(false);
    expect(() => createAddressPolicy(['localhost'])).toThrow(AllowListError);
    expect(() => createAddressPolicy(['10.0.0.0/33'])).toThrow(AllowListError);
  });
});
