/**
 * Listing semantics on the imported real corpus: filters of this release, clamps, cursors, errors,
 * and the keyless mirror (spec: GET /v1/jobs, Keyless endpoints, Errors).
 */
import { describe, expect, it } from 'vitest';
import type { Job } from '../src/domain/job.ts';
import { allPages, bearer, TEST_DOCS_URL, useCorpusApp } from './helpers/app.ts';
import { tampered } from './helpers/tamper.ts';

type Page = { data: Job[]; has_more: boolean; next_cursor: string | null };

describe('job listings', () => {
  const ctx = useCorpusApp();

  const v1 = (query: string) => ctx.app.inject({ method: 'GET', url: `/v1/jobs${query}`, headers: bearer(ctx.key) });
  const all = (query: string): Promise<Job[]> => allPages(v1, `${query}${query ? '&' : '?'}limit=200`);
  const servedCount = async (where: (q: ReturnType<typeof base>) => ReturnType<typeof base>) => {
    const row = await where(base()).select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    return row.n;
  };
  const base = () => ctx.t.db.selectFrom('jobs').where('served', '=', true);

  it('defaults to 25 rows, clamps limit to the plan maximum, and ignores a non-numeric limit', async () => {
    expect(((await v1('')).json() as Page).data).toHaveLength(25);
    expect(((await v1('?limit=5000')).json() as Page).data).toHaveLength(200);
    expect(((await v1('?limit=abc')).json() as Page).data).toHaveLength(25);
    expect(((await v1('?limit=0')).json() as Page).data).toHaveLength(1);
  });

  it('filters by country (any case, comma list) and never matches rows without one', async () => {
    const us = await all('?country=us');
    expect(us.length).toBe(await servedCount((q) => q.where('country', '=', 'US')));
    expect(us.every((j) => j.country === 'US')).toBe(true);
    const usOrDe = await all('?country=US,de');
    expect(usOrDe.length).toBe(await servedCount((q) => q.where('country', 'in', ['US', 'DE'])));
  });

  it('filters by remote, including not_stated', async () => {
    const remote = await all('?remote=REMOTE');
    expect(remote.length).toBeGreaterThan(0);
    expect(remote.every((j) => j.remote === 'remote')).toBe(true);
    const none = await all('?remote=not_stated');
    expect(none.length).toBe(await servedCount((q) => q.where('remote', 'is', null)));
    expect(none.every((j) => j.remote === undefined)).toBe(true);
  });

  it('filters by employment_type in the facet spelling and the full_time spelling', async () => {
    const a = await all('?employment_type=Full-time');
    const b = await all('?employment_type=full_time');
    expect(a.length).toBeGreaterThan(1000);
    expect(b.map((j) => j.id)).toEqual(a.map((j) => j.id));
    expect(a.every((j) => j.employment_type === 'Full-time')).toBe(true);
  });

  it('filters by company slug and by provider', async () => {
    const first = ((await v1('?provider=ashby&limit=1')).json() as Page).data[0]!;
    const company = await all(`?company=${first.company_slug}`);
    expect(company.length).toBeGreaterThan(0);
    expect(company.every((j) => j.company_slug === first.company_slug)).toBe(true);
    const federal = await all('?provider=USAJOBS');
    expect(federal.every((j) => j.source === 'usajobs')).toBe(true);
  });

  it('searches title, company and location with q, without stemming', async () => {
    const engineer = await all('?q=engineer');
    expect(engineer.length).toBeGreaterThan(0);
    for (const j of engineer) expect(`${j.title} ${j.company} ${j.location ?? ''}`.toLowerCase()).toMatch(/\bengineer\b/);
  });

  it('keeps only rows posted after a date', async () => {
    const rows = await all('?posted_after=2025-10-01');
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.every((j) => j.posted_at !== undefined && Date.parse(j.posted_at) > Date.parse('2025-10-01T00:00:00Z'))).toBe(true);
  });

  it('uses the first occurrence of a repeated parameter and ignores unknown ones', async () => {
    const rows = ((await v1('?country=DE&country=US&limit=200&frobnicate=1')).json() as Page).data;
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.every((j) => j.country === 'DE')).toBe(true);
  });

  it('adds descriptions on request, and refuses more than 50 rows with them', async () => {
    const withText = ((await v1('?include_description=true&limit=50')).json() as Page).data;
    expect(withText.filter((j) => j.has_description).every((j) => typeof j.description === 'string' && j.description.length > 0)).toBe(true);
    const tooMany = await v1('?include_description=true&limit=51');
    expect(tooMany.statusCode).toBe(422);
    expect(tooMany.json()).toEqual({ error: 'limit_too_large', message: expect.stringContaining('51'), docs: `${TEST_DOCS_URL}#limit_too_large`, type: `${TEST_DOCS_URL}#limit_too_large`, title: 'Unprocessable Entity', status: 422 });
  });

  it('names the offending value and where legal values are listed in vocabulary errors', async () => {
    const remote = await v1('?remote=sometimes');
    expect(remote.statusCode).toBe(422);
    expect(remote.json().error).toBe('bad_remote');
    expect(remote.json().message).toContain('"sometimes"');
    expect(remote.json().message).toContain('/v1/meta/facets');
    const provider = await v1('?provider=indeed');
    expect(provider.json()).toMatchObject({ error: 'bad_provider', message: expect.stringContaining('/v1/meta/providers') });
    const ts = await v1('?posted_after=yesterday');
    expect(ts.json()).toMatchObject({ error: 'bad_timestamp', message: expect.stringContaining('"yesterday"') });
  });

  it('refuses a tampered cursor and a cursor from another query with bad_cursor', async () => {
    const page = (await v1('?country=US&limit=5')).json() as Page;
    const cursor = page.next_cursor!;
    for (const bad of [tampered(cursor), cursor.slice(0, 10), 'garbage', `${cursor}.x`]) {
      const res = await v1(`?country=US&limit=5&cursor=${encodeURIComponent(bad)}`);
      expect(res.statusCode).toBe(422);
      expect(res.json().error).toBe('bad_cursor');
    }
    const other = await v1(`?country=DE&limit=5&cursor=${encodeURIComponent(cursor)}`);
    expect(other.json().error).toBe('bad_cursor');
    const sameQueryOtherLimit = await v1(`?country=US&limit=7&cursor=${encodeURIComponent(cursor)}`);
    expect(sameQueryOtherLimit.statusCode).toBe(200);
  });

  it('finds one row by id and by slug, with its description', async () => {
    const job = ((await v1('?limit=1')).json() as Page).data[0]!;
    for (const ref of [job.id, job.slug, job.id.toUpperCase()]) {
      const res = await ctx.app.inject({ method: 'GET', url: `/v1/jobs/${ref}`, headers: bearer(ctx.key) });
      expect(res.statusCode).toBe(200);
      expect(res.json().data.id).toBe(job.id);
      if (job.has_description) expect(res.json().data.description.length).toBeGreaterThan(0);
    }
    const missing = await ctx.app.inject({ method: 'GET', url: '/v1/jobs/00000000-0000-4000-8000-000000000000', headers: bearer(ctx.key) });
    expect(missing.statusCode).toBe(404);
    expect(missing.json().error).toBe('not_found');
  });

  it('answers an unknown path with a JSON not_found', async () => {
    const res = await ctx.app.inject({ method: 'GET', url: '/v1/nothing-here', headers: bearer(ctx.key) });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ error: 'not_found', message: expect.any(String), docs: `${TEST_DOCS_URL}#not_found`, type: `${TEST_DOCS_URL}#not_found`, title: 'Not Found', status: 404 });
  });

  describe('the keyless mirror', () => {
    const pub = (url: string, headers: Record<string, string> = {}) => ctx.app.inject({ method: 'GET', url, headers });

    it('serves the same rows as the keyed surface, at most 50, without paging', async () => {
      const res = await pub('/public/jobs?country=US&limit=500');
      expect(res.statusCode).toBe(200);
      const page = res.json() as Page;
      expect(page.data).toHaveLength(50);
      expect(page.has_more).toBe(false);
      expect(page.next_cursor).toBeNull();
      const keyed = ((await v1('?country=US&limit=50')).json() as Page).data;
      expect(page.data).toEqual(keyed);
    });

    it('refuses a cursor with 402 key_required_to_page', async () => {
      const res = await pub('/public/jobs?cursor=abc');
      expect(res.statusCode).toBe(402);
      expect(res.json().error).toBe('key_required_to_page');
    });

    it('is open cross-origin and cacheable for the spec lifetimes', async () => {
      const list = await pub('/public/jobs', { origin: 'https://example.org' });
      expect(list.headers['access-control-allow-origin']).toBe('*');
      expect(list.headers['cache-control']).toBe('public, max-age=300');
      const id = (list.json() as Page).data[0]!.id;
      const one = await pub(`/public/jobs/${id}`, { origin: 'https://example.org' });
      expect(one.statusCode).toBe(200);
      expect(one.headers['cache-control']).toBe('public, max-age=600');
      expect(one.headers['access-control-allow-origin']).toBe('*');
      const keyed = await ctx.app.inject({ method: 'GET', url: '/v1/jobs', headers: { ...bearer(ctx.key), origin: 'https://example.org' } });
      expect(keyed.headers['access-control-allow-origin']).toBeUndefined();
    });
  });
});
