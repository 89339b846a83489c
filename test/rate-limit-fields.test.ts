/**
 * The IETF `RateLimit` and `RateLimit-Policy` fields beside the spec's `X-RateLimit-*` (issue 19, HTTP
 * conventions; draft-ietf-httpapi-ratelimit-headers-11), on every keyed response, 429s included, and
 * on keyless responses for the per-address limit.
 */
import { describe, expect, it } from 'vitest';
import { KEYLESS_BURST } from '../src/access/keyless-limit.ts';
import { bearer, buildTestApp, createKey, TEST_KEYLESS_BURST, useTestApp } from './helpers/app.ts';

const ctx = useTestApp({ key: false });

/** Parse a Structured Field List of `"name";k=v;k=v` members into name → parameters. */
function members(field: string): Record<string, Record<string, number>> {
  return Object.fromEntries(
    field.split(',').map((member) => {
      const [name, ...params] = member.trim().split(';');
      expect(name).toMatch(/^"[a-z]+"$/);
      return [JSON.parse(name!) as string, Object.fromEntries(params.map((p) => [p.split('=')[0], Number(p.split('=')[1])]))];
    }),
  );
}

describe('RateLimit and RateLimit-Policy', () => {
  it('state both request windows of the key, counting down, agreeing with X-RateLimit-*', async () => {
    const key = await createKey(ctx.t, 'explore');
    const first = await ctx.app.inject({ method: 'GET', url: '/v1/me', headers: bearer(key) });
    expect(first.statusCode).toBe(200);
    const policy = members(first.headers['ratelimit-policy'] as string);
    expect(policy).toEqual({ minute: { q: 30, w: 60 }, day: { q: 5000, w: 86400 } });
    const state = members(first.headers.ratelimit as string);
    expect(state.minute!.r).toBe(29);
    expect(state.day!.r).toBe(4999);
    expect(state.minute!.t).toBeGreaterThan(0);
    expect(state.minute!.t).toBeLessThanOrEqual(60);
    // X-RateLimit-* describe the binding window: here the minute.
    expect(Number(first.headers['x-ratelimit-remaining'])).toBe(state.minute!.r);
    const second = await ctx.app.inject({ method: 'GET', url: '/v1/jobs?limit=1', headers: bearer(key) });
    expect(members(second.headers.ratelimit as string).minute!.r).toBe(28);
  });

  it('appear on a 429 with r=0, and not on unauthenticated responses', async () => {
    const key = await createKey(ctx.t, 'explore');
    let last;
    for (let i = 0; i < 31; i++) last = await ctx.app.inject({ method: 'GET', url: '/v1/me', headers: bearer(key) });
    expect(last!.statusCode).toBe(429);
    expect(members(last!.headers.ratelimit as string).minute!.r).toBe(0);
    expect(last!.headers['ratelimit-policy']).toBeDefined();
    expect((await ctx.app.inject({ method: 'GET', url: '/v1/me' })).headers.ratelimit).toBeUndefined();
  });

  it('state the per-address window on keyless responses, and nothing when the keyless limit is off', async () => {
    const first = await ctx.app.inject({ method: 'GET', url: '/public/plans', remoteAddress: '198.51.100.77' });
    expect(first.statusCode).toBe(200);
    expect(members(first.headers['ratelimit-policy'] as string)).toEqual({ address: { q: TEST_KEYLESS_BURST, w: 5 } });
    expect(members(first.headers.ratelimit as string).address!.r).toBe(TEST_KEYLESS_BURST - 1);
    const second = await ctx.app.inject({ method: 'GET', url: '/public/jobs?limit=1', remoteAddress: '198.51.100.77' });
    expect(members(second.headers.ratelimit as string).address!.r).toBe(TEST_KEYLESS_BURST - 2);
    // The payment provider's webhook is exempt from the keyless limit, so it states no window.
    const hook = await ctx.app.inject({ method: 'POST', url: '/public/checkout/webhook', payload: '{}', headers: { 'content-type': 'application/json' } });
    expect(hook.headers.ratelimit).toBeUndefined();
    const unlimited = await buildTestApp(ctx.t, { keylessBurst: 0 });
    try {
      const res = await unlimited.inject({ method: 'GET', url: '/public/plans' });
      expect(res.statusCode).toBe(200);
      expect(res.headers.ratelimit).toBeUndefined();
      expect(res.headers['ratelimit-policy']).toBeUndefined();
    } finally {
      await unlimited.close();
    }
  });

  it('are documented on keyed operations', async () => {
    const doc = (await ctx.app.inject({ method: 'GET', url: '/v1/openapi.json' })).json();
    expect(doc.components.headers.RateLimit.description).toContain('RateLimit-Policy');
    expect(doc.paths['/v1/jobs'].get.responses['200'].headers.RateLimit).toEqual({ $ref: '#/components/headers/RateLimit' });
    expect(doc.paths['/v1/jobs'].get.responses['429'].headers['RateLimit-Policy']).toBeDefined();
  });

  it('are documented on keyless operations as the address window, but not on the exempt webhook', async () => {
    const doc = (await ctx.app.inject({ method: 'GET', url: '/v1/openapi.json' })).json();
    expect(doc.components.headers['Keyless-RateLimit-Policy'].example).toBe(`"address";q=${KEYLESS_BURST};w=5`);
    expect(doc.paths['/public/jobs'].get.responses['200'].headers.RateLimit).toEqual({ $ref: '#/components/headers/Keyless-RateLimit' });
    expect(doc.paths['/public/jobs'].get.responses['429'].headers['RateLimit-Policy']).toEqual({ $ref: '#/components/headers/Keyless-RateLimit-Policy' });
    expect(doc.paths['/public/checkout/webhook'].post.responses['200'].headers?.RateLimit).toBeUndefined();
  });
});
