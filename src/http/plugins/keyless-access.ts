/**
 * The keyless mirror's request limit and cache lifetimes (spec: Keyless endpoints; Limits). Installed
 * on the root app and applied by path, so every `/public` endpoint — whoever registers it, and the
 * 404s under `/public` too — is limited and cached by the one table below.
 *
 * - onRequest: about 2 requests per second per client address (`src/access/keyless-limit.ts`); over
 *   it, 429 `rate_limited` with `Retry-After`. Every limited response, the 429 included, states the
 *   address's window in the IETF `RateLimit` and `RateLimit-Policy` fields (http/rate-limit-fields.ts). CORS preflights (OPTIONS) are not counted. The client
 *   address is the socket's unless the operator trusts N proxy hops (`JOBLEDGER_TRUST_PROXY_HOPS`),
 *   so a forged `X-Forwarded-For` changes nothing. A route registered with
 *   `config: { keylessLimit: false }` is exempt (the payment provider's webhook, guarded by its signature).
 * - onSend: `Cache-Control` from {@link KEYLESS_CACHE_SECONDS} on successful responses; errors and
 *   paths outside the table get `no-store` (a 429 or a 404 must not be cached by a shared cache).
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { IncomingMessage } from 'node:http';
import type { KeylessLimiter, KeylessVerdict } from '../../access/keyless-limit.ts';
import { ApiError } from '../../domain/errors.ts';
import { keylessRateLimitFields } from '../rate-limit-fields.ts';

/**
 * Cache lifetime in seconds of each keyless endpoint, exactly the spec's "Keyless endpoints" table;
 * null = not cached. Paths use `{}` for a path parameter, whatever the route names it.
 */
export const KEYLESS_CACHE_SECONDS: Readonly<Record<string, number | null>> = {
  '/public/jobs': 300,
  '/public/jobs/{}': 600,
  '/public/companies': 600,
  '/public/companies/{}': 600,
  '/public/facets': 300,
  '/public/providers': 900,
  '/public/freshness': 900,
  '/public/coverage': 600,
  '/public/coverage/countries': 900,
  '/public/coverage/employers': 600,
  '/public/stats': 300,
  '/public/plans': 300,
  '/public/openapi.json': 3600,
  '/public/openapi.yaml': 3600,
  '/public/ai-prompt': 600,
  '/public/status': null,
};

const NOT_CACHED = 'no-store';

/** True for a request on the keyless surface. */
export function isKeylessPath(url: string): boolean {
  return url === '/public' || url.startsWith('/public/') || url.startsWith('/public?');
}

/** `Cache-Control` of a keyless response: route pattern (e.g. `/public/jobs/:id`) and status. */
export function keylessCacheControl(routePattern: string | undefined, status: number): string {
  if (status < 200 || status >= 300 || routePattern === undefined) return NOT_CACHED;
  const seconds = KEYLESS_CACHE_SECONDS[routePattern.replace(/:[^/]+/g, '{}').replace(/\/+$/, '')];
  return typeof seconds === 'number' ? `public, max-age=${seconds}` : NOT_CACHED;
}

function routePattern(request: FastifyRequest): string | undefined {
  // A request no route matched (the 404 handler) has no pattern.
  return request.is404 ? undefined : request.routeOptions.url;
}

/**
 * Whether a request is on the keyless surface. By its route pattern when one matched: the router
 * decodes the path, so `/%70ublic/jobs` reaches `/public/jobs` and must be limited like it.
 */
function onKeylessSurface(request: FastifyRequest): boolean {
  const pattern = routePattern(request);
  return isKeylessPath(pattern ?? request.url);
}

/** Verdicts of requests whose limit was taken before the router saw them (keyless-front-cache.ts). */
const takenVerdicts = new WeakMap<IncomingMessage, KeylessVerdict>();

/**
 * Hand a request to the router with the verdict its address's limit already gave it (the front cache
 * took it, then could not answer): the hook below uses it instead of counting the request twice.
 */
export function handOverVerdict(raw: IncomingMessage, verdict: KeylessVerdict): void {
  takenVerdicts.set(raw, verdict);
}

/** Add the keyless limit and Cache-Control hooks to the root app (before any route is registered). */
export function installKeylessAccess(app: FastifyInstance, limiter: KeylessLimiter): void {
  app.addHook('onRequest', async (request, reply) => {
    if (request.method === 'OPTIONS' || !onKeylessSurface(request)) return;
    // A route may opt out (`config: { keylessLimit: false }`): the payment provider's signed webhook.
    if ((request.routeOptions.config as { keylessLimit?: boolean } | undefined)?.keylessLimit === false) return;
    const verdict = takenVerdicts.get(request.raw) ?? (await limiter.take(request.ip));
    const fields = keylessRateLimitFields(verdict);
    if (!verdict.allowed) {
      throw new ApiError(
        'rate_limited',
        `Too many keyless requests from this address (about 2 per second are allowed); retry after ${verdict.retryAfterSeconds} seconds, or use /v1 with an API key.`,
        { headers: { 'Retry-After': String(verdict.retryAfterSeconds), ...fields } },
      );
    }
    if (fields) reply.headers(fields);
  });

  app.addHook('onSend', async (request, reply, payload) => {
    if (onKeylessSurface(request)) reply.header('Cache-Control', keylessCacheControl(routePattern(request), reply.statusCode));
    return payload;
  });
}
