/**
 * Conditional GET (issue 19, HTTP conventions): `ETag` and `If-None-Match` → 304 on every keyless
 * route, the reports, the OpenAPI document and the feeds' empty pages; a 304 on a keyed route costs a
 * request but no records. On the imported real corpus, through the real app.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { CreatedKey } from '../src/access/api-keys.ts';
import { entityTag, ifNoneMatchHits, snapshotEntityTag } from '../src/http/conditional.ts';
import { bearer, createKey, useCorpusApp } from './helpers/app.ts';

const ctx = useCorpusApp({ key: false });
let growth: CreatedKey;

beforeAll(async () => {
  growth = await createKey(ctx.t, 'growth');
});

const get = (url: string, headers: Record<string, string> = {}) => ctx.app.inject({ method: 'GET', url, headers });

/** Every keyless GET path of the served document, with a real id or slug in place of a parameter. */
async function keylessPaths(): Promise<string[]> {
  const doc = (await get('/public/openapi.json')).json() as { paths: Record<string, Record<string, unknown>> };
  const job = await ctx.t.db.selectFrom('jobs').where('status', '=', 'live').where('withheld_kind', 'is', null).where('poster_type', 'is', null).select('slug').executeTakeFirstOrThrow();
  const company = (await get('/public/companies?limit=1')).json().data[0] as { slug: string };
  return Object.entries(doc.paths)
    .filter(([path, item]) => path.startsWith('/public/') && item.get)
    .map(([path]) => path.replace('/public/jobs/{id}', `/public/jobs/${job.slug}`).replace(/\/public\/companies\/\{[^}]+\}/, `/public/companies/${company.slug}`));
}

describe('ETag and If-None-Match', () => {
  it('revalidates every keyless route: 304 with the same validator and cache lifetime, no body', async () => {
    const paths = await keylessPaths();
    expect(paths.length).toBeGreaterThanOrEqual(15);
    for (const path of paths) {
      const first = await get(path);
      expect(first.statusCode, path).toBe(200);
      const tag = first.headers.etag as string;
      expect(tag, path).toMatch(/^(W\/)?"[A-Za-z0-9_-]{22}"$/);
      // The status page states the current time and is never cached: its tag changes every call.
      if (path === '/public/status') continue;
      const again = await get(path, { 'if-none-match': tag });
      expect(again.statusCode, path).toBe(304);
      expect(again.body, path).toBe('');
      expect(again.headers.etag, path).toBe(tag);
      expect(again.headers['cache-control'], path).toBe(first.headers['cache-control']);
      expect((await get(path, { 'if-none-match': '"something-else"' })).statusCode, path).toBe(200);
    }
  });

  it('gives a row its strong validator of the served bytes, and a HEAD request the same', async () => {
    const res = await get('/public/jobs?limit=3');
    expect(res.headers.etag).toBe(entityTag(res.body));
    const head = await ctx.app.inject({ method: 'HEAD', url: '/public/jobs?limit=3', headers: { 'if-none-match': res.headers.etag as string } });
    expect(head.statusCode).toBe(304);
    // A different page is a different representation.
    expect((await get('/public/jobs?limit=4')).headers.etag).not.toBe(res.headers.etag);
  });

  it('gives reports a weak validator that survives their age, on both surfaces', async () => {
    const pub = await get('/public/freshness');
    expect(pub.headers.etag).toMatch(/^W\//);
    expect(pub.headers.etag).toBe(snapshotEntityTag(pub.body));
    const keyed = await get('/v1/meta/freshness', bearer(growth));
    expect(keyed.headers.etag).toMatch(/^W\//);
    const again = await get('/v1/meta/freshness', { ...bearer(growth), 'if-none-match': keyed.headers.etag as string });
    expect(again.statusCode).toBe(304);
    expect(again.headers['x-ratelimit-remaining']).toBeDefined();
    // A strong tag of the same body, sent back, matches too (If-None-Match compares weakly).
    const strong = (keyed.headers.etag as string).slice(2);
    expect((await get('/v1/meta/facets', bearer(growth))).headers.etag).toMatch(/^W\//);
    expect((await get('/v1/meta/freshness', { ...bearer(growth), 'if-none-match': `"x", ${strong}` })).statusCode).toBe(304);
  });

  it('revalidates the OpenAPI document on both surfaces', async () => {
    for (const url of ['/v1/openapi.json', '/v1/openapi.yaml', '/public/openapi.json']) {
      const first = await get(url);
      expect(first.headers.etag).toBe(entityTag(first.body));
      expect((await get(url, { 'if-none-match': first.headers.etag as string })).statusCode).toBe(304);
    }
  });

  it('revalidates an empty feed page for a request and no records; a page with rows has no validator', async () => {
    const full = await get('/v1/changes?since=2000-01-01T00:00:00Z&limit=5', bearer(growth));
    expect(full.statusCode).toBe(200);
    expect(full.json().data.length).toBe(5);
    expect(full.headers.etag).toBeUndefined();
    expect((await get('/v1/jobs?limit=2', bearer(growth))).headers.etag).toBeUndefined();

    // Poll at the end of the feed with a reused cursor.
    const end = `/v1/changes?since=${encodeURIComponent('2100-01-01T00:00:00.000Z')}`;
    const empty = await get(end, bearer(growth));
    expect(empty.json().data).toEqual([]);
    const tag = empty.headers.etag as string;
    expect(tag).toBe(entityTag(empty.body));
    const before = { requests: Number(empty.headers['x-ratelimit-remaining']), records: empty.headers['x-ratelimit-records-used'] };
    const polled = await get(end, { ...bearer(growth), 'if-none-match': tag });
    expect(polled.statusCode).toBe(304);
    expect(polled.body).toBe('');
    expect(Number(polled.headers['x-ratelimit-remaining'])).toBe(before.requests - 1);
    expect(polled.headers['x-ratelimit-records-used']).toBe(before.records);

    for (const url of ['/v1/jobs/expired?since=2100-01-01T00:00:00Z', '/v1/jobs/closed?country=AQ']) {
      const page = await get(url, bearer(growth));
      expect(page.json().data, url).toEqual([]);
      expect((await get(url, { ...bearer(growth), 'if-none-match': page.headers.etag as string })).statusCode, url).toBe(304);
    }
  });

  it('documents ETag, If-None-Match and 304 on the revalidated operations only', async () => {
    const doc = (await get('/v1/openapi.json')).json();
    for (const path of ['/public/jobs', '/public/jobs/{id}', '/v1/meta/freshness', '/v1/changes', '/v1/openapi.json']) {
      const op = doc.paths[path].get;
      expect(op.responses['304'], path).toBeDefined();
      expect(op.responses['200'].headers.ETag, path).toBeDefined();
      expect(op.parameters.some((p: { $ref?: string }) => p.$ref === '#/components/parameters/IfNoneMatch'), path).toBe(true);
    }
    expect(doc.paths['/v1/jobs'].get.responses['304']).toBeUndefined();
    expect(doc.paths['/v1/changes'].get.responses['304'].headers['X-RateLimit-Remaining']).toBeDefined();
  });
});

describe('If-None-Match matching (RFC 9110 §13.1.2)', () => {
  it('compares weakly, accepts lists and *, and never matches a malformed value', () => {
    expect(ifNoneMatchHits('"a"', '"a"')).toBe(true);
    expect(ifNoneMatchHits('W/"a"', '"a"')).toBe(true);
    expect(ifNoneMatchHits('"b", W/"a"', 'W/"a"')).toBe(true);
    expect(ifNoneMatchHits('*', '"a"')).toBe(true);
    expect(ifNoneMatchHits('a', '"a"')).toBe(false);
    expect(ifNoneMatchHits(undefined, '"a"')).toBe(false);
    expect(ifNoneMatchHits('"b"', '"a"')).toBe(false);
  });
});
