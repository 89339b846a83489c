import { describe, expect, it } from 'vitest';
import { entityTag } from './conditional.ts';
import { KeylessPageCache } from './keyless-page-cache.ts';

describe('the keyless page cache', () => {
  it('reuses a watermark reading for its maximum age, rebuilds on a new watermark, and stays bounded', async () => {
    const cache = new KeylessPageCache({ maxEntries: 2, ttlMs: 10_000, watermarkMaxAgeMs: 1000 });
    let watermark = '7';
    let reads = 0;
    const read = async () => {
      reads++;
      return watermark;
    };
    let builds = 0;
    const build = (body: string) => async () => {
      builds++;
      return body;
    };
    const first = await cache.serve('a', read, build('{"v":1}'), 0);
    expect(first.bytes.toString('utf8')).toBe('{"v":1}');
    expect(first.etag).toBe(entityTag('{"v":1}'));
    expect((await cache.serve('a', read, build('{"v":2}'), 500)).bytes.toString('utf8')).toBe('{"v":1}');
    expect([reads, builds]).toEqual([1, 1]);
    watermark = '8';
    // Within the reading's age the old watermark stands; after it, the new one rebuilds.
    expect((await cache.serve('a', read, build('{"v":2}'), 999)).bytes.toString('utf8')).toBe('{"v":1}');
    expect((await cache.serve('a', read, build('{"v":2}'), 1000)).bytes.toString('utf8')).toBe('{"v":2}');
    expect([reads, builds]).toEqual([2, 2]);
    // Past its lifetime an entry is rebuilt whatever the watermark.
    expect((await cache.serve('a', read, build('{"v":3}'), 11_500)).bytes.toString('utf8')).toBe('{"v":3}');
    await cache.serve('b', read, build('{}'), 11_500);
    await cache.serve('c', read, build('{}'), 11_500);
    expect(cache.size).toBe(2);
  });

  it('never keeps a failed watermark reading or a failed build', async () => {
    const cache = new KeylessPageCache();
    await expect(cache.serve('a', () => Promise.reject(new Error('down')), async () => '{}', 0)).rejects.toThrow('down');
    await expect(cache.serve('a', async () => '1', () => Promise.reject(new Error('query')), 1)).rejects.toThrow('query');
    expect(cache.size).toBe(0);
    expect((await cache.serve('a', async () => '1', async () => '{}', 2)).bytes.toString('utf8')).toBe('{}');
  });
});
