import { describe, expect, it } from 'vitest';
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
