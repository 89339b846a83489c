/**
 * The IETF `RateLimit` and `RateLimit-Policy` fields (issue 19, HTTP conventions;
 * draft-ietf-httpapi-ratelimit-headers-11, May 2026), sent beside the spec's `X-RateLimit-*` on every
 * keyed response. Both are Structured Field Lists (RFC 9651) of named policies:
 *
 *   RateLimit-Policy: "minute";q=120;w=60, "day";q=2000;w=86400
 *   RateLimit: "minute";r=119;t=42, "day";r=1999;t=50000
 *
 * `q` is the quota (requests), `w` the window in seconds, `r` the requests left and `t` the seconds
 * until the window resets. Unlike `X-RateLimit-*`, which describe only the window closest to running
 * out, both windows are listed. The monthly record allowance is not a request quota and has no
 * registered quota unit (the draft registers `requests`, `content-bytes`, `concurrent-requests`), so it
 * stays in `X-RateLimit-Records-*` only.
 *
 * Keyless responses (`/public/*`) carry the same two fields for the per-address limit
 * (access/keyless-limit.ts), one policy named `address`:
 *
 *   RateLimit-Policy: "address";q=10;w=5
 *   RateLimit: "address";r=9;t=5
 */
import type { FastifyReply } from 'fastify';
import { KEYLESS_BURST, KEYLESS_WINDOW_SECONDS, type KeylessVerdict } from '../access/keyless-limit.ts';
import type { RequestCharge, WindowState } from '../access/request-limits.ts';

/** Policy names of the two request windows (spec: Limits, requests per minute and per day). */
const WINDOWS = [
  { name: 'minute', seconds: 60, of: (charge: RequestCharge) => charge.minute },
  { name: 'day', seconds: 86_400, of: (charge: RequestCharge) => charge.day },
] as const;

function nonNegative(n: number): number {
  return Math.max(0, Math.floor(n));
}

/** The `RateLimit-Policy` field value of a key's request limits. */
export function rateLimitPolicy(charge: RequestCharge): string {
  return WINDOWS.map((w) => `"${w.name}";q=${nonNegative(w.of(charge).limit)};w=${w.seconds}`).join(', ');
}

/** The `RateLimit` field value: requests left and seconds to reset, per window. */
export function rateLimitState(charge: RequestCharge): string {
  return WINDOWS.map((w) => {
    const state: WindowState = w.of(charge);
    return `"${w.name}";r=${nonNegative(state.remaining)};t=${nonNegative(state.resetSeconds)}`;
  }).join(', ');
}

/** Set both fields on a keyed response. */
export function setRateLimitFields(reply: FastifyReply, charge: RequestCharge): void {
  reply.header('RateLimit-Policy', rateLimitPolicy(charge));
  reply.header('RateLimit', rateLimitState(charge));
}

/**
 * The two fields of a keyless response: the address's window (policy `address`). `undefined` when the
 * keyless limit is off (no window to state).
 */
export function keylessRateLimitFields(verdict: KeylessVerdict): Record<string, string> | undefined {
  const w = verdict.window;
  if (!w) return undefined;
  return {
    'RateLimit-Policy': `"address";q=${nonNegative(w.limit)};w=${w.windowSeconds}`,
    RateLimit: `"address";r=${nonNegative(w.remaining)};t=${nonNegative(w.resetSeconds)}`,
  };
}

/** `components.headers` entries for the OpenAPI document (added to every keyed response). */
export const RATE_LIMIT_FIELD_HEADERS: Readonly<Record<string, Record<string, unknown>>> = {
  'RateLimit-Policy': {
    description:
      'The key\'s request quotas (IETF draft-ietf-httpapi-ratelimit-headers, a Structured Field List): `"minute";q=<requests>;w=60, "day";q=<requests>;w=86400`.',
    schema: { type: 'string' },
    example: '"minute";q=120;w=60, "day";q=2000;w=86400',
  },
  RateLimit: {
    description: 'Requests left (`r`) and seconds until reset (`t`) in each window of RateLimit-Policy: `"minute";r=<n>;t=<s>, "day";r=<n>;t=<s>`.',
    schema: { type: 'string' },
    example: '"minute";r=119;t=42, "day";r=1999;t=50000',
  },
};

/**
 * `components.headers` entries of the keyless fields (added to every `/public` response the limit
 * applies to), under their own component names: the header names are the same as the keyed ones.
 */
export const KEYLESS_RATE_LIMIT_FIELD_HEADERS: Readonly<Record<string, { header: string; object: Record<string, unknown> }>> = {
  'Keyless-RateLimit-Policy': {
    header: 'RateLimit-Policy',
    object: {
      description:
        'The per-address quota of the keyless surface (IETF draft-ietf-httpapi-ratelimit-headers, a Structured Field List): `"address";q=<requests>;w=<seconds>`. Absent when the operator turned the keyless limit off.',
      schema: { type: 'string' },
      example: `"address";q=${KEYLESS_BURST};w=${KEYLESS_WINDOW_SECONDS}`,
    },
  },
  'Keyless-RateLimit': {
    header: 'RateLimit',
    object: {
      description: 'Requests left (`r`) and seconds until reset (`t`) in the address\'s window: `"address";r=<n>;t=<s>`. r=0 on the 429.',
      schema: { type: 'string' },
      example: `"address";r=${KEYLESS_BURST - 1};t=${KEYLESS_WINDOW_SECONDS}`,
    },
  },
};
