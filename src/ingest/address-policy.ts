/**
 * Which IP addresses outbound fetches may connect to (the SSRF guard's rule book).
 *
 * A connector fetches URLs that come from configuration and from upstream redirects, so a hostile or
 * misconfigured source could point us at the machine itself, the private network or the cloud
 * metadata service. The policy is an allow-list of *public* space rather than a block-list of bad
 * ranges, so an address class nobody thought of is refused by default:
 *
 * - IPv4: only ipaddr.js's `unicast` class is public. That refuses unspecified (0.0.0.0/8), broadcast,
 *   multicast, link-local (169.254/16, includes the metadata address 169.254.169.254), loopback
 *   (127/8), carrier-grade NAT (100.64/10, includes Alibaba's 100.100.100.200), RFC 1918 private,
 *   and the reserved/test/benchmark ranges (192.0.0/24 with Oracle's 192.0.0.192, 198.18/15,
 *   240/4, ...).
 * - IPv6: only global unicast (2000::/3) outside the special ranges ipaddr.js knows (Teredo, 6to4,
 *   documentation, ORCHID, ...). Forms that embed an IPv4 address (IPv4-mapped `::ffff:a.b.c.d`,
 *   RFC 6145 `::ffff:0:a.b.c.d`, NAT64 `64:ff9b::/96`) are judged by the IPv4 address they carry,
 *   so `::ffff:127.0.0.1` is loopback. The deprecated IPv4-compatible block `::/96` is refused.
 * - Cloud metadata endpoints ({@link METADATA_ADDRESSES}) are refused even when a broader allow-list
 *   block covers them; only an allow-list entry naming exactly that address re-admits one.
 *
 * `allow` entries (FetchConfig.allow) are CIDR blocks ("127.0.0.1/32", "10.0.0.0/8", "::1/128") or
 * single addresses; an IPv4 entry also matches the IPv4-mapped IPv6 form of its addresses.
 */
import ipaddr from 'ipaddr.js';

type Address = ipaddr.IPv4 | ipaddr.IPv6;

/**
 * Cloud instance-metadata and host-agent addresses: AWS/GCP/Azure/DigitalOcean 169.254.169.254,
 * AWS IPv6 fd00:ec2::254, Alibaba 100.100.100.200, Oracle 192.0.0.192, Azure wire server
 * 168.63.129.16 (a public address, hence listed explicitly).
 */
export const METADATA_ADDRESSES: readonly string[] = [
  '169.254.169.254',
  'fd00:ec2::254',
  '100.100.100.200',
  '192.0.0.192',
  '168.63.129.16',
];

/** Result of judging one address: `ok`, or refused with a reason fit for an operator's log. */
export type AddressVerdict = { ok: true } | { ok: false; reason: string };

export interface AddressPolicy {
  /** Judge one literal IP address (IPv4 or IPv6, no brackets). A string that is not an IP is refused. */
  check(address: string): AddressVerdict;
}

/** Thrown by {@link createAddressPolicy} for an allow-list entry that is not an address or CIDR block. */
export class AllowListError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'AllowListError';
  }
}

const GLOBAL_UNICAST_V6 = ipaddr.IPv6.parseCIDR('2000::/3');
const NAT64_WELL_KNOWN = ipaddr.IPv6.parseCIDR('64:ff9b::/96');
const IPV4_COMPATIBLE = ipaddr.IPv6.parseCIDR('::/96');

/** The IPv4 address held in the last 32 bits of an IPv6 address. */
function embeddedV4(v6: ipaddr.IPv6): ipaddr.IPv4 {
  const bytes = v6.toByteArray();
  return new ipaddr.IPv4(bytes.slice(12, 16));
}

/** Canonical comparable form: IPv4-mapped IPv6 collapses to its IPv4 address. */
function canonical(addr: Address): Address {
  return addr.kind() === 'ipv6' && (addr as ipaddr.IPv6).isIPv4MappedAddress() ? (addr as ipaddr.IPv6).toIPv4Address() : addr;
}

function sameAddress(a: Address, b: Address): boolean {
  const x = canonical(a);
  const y = canonical(b);
  return x.kind() === y.kind() && x.toNormalizedString() === y.toNormalizedString();
}

/** Why `addr` is not public, or null when it is public. */
function nonPublicReason(addr: Address): string | null {
  if (addr.kind() === 'ipv4') {
    const range = (addr as ipaddr.IPv4).range();
    return range === 'unicast' ? null : range;
  }
  const v6 = addr as ipaddr.IPv6;
  const range = v6.range();
  if (range === 'ipv4Mapped' || range === 'rfc6145') {
    const inner = nonPublicReason(embeddedV4(v6));
    return inner === null ? null : `${range} ${inner}`;
  }
  if (v6.match(NAT64_WELL_KNOWN)) {
    const inner = nonPublicReason(embeddedV4(v6));
    return inner === null ? null : `nat64 ${inner}`;
  }
  if (range !== 'unicast') return range;
  if (v6.match(IPV4_COMPATIBLE)) return 'ipv4Compatible';
  if (!v6.match(GLOBAL_UNICAST_V6)) return 'notGlobalUnicast';
  return null;
}

interface AllowEntry {
  block: [Address, number];
  /** True for a single-address entry (/32, /128 or no prefix): the only kind that re-admits metadata. */
  exact: boolean;
}

function parseAllowEntry(entry: string): AllowEntry {
  const text = entry.trim();
  try {
    if (text.includes('/')) {
      const block = ipaddr.parseCIDR(text);
      const full = block[0].kind() === 'ipv4' ? 32 : 128;
      return { block, exact: block[1] === full };
    }
    const addr = ipaddr.parse(text);
    return { block: [addr, addr.kind() === 'ipv4' ? 32 : 128], exact: true };
  } catch {
    throw new AllowListError(`fetch allow-list entry "${entry}" is not an IP address or CIDR block`);
  }
}

function inBlock(addr: Address, block: [Address, number]): boolean {
  const candidate = canonical(addr);
  if (candidate.kind() !== block[0].kind()) return false;
  return candidate.match(block);
}

/**
 * Build the policy for one allow-list.
 * @param allow CIDR blocks or single addresses that are reachable even though not public.
 * @throws AllowListError when an entry is not an address or CIDR block.
 */
export function createAddressPolicy(allow: readonly string[] = []): AddressPolicy {
  const entries = allow.filter((a) => a.trim() !== '').map(parseAllowEntry);
  const metadata = METADATA_ADDRESSES.map((m) => ipaddr.parse(m));
  return {
    check(address: string): AddressVerdict {
      let addr: Address;
      try {
        // Strip an IPv6 zone id ("fe80::1%eth0"): the zone does not change the address class.
        addr = ipaddr.parse(address.replace(/%.*$/, ''));
      } catch {
        return { ok: false, reason: `"${address}" is not an IP address` };
      }
      if (metadata.some((m) => sameAddress(m, addr))) {
        const named = entries.some((e) => e.exact && inBlock(addr, e.block));
        return named ? { ok: true } : { ok: false, reason: `${address} is a cloud metadata address` };
      }
      if (entries.some((e) => inBlock(addr, e.block))) return { ok: true };
      const reason = nonPublicReason(addr);
      return reason === null ? { ok: true } : { ok: false, reason: `${address} is not a public address (${reason})` };
    },
  };
}
