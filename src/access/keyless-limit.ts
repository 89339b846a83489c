/**
 * The keyless mirror's request limit (spec: Limits, "Keyless request rate: about 2 per second per
 * address"). We allow {@link KEYLESS_BURST} requests per {@link KEYLESS_WINDOW_SECONDS}-second window
 * per client address by default (`JOBLEDGER_KEYLESS_BURST`): 2 per second on average, while a page
 * that loads listings, facets and providers at once is not refused.
 *
 * The client address is the one the HTTP layer resolved (the socket address, or the address the
 * configured number of trusted proxies reported). IPv6 clients are counted per /64, the block one
 * subscriber usually holds, so walking through one's own addresses does not multiply the limit.
 */
import ipaddr from 'ipaddr.js';
import { windowCounter, type CounterStore, type WindowCounter } from './counters.ts';

/** Requests per window and per address, by default. */
export const KEYLESS_BURST = 10;
/** Window length in seconds: {@link KEYLESS_BURST} / 5 s = 2 requests per second on average. */
export const KEYLESS_WINDOW_SECONDS = 5;

/** Counting keys of recently seen addresses: parsing one was a few percent of a cached keyless hit's CPU. */
const recentKeys = new Map<string, string>();
/** Addresses remembered at most; the memo starts over when it is full. */
const RECENT_KEYS_MAX = 10_000;

/** The counting key of a client address: IPv4 as is, IPv6 by its /64, IPv4-mapped IPv6 as IPv4. */
export function clientKey(address: string): string {
  const known = recentKeys.get(address);
  if (known !== undefined) return known;
  const key = parsedClientKey(address);
  if (recentKeys.size >= RECENT_KEYS_MAX) recentKeys.clear();
  recentKeys.set(address, key);
  return key;
}

function parsedClientKey(address: string): string {
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    parsed = ipaddr.process(address);
  } catch {
    return address;
  }
  if (parsed.kind() === 'ipv4') return parsed.toString();
  const parts = (parsed as ipaddr.IPv6).parts.slice(0, 4);
  return `${parts.map((p) => p.toString(16)).join(':')}::/64`;
}

export interface KeylessVerdict {
  allowed: boolean;
  /** Seconds until the address's window resets (the 429's Retry-After). */
  retryAfterSeconds: number;
  /**
   * The address's window as the IETF `RateLimit` fields state it (http/rate-limit-fields.ts):
   * requests per window, requests left in it (0 once refused), whole seconds until it resets.
   * Absent when the limit is off (`JOBLEDGER_KEYLESS_BURST=0`).
   */
  window?: { limit: number; windowSeconds: number; remaining: number; resetSeconds: number };
}

export class KeylessLimiter {
  readonly #counter: WindowCounter;
  readonly #burst: number;

  /** @param burst requests per {@link KEYLESS_WINDOW_SECONDS} and address; 0 turns the limit off. */
  constructor(store: CounterStore, burst: number = KEYLESS_BURST) {
    this.#counter = windowCounter(store, 'keyless', KEYLESS_WINDOW_SECONDS);
    this.#burst = burst;
  }

  /** Count one keyless request from `address`. */
  async take(address: string): Promise<KeylessVerdict> {
    if (this.#burst === 0) return { allowed: true, retryAfterSeconds: 0 };
    const hit = await this.#counter.hit(clientKey(address));
    const resetSeconds = Math.max(1, Math.ceil(hit.msBeforeReset / 1000));
    return {
      allowed: hit.count <= this.#burst,
      retryAfterSeconds: resetSeconds,
      window: { limit: this.#burst, windowSeconds: KEYLESS_WINDOW_SECONDS, remaining: Math.max(0, this.#burst - hit.count), resetSeconds },
    };
  }
}
