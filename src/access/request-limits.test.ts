import { describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { waitForRedis } from './counters.ts';
import { RequestLimiter } from './request-limits.ts';

/** A clock the test moves by hand. */
function handClock(start: string) {
  let now = new Date(start);
  return { clock: () => now, set: (at: string) => (now = new Date(at)) };
}

describe('request limits of a key', () => {
  it('let exactly the per-minute limit through, and charge refused requests to neither window', async () => {
    const limiter = new RequestLimiter({ kind: 'memory' }, handClock('2026-05-10T12:00:00Z').clock);
    const allowance = { requests_per_minute: 5, requests_per_day: 100 };
    const charges = await Promise.all(Array.from({ length: 12 }, () => limiter.charge('k1', allowance)));
    expect(charges.filter((c) => c.allowed)).toHaveLength(5);
    const refused = charges.filter((c) => !c.allowed);
    expect(refused).toHaveLength(7);
    for (const c of refused) {
      expect(c.retryAfterSeconds).toBeGreaterThanOrEqual(1);
      expect(c.retryAfterSeconds).toBeLessThanOrEqual(60);
      expect(c.minute.remaining).toBe(0);
    }
    expect(await limiter.usedToday('k1')).toBe(5);
    // Another key has its own counters.
    expect((await limiter.charge('k2', allowance)).allowed).toBe(true);
  });

  it('refuses past the daily limit until UTC midnight, with Retry-After counting down to it', async () => {
    const time = handClock('2026-05-10T23:59:50Z');
    const limiter = new RequestLimiter({ kind: 'memory' }, time.clock);
    const allowance = { requests_per_minute: 100, requests_per_day: 3 };
    for (let i = 0; i < 3; i++) expect((await limiter.charge('k', allowance)).allowed).toBe(true);
    const over = await limiter.charge('k', allowance);
    expect(over.allowed).toBe(false);
    expect(over.retryAfterSeconds).toBe(10);
    expect(over.day).toMatchObject({ limit: 3, used: 3, remaining: 0, resetSeconds: 10 });
    time.set('2026-05-10T23:59:59.500Z');
    expect((await limiter.charge('k', allowance)).retryAfterSeconds).toBe(1);
    time.set('2026-05-11T00:00:00.000Z');
    const next = await limiter.charge('k', allowance);
    expect(next.allowed).toBe(true);
    expect(next.day).toMatchObject({ used: 1, remaining: 2, resetSeconds: 86_400 });
    expect(await limiter.usedToday('k')).toBe(1);
  });

  it('gives a request back when another budget refused it', async () => {
    const limiter = new RequestLimiter({ kind: 'memory' }, handClock('2026-05-10T08:00:00Z').clock);
    const allowance = { requests_per_minute: 2, requests_per_day: 10 };
    const first = await limiter.charge('k', allowance);
    const refunded = await limiter.refund(first);
    expect(refunded.day.used).toBe(0);
    expect(await limiter.usedToday('k')).toBe(0);
    expect((await limiter.charge('k', allowance)).allowed).toBe(true);
    expect((await limiter.charge('k', allowance)).allowed).toBe(true);
    expect((await limiter.charge('k', allowance)).allowed).toBe(false);
  });
});

const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const redisAnswers = await (async () => {
  const probe = new Redis(redisUrl, { lazyConnect: true, connectTimeout: 1000, maxRetriesPerRequest: 0, retryStrategy: () => null });
  probe.on('error', () => undefined);
  try {
    await probe.connect();
    await probe.ping();
    return true;
  } catch {
    return false;
  } finally {
    probe.disconnect();
  }
})();

describe.skipIf(!redisAnswers)('request limits of a key, counted in Redis in one script', () => {
  it('let exactly the limit through, charge refused requests nothing, refund and read the same counters', async () => {
    const client = new Redis(redisUrl);
    const keyPrefix = `jltest:${randomBytes(6).toString('hex')}`;
    expect(await waitForRedis(client)).toBe(true);
    try {
      const limiter = new RequestLimiter({ kind: 'redis', client, keyPrefix }, handClock('2026-05-10T12:00:00Z').clock);
      const allowance = { requests_per_minute: 5, requests_per_day: 7 };
      const charges = await Promise.all(Array.from({ length: 12 }, () => limiter.charge('k1', allowance)));
      expect(charges.filter((c) => c.allowed)).toHaveLength(5);
      expect(charges.filter((c) => c.allowed).map((c) => c.minute.used).sort()).toEqual([1, 2, 3, 4, 5]);
      for (const c of charges.filter((c) => !c.allowed)) {
        expect(c.minute).toMatchObject({ used: 5, remaining: 0 });
        expect(c.retryAfterSeconds).toBeGreaterThanOrEqual(59);
      }
      expect(Number(await client.get(`${keyPrefix}:req-min:k1`))).toBe(5);
      expect(await client.ttl(`${keyPrefix}:req-min:k1`)).toBeGreaterThan(55);
      // The day counter expires an hour after UTC midnight (12 h from the hand clock's noon, plus 1 h).
      expect(await client.ttl(`${keyPrefix}:req-day:k1:2026-05-10`)).toBeGreaterThan(46_000);
      expect(await limiter.usedToday('k1')).toBe(5);
      const refunded = await limiter.refund(charges.find((c) => c.allowed)!);
      expect(refunded.day.used).toBeLessThan(charges.find((c) => c.allowed)!.day.used);
      expect(await limiter.usedToday('k1')).toBe(4);
    } finally {
      const keys = await client.keys(`${keyPrefix}:*`);
      if (keys.length > 0) await client.del(...keys);
      client.disconnect();
    }
  });

  it('count in this process while Redis is unreachable, and refund from the same counters', async () => {
    const client = new Redis('redis://127.0.0.1:1', { lazyConnect: true, enableOfflineQueue: false, maxRetriesPerRequest: 0, retryStrategy: () => null });
    client.on('error', () => undefined);
    const limiter = new RequestLimiter({ kind: 'redis', client, keyPrefix: 'jltest:down' }, handClock('2026-05-10T12:00:00Z').clock);
    const allowance = { requests_per_minute: 3, requests_per_day: 100 };
    const charges = await Promise.all(Array.from({ length: 5 }, () => limiter.charge('k', allowance)));
    expect(charges.filter((c) => c.allowed)).toHaveLength(3);
    expect(await limiter.usedToday('k')).toBe(3);
    await limiter.refund(charges.find((c) => c.allowed)!);
    expect(await limiter.usedToday('k')).toBe(2);
    client.disconnect();
  });
});
