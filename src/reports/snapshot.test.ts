import { describe, expect, it } from 'vitest';
import { refreshingSnapshot } from './snapshot.ts';

const tick = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('refreshingSnapshot', () => {
  it('computes once for concurrent first readers and serves that value while it is fresh', async () => {
    let calls = 0;
    const snapshot = refreshingSnapshot(async () => ++calls, { maxAgeMs: 60_000 });
    const [a, b] = await Promise.all([snapshot.get(), snapshot.get()]);
    expect([a.value, b.value, calls]).toEqual([1, 1, 1]);
    expect((await snapshot.get()).measuredAt).toBe(a.measuredAt);
    expect(calls).toBe(1);
  });

  it('serves a stale value at once and refreshes it in the background, one refresh at a time', async () => {
    let calls = 0;
    const snapshot = refreshingSnapshot(async () => ++calls, { maxAgeMs: 20 });
    expect((await snapshot.get()).value).toBe(1);
    await tick(30);
    const stale = await Promise.all([snapshot.get(), snapshot.get(), snapshot.get()]);
    expect(stale.map((s) => s.value)).toEqual([1, 1, 1]);
    await tick(5);
    expect(calls).toBe(2);
    expect((await snapshot.get()).value).toBe(2);
  });

  it('keeps the previous value when a refresh fails, reports it, and retries on the next read', async () => {
    let calls = 0;
    const errors: unknown[] = [];
    const snapshot = refreshingSnapshot(
      async () => {
        calls += 1;
        if (calls === 2) throw new Error('database unreachable');
        return calls;
      },
      { maxAgeMs: 10, onError: (e) => errors.push(e) },
    );
    await snapshot.get();
    await tick(20);
    expect((await snapshot.get()).value).toBe(1);
    await tick(5);
    expect(errors).toHaveLength(1);
    expect((await snapshot.get()).value).toBe(1);
    await tick(5);
    expect((await snapshot.get()).value).toBe(3);
  });

  it('lets a failed first computation reach the reader', async () => {
    const snapshot = refreshingSnapshot(async () => Promise.reject(new Error('timeout')), { maxAgeMs: 10 });
    await expect(snapshot.get()).rejects.toThrow('timeout');
  });
});
