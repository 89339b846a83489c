/**
 * Which IP addresses (and ports) outbound fetches may connect to (the SSRF guard's rule book).
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
 * - IPv6 that embeds IPv4 is unwrapped first and judged, allow-list and metadata rule included, as the
 *   IPv4 address(es) a packet to it reaches ({@link embeddedIPv4}): IPv4-mapped `::ffff:0:0/96`
 *   (RFC 4291), IPv4-translated `::ffff:0:0:0/96` (RFC 6145), NAT64 `64:ff9b::/96` (RFC 6052) and the
 *   local-use `64:ff9b:1::/48` (RFC 8215, every RFC 6052 prefix length it may use), IPv4-compatible
 *   `::a.b.c.d` (RFC 4291, deprecated), 6to4 `2002::/16` (RFC 3056) and Teredo `2001::/32` (RFC 4380:
 *   server and de-obfuscated client). So `64:ff9b::a9fe:a9fe` is the metadata address 169.254.169.254
 *   whatever IPv6 block the allow-list names. The tunnel and deprecated forms (IPv4-compatible, 6to4,
 *   Teredo) are refused even when what they carry is public: no job source is reached through them.
 * - Other IPv6: only global unicast (2000::/3) outside the special ranges ipaddr.js knows
 *   (documentation, ORCHID, benchmarking, ...).
 * - Cloud metadata endpoints ({@link METADATA_ADDRESSES}) are refused even when a broader allow-list
 *   block covers them; only an allow-list entry naming exactly that address re-admits one.
 *
 * `allow` entries (FetchConfig.allow, `JOBLEDGER_FETCH_ALLOW`) are CIDR blocks ("10.0.0.0/8",
 * "::1/128") or single addresses, each optionally limited to one port: "127.0.0.1:8443",
 * "10.0.0.0/8:443", "[::1]:9000", "[fd00::/8]:443" (IPv6 in brackets when a port follows). An entry
 * without a port admits any port. An IPv4 entry also matches the IPv6 forms that embed its addresses.
 * The port is checked against the port actually connected to, on the first request and on every
 * redirect hop, so a redirect from an allow-listed loopback service cannot reach another service on
 * loopback.
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
  /**
   * Judge one literal IP address (IPv4 or IPv6, no brackets) as a destination on TCP `port`. A string
   * that is not an IP is refused. Without `port`, only allow-list entries that admit any port count.
   */
  check(address: string, port?: number): AddressVerdict;
}

/** Thrown by {@link createAddressPolicy} for an allow-list entry that is not an address or CIDR block. */
export class AllowListError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'AllowListError';
  }
}

const GLOBAL_UNICAST_V6 = ipaddr.IPv6.parseCIDR('2000::/3');

/** How an IPv6 address carries IPv4: translation forms are judged by what they carry; tunnels are refused. */
type Embedding = 'ipv4Mapped' | 'rfc6145' | 'nat64' | 'nat64Local' | 'ipv4Compatible' | '6to4' | 'teredo';
const TUNNEL_EMBEDDINGS: ReadonlySet<Embedding> = new Set(['ipv4Compatible', '6to4', 'teredo']);

/**
 * Parse an IP address. IPv6 text goes through the WHATWG URL parser first, which reads a dotted tail
 * as the RFC 4291 spelling it is (`::10.0.0.1` is the IPv4-compatible `::a00:1`), where ipaddr.js
 * would read it as the IPv4-mapped `::ffff:10.0.0.1`.
 * @throws Error when the text is not an IP address.
 */
function parseAddress(text: string): Address {
  if (!text.includes(':')) return ipaddr.IPv4.parse(text);
  if (!/^[0-9a-fA-F:.]+$/.test(text)) throw new Error(`not an IPv6 address: ${text}`);
  return ipaddr.IPv6.parse(new URL(`http://[${text}]/`).hostname.slice(1, -1));
}

function v4(bytes: number[]): ipaddr.IPv4 {
  return new ipaddr.IPv4(bytes);
}

/**
 * The IPv4 addresses an IPv6 address embeds, with the embedding's name; undefined when it embeds none.
 * Sources: RFC 4291 §2.5.5 (mapped, compatible; `::` and `::1` are not IPv4-compatible), RFC 6145
 * (translated), RFC 6052 §2.2 (NAT64 layouts; the local-use block of RFC 8215 may use any prefix
 * length from 48 to 96, so each possible position is returned), RFC 3056 (6to4: bits 16-47), RFC 4380
 * §4 (Teredo: server at bits 32-63, client at bits 96-127 with every bit inverted).
 */
export function embeddedIPv4(v6: ipaddr.IPv6): { embedding: Embedding; addresses: ipaddr.IPv4[] } | undefined {
  const b = v6.toByteArray();
  const last = v4(b.slice(12, 16));
  const range = v6.range();
  if (range === 'ipv4Mapped') return { embedding: 'ipv4Mapped', addresses: [last] };
  if (range === 'rfc6145') return { embedding: 'rfc6145', addresses: [last] };
  if (range === 'rfc6052') {
    // 64:ff9b::/96 carries the address in its last 32 bits; 64:ff9b:1::/48 in any RFC 6052 layout
    // whose prefix is 48 bits or longer (bits 64-71 are the reserved "u" octet).
    if (b[4] === 0 && b[5] === 0) {
      if (b.slice(6, 12).every((x) => x === 0)) return { embedding: 'nat64', addresses: [last] };
    }
    return {
      embedding: 'nat64Local',
      addresses: [v4([b[6]!, b[7]!, b[9]!, b[10]!]), v4([b[7]!, b[9]!, b[10]!, b[11]!]), v4(b.slice(9, 13)), last],
    };
  }
  if (range === '6to4') return { embedding: '6to4', addresses: [v4(b.slice(2, 6))] };
  if (range === 'teredo') return { embedding: 'teredo', addresses: [v4(b.slice(4, 8)), v4(b.slice(12, 16).map((x) => x ^ 0xff))] };
  if (b.slice(0, 12).every((x) => x === 0) && range !== 'unspecified' && range !== 'loopback') {
    return { embedding: 'ipv4Compatible', addresses: [last] };
  }
  return undefined;
}

/** Why `addr` (never an IPv4-embedding IPv6 address) is not public, or null when it is public. */
function nonPublicReason(addr: Address): string | null {
  if (addr.kind() === 'ipv4') {
    const range = (addr as ipaddr.IPv4).range();
    return range === 'unicast' ? null : range;
  }
  const v6 = addr as ipaddr.IPv6;
  const range = v6.range();
  if (range !== 'unicast') return range;
  if (!v6.match(GLOBAL_UNICAST_V6)) return 'notGlobalUnicast';
  return null;
}

interface AllowEntry {
  block: [Address, number];
  /** True for a single-address entry (/32, /128 or no prefix): the only kind that re-admits metadata. */
  exact: boolean;
  /** The one TCP port the entry admits; undefined: any port. */
  port?: number;
}

/** Split "addr", "addr/len", "addr:port", "addr/len:port", "[v6]", "[v6/len]:port" into block text and port. */
function splitPort(text: string): { block: string; port?: string } {
  const bracketed = /^\[([^\]]+)\](?::(.*))?$/.exec(text);
  if (bracketed) return { block: bracketed[1]!, port: bracketed[2] };
  // Only an IPv4 entry can carry an unbracketed port: in IPv6 text every colon belongs to the address.
  const colons = text.split(':').length - 1;
  if (colons === 1) {
    const [block, port] = text.split(':');
    return { block: block!, port };
  }
  return { block: text };
}

function parseAllowEntry(entry: string): AllowEntry {
  const text = entry.trim();
  const invalid = () => new AllowListError(`fetch allow-list entry "${entry}" is not an IP address or CIDR block, optionally with a port (10.0.0.0/8, 127.0.0.1:8443, [::1]:9000)`);
  const { block: blockText, port: portText } = splitPort(text);
  let port: number | undefined;
  if (portText !== undefined) {
    if (!/^\d{1,5}$/.test(portText) || Number(portText) < 1 || Number(portText) > 65535) {
      throw new AllowListError(`fetch allow-list entry "${entry}" names port "${portText}", which is not a port from 1 to 65535`);
    }
    port = Number(portText);
  }
  let block: [Address, number];
  try {
    const [addressText, lengthText] = blockText.split('/');
    const addr = parseAddress(addressText!);
    const full = addr.kind() === 'ipv4' ? 32 : 128;
    if (lengthText !== undefined && !/^\d{1,3}$/.test(lengthText)) throw invalid();
    const length = lengthText === undefined ? full : Number(lengthText);
    if (length > full || blockText.split('/').length > 2) throw invalid();
    block = [addr, length];
  } catch {
    throw invalid();
  }
  // An entry written in IPv4-mapped form is the IPv4 block it maps.
  if (block[0].kind() === 'ipv6' && (block[0] as ipaddr.IPv6).isIPv4MappedAddress() && block[1] >= 96) {
    block = [(block[0] as ipaddr.IPv6).toIPv4Address(), block[1] - 96];
  }
  const full = block[0].kind() === 'ipv4' ? 32 : 128;
  return { block, exact: block[1] === full, port };
}

function entryAdmits(entry: AllowEntry, addr: Address, port: number | undefined): boolean {
  if (entry.port !== undefined && entry.port !== port) return false;
  return addr.kind() === entry.block[0].kind() && addr.match(entry.block);
}

/**
 * Build the policy for one allow-list.
 * @param allow CIDR blocks or single addresses, each optionally with a port, that are reachable even
 *   though not public (syntax in the module comment).
 * @throws AllowListError when an entry is not an address or CIDR block, or names an invalid port.
 */
export function createAddressPolicy(allow: readonly string[] = []): AddressPolicy {
  const entries = allow.filter((a) => a.trim() !== '').map(parseAllowEntry);
  const metadata = METADATA_ADDRESSES.map((m) => ipaddr.parse(m).toNormalizedString());

  /**
   * Why one destination (never itself an embedding) is refused on `port`, or null when it is admitted:
   * `metadata`, or the name of its non-public class.
   */
  const refusal = (addr: Address, port: number | undefined): string | null => {
    if (metadata.includes(addr.toNormalizedString())) {
      return entries.some((e) => e.exact && entryAdmits(e, addr, port)) ? null : 'metadata';
    }
    if (entries.some((e) => entryAdmits(e, addr, port))) return null;
    return nonPublicReason(addr);
  };
  /** The operator's explanation of a refusal; names the allow-list entry that would fit on another port. */
  const explain = (shown: string, addr: Address, port: number | undefined, reason: string, via?: string): string => {
    const kind = via ? `${via} ${reason}` : reason;
    if (reason === 'metadata') return `${shown} is a cloud metadata address${via ? ` (${via} of ${addr.toString()})` : ''}`;
    const otherPort = port !== undefined && entries.some((e) => e.port !== undefined && e.port !== port && addr.kind() === e.block[0].kind() && addr.match(e.block));
    return `${shown} is not a public address (${kind})${otherPort ? `; the allow-list admits it on other ports, not ${port}` : ''}`;
  };

  return {
    check(address: string, port?: number): AddressVerdict {
      let addr: Address;
      try {
        // Strip an IPv6 zone id ("fe80::1%eth0"): the zone does not change the address class.
        addr = parseAddress(address.replace(/%.*$/, ''));
      } catch {
        return { ok: false, reason: `"${address}" is not an IP address` };
      }
      const embedded = addr.kind() === 'ipv6' ? embeddedIPv4(addr as ipaddr.IPv6) : undefined;
      if (!embedded) {
        const reason = refusal(addr, port);
        return reason === null ? { ok: true } : { ok: false, reason: explain(address, addr, port, reason) };
      }
      // Every address the packet may reach must pass; the metadata refusal is named first.
      const refused = embedded.addresses.map((inner) => ({ inner, reason: refusal(inner, port) })).filter((r) => r.reason !== null);
      const worst = refused.find((r) => r.reason === 'metadata') ?? refused[0];
      if (worst) return { ok: false, reason: explain(address, worst.inner, port, worst.reason!, embedded.embedding) };
      if (TUNNEL_EMBEDDINGS.has(embedded.embedding)) {
        return { ok: false, reason: `${address} is a ${embedded.embedding} address (a tunnel or deprecated form; never fetched)` };
      }
      return { ok: true };
    },
  };
}
