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

  describe('IPv6 forms that embed IPv4 are judged as the IPv4 address they reach', () => {
    // Every spelling of the metadata address 169.254.169.254 (a9fe:a9fe) and of loopback 127.0.0.1.
    const metadata = [
      ['::ffff:169.254.169.254', 'IPv4-mapped (RFC 4291)'],
      ['::ffff:a9fe:a9fe', 'IPv4-mapped, hex'],
      ['::ffff:0:a9fe:a9fe', 'IPv4-translated (RFC 6145)'],
      ['64:ff9b::a9fe:a9fe', 'NAT64 well-known prefix (RFC 6052)'],
      ['64:ff9b::169.254.169.254', 'NAT64, dotted'],
      ['64:ff9b:1::a9fe:a9fe', 'NAT64 local-use /96 (RFC 8215)'],
      ['64:ff9b:1:a9fe:a9:fe00::', 'NAT64 local-use /48 layout'],
      ['::a9fe:a9fe', 'IPv4-compatible (deprecated)'],
      ['2002:a9fe:a9fe::1', '6to4 (RFC 3056)'],
      ['2001:0:a9fe:a9fe::1', 'Teredo server (RFC 4380)'],
      ['2001:0:808:808::5601:5601', 'Teredo client, obfuscated'],
    ];
    // The broad allow-lists an operator might write: all IPv6, the embedding prefixes, all IPv4.
    const broad = createAddressPolicy(['::/0', '64:ff9b::/96', '64:ff9b:1::/48', '2002::/16', '2001::/32', '0.0.0.0/0']);

    it.each(metadata)('refuses %s (%s) as the metadata address, even under a broad allow-list', (address) => {
      for (const policy of [strict, broad]) {
        const verdict = policy.check(address, 80);
        expect(verdict.ok, address).toBe(false);
        if (!verdict.ok) expect(verdict.reason).toContain('cloud metadata');
      }
    });

    it('re-admits an embedded metadata address only through an entry naming the IPv4 address exactly', () => {
      const named = createAddressPolicy(['169.254.169.254']);
      expect(named.check('64:ff9b::a9fe:a9fe', 80)).toEqual({ ok: true });
      expect(named.check('::ffff:0:a9fe:a9fe', 80)).toEqual({ ok: true });
      // A tunnel form stays refused: no job source is reached through 6to4.
      expect(named.check('2002:a9fe:a9fe::1', 80).ok).toBe(false);
    });

    it.each([
      ['64:ff9b::7f00:1', 'nat64 loopback'],
      ['::ffff:0:7f00:1', 'rfc6145 loopback'],
      ['64:ff9b:1::7f00:1', 'nat64Local'],
      ['2002:7f00:1::', '6to4 loopback'],
      ['2002:c0a8:101::1', '6to4 private'],
      ['::10.0.0.1', 'ipv4Compatible private'],
    ])('refuses %s (%s) under an IPv6-only allow-list', (address, reason) => {
      const v6only = createAddressPolicy(['::/0', '64:ff9b::/96', '2002::/16']);
      const verdict = v6only.check(address, 80);
      expect(verdict.ok).toBe(false);
      if (!verdict.ok) expect(verdict.reason).toContain(reason);
    });

    it('admits a NAT64 or mapped form of an allow-listed IPv4 address, and public NAT64 targets', () => {
      const policy = createAddressPolicy(['10.0.0.0/8']);
      expect(policy.check('64:ff9b::a00:5', 443)).toEqual({ ok: true });
      expect(policy.check('::ffff:10.0.0.5', 443)).toEqual({ ok: true });
      expect(strict.check('64:ff9b::808:808', 443)).toEqual({ ok: true });
      // ::1 and :: are loopback and unspecified, not IPv4-compatible forms of 0.0.0.1 and 0.0.0.0.
      expect(createAddressPolicy(['::1']).check('::1', 80)).toEqual({ ok: true });
    });

    it('refuses a 6to4 or Teredo address even when the IPv4 it carries is public', () => {
      for (const address of ['2002:808:808::1', '2001:0:808:808::f7f7:f7f7']) {
        const verdict = strict.check(address, 443);
        expect(verdict.ok).toBe(false);
        if (!verdict.ok) expect(verdict.reason).toMatch(/6to4|teredo/);
      }
    });
  });

  describe('allow-list entries with a port', () => {
    const policy = createAddressPolicy(['127.0.0.1:8443', '[::1]:9000', '10.0.0.0/8:443', '[fd00::/8]:8080', '192.168.0.0/16']);

    it('admit the address on that port only', () => {
      expect(policy.check('127.0.0.1', 8443)).toEqual({ ok: true });
      expect(policy.check('::ffff:127.0.0.1', 8443)).toEqual({ ok: true });
      expect(policy.check('::1', 9000)).toEqual({ ok: true });
      expect(policy.check('10.9.8.7', 443)).toEqual({ ok: true });
      expect(policy.check('fd00::5', 8080)).toEqual({ ok: true });
      for (const [address, port] of [['127.0.0.1', 6379], ['::1', 22], ['10.9.8.7', 80], ['fd00::5', 5432], ['127.0.0.1', undefined]] as const) {
        const verdict = policy.check(address, port);
        expect(verdict.ok, `${address}:${port}`).toBe(false);
        if (!verdict.ok && port !== undefined) expect(verdict.reason).toContain(`other ports, not ${port}`);
      }
    });

    it('admit any port for an entry without one, as before', () => {
      expect(policy.check('192.168.44.1', 1)).toEqual({ ok: true });
      expect(policy.check('192.168.44.1', 65535)).toEqual({ ok: true });
    });

    it('refuse a malformed port', () => {
      for (const entry of ['127.0.0.1:0', '127.0.0.1:65536', '127.0.0.1:http', '[::1]:', '[::1]:-1', 'localhost:80']) {
        expect(() => createAddressPolicy([entry]), entry).toThrow(AllowListError);
      }
    });
  });
});
