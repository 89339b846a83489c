/**
 * The keyless mirror's limit and cache lifetimes (spec: Keyless endpoints; Limits, "about 2 per
 * second per address"), through the real app with the production default limit.
 */
import type { FastifyInstance, InjectOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KEYLESS_BURST } from '../src/access/keyless-limit.ts';
import { keylessCacheControl, KEYLESS_CACHE_SECONDS } from '../src/http/plugins/keyless-access.ts';
import { bearer, buildTestApp, createKey, TEST_DOCS_URL, useTestApp } from './helpers/app.ts';

describe('the keyless mirror', () => {
  // `direct.app` is called straight from the client's address; `proxied`, over the same database, trusts one proxy hop.
  const direct = useTestApp({ key: false, app: { keylessBurst: KEYLESS_BURST } });
  let proxied: FastifyInstance;

  beforeAll(async () => {
    proxied = await buildTestApp(direct.t, { keylessBurst: KEYLESS_BURST, trustProxyHops: 1 });
  });
  afterAll(async () => {
    await proxied.close();
  });

  const call = (app: FastifyInstance, options: Partial<InjectOptions> & { remoteAddress: string }) =>
    app.inject({ method: 'GET', url: '/public/plans', ...options } as InjectOptions);

  it(`allows ${KEYLESS_BURST} requests per 5 seconds per address, then 429 with Retry-After`, async () => {
    const address = '198.51.100.10';
    const results = await Promise.all(
      Array.from({ length: KEYLESS_BURST + 5 }, () => call(direct.app, { remoteAddress: address, headers: { origin: 'https://board.example' } })),
    );
    const served = results.filter((r) => r.statusCode === 200);
    expect(served).toHaveLength(KEYLESS_BURST);
    // The IETF RateLimit fields state the address's window: the quota, and the requests left counting down.
    for (const res of results) expect(res.headers['ratelimit-policy']).toBe(`"address";q=${KEYLESS_BURST};w=5`);
    const left = served.map((res) => /^"address";r=(\d+);t=(\d+)$/.exec(res.headers.ratelimit as string)).map((m) => Number(m![1]));
    expect(left.sort((a, b) => a - b)).toEqual(Array.from({ length: KEYLESS_BURST }, (_, i) => i));
    const limited = results.filter((r) => r.statusCode === 429);
    expect(limited).toHaveLength(5);
    for (const res of limited) {
      expect(res.json()).toEqual({ error: 'rate_limited', message: expect.stringContaining('retry after'), docs: `${TEST_DOCS_URL}#rate_limited`, type: `${TEST_DOCS_URL}#rate_limited`, title: 'Too Many Requests', status: 429 });
      expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      expect(Number(res.headers['retry-after'])).toBeLessThanOrEqual(5);
      expect(res.headers['cache-control']).toBe('no-store');
      expect(res.headers.ratelimit).toMatch(/^"address";r=0;t=[1-5]$/);
      // A browser page can read the refusal, when to retry and the window.
      expect(res.headers['access-control-allow-origin']).toBe('*');
      expect(res.headers['access-control-expose-headers']).toBe('Retry-After, ETag, RateLimit, RateLimit-Policy, X-Ignored-Params, X-Ignored-Params-Did-You-Mean');
    }
    // Another address has its own budget.
    expect((await call(direct.app, { remoteAddress: '198.51.100.11' })).statusCode).toBe(200);
  });

  it('counts a percent-encoded path like the path it reaches', async () => {
    const address = '198.51.100.15';
    const statuses: number[] = [];
    for (let i = 0; i < KEYLESS_BURST + 1; i++) statuses.push((await direct.app.inject({ method: 'GET', url: i % 2 ? '/%70ublic/plans' : '/public/plans', remoteAddress: address })).statusCode);
    expect(statuses.slice(0, KEYLESS_BURST).every((s) => s === 200)).toBe(true);
    expect(statuses.at(-1)).toBe(429);
  });

  it('holds against forged X-Forwarded-For when no proxy is trusted', async () => {
    const address = '198.51.100.20';
    const statuses: number[] = [];
    for (let i = 0; i < KEYLESS_BURST + 3; i++) {
      const res = await call(direct.app, { remoteAddress: address, headers: { 'x-forwarded-for': `203.0.113.${i}`, 'x-real-ip': `203.0.113.${i}` } });
      statuses.push(res.statusCode);
    }
    expect(statuses.filter((s) => s === 200)).toHaveLength(KEYLESS_BURST);
    expect(statuses.slice(KEYLESS_BURST)).toEqual([429, 429, 429]);
  });

  it('counts the address the trusted proxy saw, not what the client wrote before it', async () => {
    const proxy = '10.0.0.5';
    const statuses: number[] = [];
    for (let i = 0; i < KEYLESS_BURST + 2; i++) {
      // The client forges entries; the proxy appends the address it really saw.
      const res = await call(proxied, { remoteAddress: proxy, headers: { 'x-forwarded-for': `192.0.2.${i}, 10.9.9.${i}, 203.0.113.50` } });
      statuses.push(res.statusCode);
    }
    expect(statuses.filter((s) => s === 200)).toHaveLength(KEYLESS_BURST);
    expect(statuses.slice(KEYLESS_BURST)).toEqual([429, 429]);
    // A different client behind the same proxy is counted on its own.
    expect((await call(proxied, { remoteAddress: proxy, headers: { 'x-forwarded-for': '203.0.113.51' } })).statusCode).toBe(200);
  });

  it('counts an IPv6 client by its /64', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < KEYLESS_BURST + 1; i++) statuses.push((await call(direct.app, { remoteAddress: `2001:db8:77:1::${(i + 1).toString(16)}` })).statusCode);
    expect(statuses.at(-1)).toBe(429);
    expect((await call(direct.app, { remoteAddress: '2001:db8:77:2::1' })).statusCode).toBe(200);
  });

  it('does not count CORS preflights or keyed requests', async () => {
    const address = '198.51.100.30';
    for (let i = 0; i < KEYLESS_BURST + 5; i++) {
      const preflight = await direct.app.inject({
        method: 'OPTIONS',
        url: '/public/jobs',
        remoteAddress: address,
        headers: { origin: 'https://example.org', 'access-control-request-method': 'GET' },
      });
      expect(preflight.statusCode).toBeLessThan(300);
    }
    const key = await createKey(direct.t, 'scale');
    for (let i = 0; i < KEYLESS_BURST + 5; i++) {
      expect((await direct.app.inject({ method: 'GET', url: '/v1/me', remoteAddress: address, headers: bearer(key) })).statusCode).toBe(200);
    }
    expect((await call(direct.app, { remoteAddress: address })).statusCode).toBe(200);
  });

  it('serves each endpoint with the cache lifetime of the spec table, and errors uncached', async () => {
    const at = (url: string, remoteAddress: string) => direct.app.inject({ method: 'GET', url, remoteAddress });
    expect((await at('/public/plans', '198.51.100.40')).headers['cache-control']).toBe('public, max-age=300');
    expect((await at('/public/jobs', '198.51.100.40')).headers['cache-control']).toBe('public, max-age=300');
    expect((await at('/public/openapi.json', '198.51.100.40')).headers['cache-control']).toBe('public, max-age=3600');
    expect((await at('/public/openapi.yaml', '198.51.100.40')).headers['cache-control']).toBe('public, max-age=3600');
    const missingJob = await at('/public/jobs/00000000-0000-4000-8000-000000000000', '198.51.100.40');
    expect(missingJob.statusCode).toBe(404);
    expect(missingJob.headers['cache-control']).toBe('no-store');
    const noRoute = await at('/public/nothing-here', '198.51.100.40');
    expect(noRoute.statusCode).toBe(404);
    expect(noRoute.headers['cache-control']).toBe('no-store');
    expect((await at('/public/jobs?cursor=abc', '198.51.100.41')).headers['cache-control']).toBe('no-store');
    expect((await at('/v1/openapi.json', '198.51.100.41')).headers['cache-control']).toBe('no-cache');
  });

  it('knows every keyless path of the spec, whatever a route names its parameter', () => {
    expect(Object.keys(KEYLESS_CACHE_SECONDS)).toHaveLength(16);
    expect(keylessCacheControl('/public/jobs/:id', 200)).toBe('public, max-age=600');
    expect(keylessCacheControl('/public/companies/:slug', 200)).toBe('public, max-age=600');
    expect(keylessCacheControl('/public/providers', 200)).toBe('public, max-age=900');
    expect(keylessCacheControl('/public/coverage/countries', 200)).toBe('public, max-age=900');
    expect(keylessCacheControl('/public/ai-prompt', 200)).toBe('public, max-age=600');
    expect(keylessCacheControl('/public/status', 200)).toBe('no-store');
    expect(keylessCacheControl('/public/subscribe', 200)).toBe('no-store');
    expect(keylessCacheControl('/public/stats', 503)).toBe('no-store');
  });
});
