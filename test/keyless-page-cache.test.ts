/**
 * The keyless listing cache (issue 22, src/http/keyless-page-cache.ts) through the real app: the same
 * bytes and ETag as the uncached answer, shared by equivalent spellings of a query, revalidated with
 * 304, invalidated by the change feed, and still behind the per-address limit.
 */
import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KeylessPageCache } from '../src/http/keyless-page-cache.ts';
import { buildTestApp } from './helpers/app.ts';
import { createTestDatabase, type TestDatabase } from './helpers/database.ts';

describe('the keyless listing cache', () => {
  let t: TestDatabase;
  let cached: FastifyInstance;
  let plain: FastifyInstance;
  let limited: FastifyInstance;
  // The watermark read per request here; `serve`'s reuses a reading for a second.
  const cache = new KeylessPageCache({ ttlMs: 60_000, watermarkMaxAgeMs: 0 });

  beforeAll(async () => {
    t = await createTestDatabase({ corpus: true });
    cached = await buildTestApp(t, { keylessPageCache: cache });
    plain = await buildTestApp(t);
    limited = await buildTestApp(t, { keylessPageCache: new KeylessPageCache(), keylessBurst: 3 });
  });
  afterAll(async () => {
    await cached.close();
    await plain.close();
    await limited.close();
    await t.drop();
  });

  it('answers the bytes and ETag of the uncached answer, once per normalized query, with 304 on a match', async () => {
    const first = await cached.inject({ url: '/public/jobs?limit=5' });
    const again = await cached.inject({ url: '/public/jobs?limit=5' });
    const reference = await plain.inject({ url: '/public/jobs?limit=5' });
    expect(first.statusCode).toBe(200);
    expect(first.json().data.length).toBeGreaterThan(0);
    expect(again.body).toBe(first.body);
    expect(first.body).toBe(reference.body);
    expect(first.headers.etag).toBe(reference.headers.etag);
    expect(again.headers['content-type']).toBe(reference.headers['content-type']);
    expect(again.headers['cache-control']).toBe(reference.headers['cache-control']);
    const sizeAfter = cache.size;
    // The same query spelled with an unknown parameter: one entry, and the header naming it stays.
    const spelled = await cached.inject({ url: '/public/jobs?limit=5&colour=blue' });
    expect(spelled.body).toBe(first.body);
    expect(spelled.headers['x-ignored-params']).toBeDefined();
    expect(cache.size).toBe(sizeAfter);
    const revalidated = await cached.inject({ url: '/public/jobs?limit=5', headers: { 'if-none-match': String(first.headers.etag) } });
    expect(revalidated.statusCode).toBe(304);
    expect(revalidated.body).toBe('');
    // A bad query is still refused before the cache, as without it.
    const bad = await cached.inject({ url: '/public/jobs?limit=5&min_salary=abc' });
    expect(bad.statusCode).toBeGreaterThanOrEqual(400);
    expect(bad.body).toBe((await plain.inject({ url: '/public/jobs?limit=5&min_salary=abc' })).body);
  });

  it('serves a change as soon as the change feed records one', async () => {
    const before = await cached.inject({ url: '/public/jobs?limit=1' });
    const job = before.json().data[0] as { id: string; title: string };
    await sql`UPDATE jobs SET title = 'Cache Probe Engineer' WHERE id = ${job.id}`.execute(t.db);
    // No change recorded yet: the cached answer stands (within its lifetime).
    expect((await cached.inject({ url: '/public/jobs?limit=1' })).body).toBe(before.body);
    await sql`INSERT INTO change_events (job_id, change) VALUES (${job.id}, 'updated')`.execute(t.db);
    const after = await cached.inject({ url: '/public/jobs?limit=1' });
    expect(after.json().data[0].title).toBe('Cache Probe Engineer');
    expect(after.headers.etag).not.toBe(before.headers.etag);
  });

  it('keeps the per-address limit on cached answers', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) statuses.push((await limited.inject({ url: '/public/jobs?limit=2', remoteAddress: '198.51.100.77' })).statusCode);
    expect(statuses).toEqual([200, 200, 200, 429, 429]);
  });
});
