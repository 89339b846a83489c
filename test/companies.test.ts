/**
 * The employer directory on the imported real corpus plus rows written through the real ledger path
 * (spec: GET /v1/companies, GET /v1/companies/{slug}, Company slug rules, include_discovered).
 */
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import type { Company, CompanyPage } from '../src/domain/company.ts';
import type { Job } from '../src/domain/job.ts';
import { allPages, bearer, TEST_DOCS_URL, useCorpusApp } from './helpers/app.ts';
import { addDiscoveryProvider, posting, writeCrawl } from './helpers/postings.ts';

describe('employer directory', () => {
  const ctx = useCorpusApp();

  const get = (url: string) => ctx.app.inject({ method: 'GET', url, headers: bearer(ctx.key) });
  const companies = (query: string, limit = 50): Promise<Company[]> => allPages(get, `/v1/companies?${query}&limit=${limit}`);
  const jobsOf = (slug: string): Promise<Job[]> => allPages(get, `/v1/jobs?company=${slug}&limit=200`);
  /** The directory order computed independently: served rows per company, then name, then slug. */
  const expectedOrder = async (): Promise<Array<{ slug: string; open_roles: number }>> =>
    (
      await sql<{ slug: string; open_roles: number }>`
        SELECT c.slug, count(*)::int AS open_roles
        FROM jobs j JOIN companies c ON c.id = j.company_id
        WHERE j.served
        GROUP BY c.id
        ORDER BY count(*) DESC, c.name, c.slug`.execute(ctx.t.db)
    ).rows;

  it('lists every company with a served row; open_roles equals the rows /v1/jobs?company=<slug> pages through', async () => {
    const all = await companies('');
    const expected = await expectedOrder();
    expect(all.map((c) => c.slug)).toEqual(expected.map((e) => e.slug));
    expect(all.length).toBeGreaterThan(50);
    for (const company of all) {
      const jobs = await jobsOf(company.slug!);
      expect(jobs.length, company.slug).toBe(company.open_roles);
      expect(jobs.every((j) => j.company_slug === company.slug)).toBe(true);
    }
    const served = await ctx.t.db.selectFrom('jobs').select((eb) => eb.fn.countAll<number>().as('n')).where('served', '=', true).executeTakeFirstOrThrow();
    expect(all.reduce((sum, c) => sum + c.open_roles!, 0)).toBe(Number(served.n));
  });

  it('orders totally and stably: cursor pages, offset pages and one big page give the same sequence', async () => {
    const whole = ((await get('/v1/companies?limit=200')).json() as CompanyPage).data.map((c) => c.slug);
    const byCursor = (await companies('', 7)).map((c) => c.slug);
    const byOffset: string[] = [];
    for (let offset = 0; ; offset += 9) {
      const page = (await get(`/v1/companies?limit=9&offset=${offset}`)).json() as CompanyPage;
      expect(page.offset).toBe(offset);
      byOffset.push(...page.data.map((c) => c.slug!));
      if (!page.has_more) break;
    }
    expect(byCursor).toEqual(whole);
    expect(byOffset).toEqual(whole);
    expect(new Set(whole).size).toBe(whole.length);
    const ranks = ((await get('/v1/companies?limit=200')).json() as CompanyPage).data.map((c) => Math.max(c.open_roles!, c.own_site_roles!));
    expect([...ranks].sort((a, b) => b - a)).toEqual(ranks);
  });

  it('reports the page position: offset of a cursor page continues from the previous page', async () => {
    const first = (await get('/v1/companies?limit=5')).json() as CompanyPage;
    expect(first).toMatchObject({ limit: 5, offset: 0, has_more: true });
    const second = (await get(`/v1/companies?limit=5&cursor=${encodeURIComponent(first.next_cursor!)}&offset=40`)).json() as CompanyPage;
    expect(second.offset).toBe(5);
    const viaOffset = (await get('/v1/companies?limit=5&offset=5')).json() as CompanyPage;
    expect(second.data).toEqual(viaOffset.data);
  });

  it('refuses offsets beyond 100000, malformed offsets, bad cursors and unknown source types; clamps limit', async () => {
    const tooDeep = await get('/v1/companies?offset=100001');
    expect(tooDeep.statusCode).toBe(422);
    expect(tooDeep.json()).toEqual({ error: 'bad_offset', message: expect.stringContaining('100001'), docs: `${TEST_DOCS_URL}#bad_offset`, type: `${TEST_DOCS_URL}#bad_offset`, title: 'Unprocessable Entity', status: 422 });
    expect((await get('/v1/companies?offset=100000')).statusCode).toBe(200);
    for (const bad of ['-1', 'ten', '1.5']) expect((await get(`/v1/companies?offset=${bad}`)).json().error).toBe('bad_offset');
    const cursor = ((await get('/v1/companies?limit=3')).json() as CompanyPage).next_cursor!;
    expect((await get(`/v1/companies?country=US&cursor=${encodeURIComponent(cursor)}`)).json().error).toBe('bad_cursor');
    expect((await get('/v1/companies?cursor=garbage')).json().error).toBe('bad_cursor');
    const source = await get('/v1/companies?source_type=indeed');
    expect(source.statusCode).toBe(422);
    expect(source.json()).toMatchObject({ error: 'bad_source_type', message: expect.stringContaining('"indeed"') });
    const big = (await get('/v1/companies?limit=5000')).json() as CompanyPage;
    expect(big.limit).toBe(200);
    expect((await get('/v1/companies?include_discovered=maybe')).json().error).toBe('bad_boolean');
  });

  it('filters by country, org_type, source_type (legacy spellings too) and q', async () => {
    const us = await companies('country=us');
    expect(us.length).toBeGreaterThan(0);
    expect(us.every((c) => c.country === 'US')).toBe(true);

    const government = await companies('org_type=GOVERNMENT');
    const agencies = await companies('source_type=public_agency');
    const legacy = await companies('source_type=government');
    expect(government.length).toBeGreaterThan(0);
    expect(agencies.map((c) => c.slug)).toEqual(government.map((c) => c.slug));
    expect(legacy.map((c) => c.slug)).toEqual(agencies.map((c) => c.slug));
    expect(agencies.every((c) => c.source_types!.includes('public_agency'))).toBe(true);
    const federal = await sql<{ n: number }>`
      SELECT count(DISTINCT j.company_id)::int AS n FROM jobs j WHERE j.served AND j.provider_id = 'usajobs'`.execute(ctx.t.db);
    expect(agencies.length).toBe(federal.rows[0]!.n);
    expect((await companies('source_type=aggregator')).length).toBe(0);

    const some = (await companies(''))[3]!;
    const byName = await companies(`q=${encodeURIComponent(some.name!.slice(1, -1).toUpperCase())}`);
    expect(byName.map((c) => c.slug)).toContain(some.slug);
    expect(byName.every((c) => c.name!.toLowerCase().includes(some.name!.slice(1, -1).toLowerCase()))).toBe(true);
  });

  it('lists discovered companies only with include_discovered, with open_roles 0 and their own-site roles', async () => {
    await addDiscoveryProvider(ctx.t.db, 'careers-test', 'Careers pages (test)');
    const known = (await companies(''))[10]!;
    const knownRow = await ctx.t.db.selectFrom('companies').select(['name', 'domain']).where('slug', '=', known.slug!).executeTakeFirstOrThrow();
    await writeCrawl(ctx.t.db, {
      providerId: 'careers-test',
      board: 'kestrel',
      companyDomain: 'kestrel-analytics.example',
      postings: [
        posting('k-1', 'Data Engineer', { name: 'Kestrel Analytics', domain: 'kestrel-analytics.example' }),
        posting('k-2', 'Product Designer', { name: 'Kestrel Analytics', domain: 'kestrel-analytics.example' }),
      ],
    });
    await writeCrawl(ctx.t.db, {
      providerId: 'careers-test',
      board: known.slug!,
      postings: [posting('known-1', 'Account Executive', { name: knownRow.name, domain: knownRow.domain ?? undefined })],
      companyDomain: knownRow.domain ?? undefined,
    });

    const plain = await companies('');
    expect(plain.map((c) => c.slug)).not.toContain('kestrel-analytics');
    const withDiscovered = await companies('include_discovered=true');
    const kestrel = withDiscovered.find((c) => c.slug === 'kestrel-analytics');
    expect(kestrel).toMatchObject({ name: 'Kestrel Analytics', open_roles: 0, own_site_roles: 2, source_types: ['career_site'] });
    expect(kestrel!.careers_url).toMatch(/^https:\/\/kestrel-analytics\.example\/jobs\/k-/);
    // Only discovered companies are added: the corpus's own (the job-board feeds' employers) and Kestrel.
    const plainSlugs = new Set(plain.map((c) => c.slug));
    const added = withDiscovered.filter((c) => !plainSlugs.has(c.slug));
    expect(added.map((c) => c.slug)).toContain('kestrel-analytics');
    for (const c of added) {
      expect(c.open_roles, c.slug).toBe(0);
      expect(c.own_site_roles, c.slug).toBeGreaterThan(0);
    }
    expect(withDiscovered.length).toBe(plain.length + added.length);
    expect(await jobsOf('kestrel-analytics')).toHaveLength(0);

    const knownAfter = withDiscovered.find((c) => c.slug === known.slug)!;
    expect(knownAfter.open_roles).toBe(known.open_roles);
    expect(knownAfter.own_site_roles).toBe(1);
    expect(knownAfter.source_types).toEqual(['ats', 'career_site']);

    const single = (await get('/v1/companies/kestrel-analytics')).json() as { data: Company };
    expect(single.data).toMatchObject({ slug: 'kestrel-analytics', open_roles: 0, own_site_roles: 2 });
    const ranks = withDiscovered.map((c) => Math.max(c.open_roles!, c.own_site_roles!));
    expect([...ranks].sort((a, b) => b - a)).toEqual(ranks);
  });

  it('answers a retired slug with 301 to the current one, never cached, after a rename', async () => {
    await writeCrawl(ctx.t.db, {
      providerId: 'greenhouse',
      board: 'ottertech',
      companyDomain: 'ottertech.example',
      postings: [posting('o-1', 'Backend Engineer', { name: 'Otter Tech', domain: 'ottertech.example' })],
    });
    expect(((await get('/v1/companies/otter-tech')).json() as { data: Company }).data).toMatchObject({ name: 'Otter Tech', open_roles: 1 });
    await writeCrawl(ctx.t.db, {
      providerId: 'greenhouse',
      board: 'ottertech',
      companyDomain: 'ottertech.example',
      postings: [posting('o-1', 'Backend Engineer', { name: 'Otter Robotics', domain: 'ottertech.example' })],
    });

    for (const [prefix, headers] of [['/v1', bearer(ctx.key)], ['/public', {}]] as const) {
      const old = await ctx.app.inject({ method: 'GET', url: `${prefix}/companies/otter-tech`, headers });
      expect(old.statusCode).toBe(301);
      expect(old.headers.location).toBe(`${prefix}/companies/otter-robotics`);
      expect(old.headers['cache-control']).toBe('no-store');
      const current = await ctx.app.inject({ method: 'GET', url: old.headers.location as string, headers });
      expect(current.statusCode).toBe(200);
      expect((current.json() as { data: Company }).data).toMatchObject({ slug: 'otter-robotics', name: 'Otter Robotics', domain: 'ottertech.example', open_roles: 1 });
    }
    expect((await jobsOf('otter-robotics')).map((j) => j.company)).toEqual(['Otter Robotics']);
    const missing = await get('/v1/companies/never-heard-of-them');
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toMatchObject({ error: 'not_found', message: expect.stringContaining('/v1/companies?q=') });
  });

  it('gives one of two companies with the same bare slug a hash suffix; both resolve', async () => {
    await writeCrawl(ctx.t.db, {
      providerId: 'lever',
      board: 'nimbus-io',
      companyDomain: 'nimbus.io',
      postings: [posting('n-1', 'SRE', { name: 'Nimbus', domain: 'nimbus.io' })],
    });
    await writeCrawl(ctx.t.db, {
      providerId: 'lever',
      board: 'nimbus-dev',
      companyDomain: 'nimbus.dev',
      postings: [posting('n-2', 'Sales Lead', { name: 'Nimbus', domain: 'nimbus.dev' }), posting('n-3', 'Recruiter', { name: 'Nimbus', domain: 'nimbus.dev' })],
    });
    const found = await companies('q=nimbus');
    expect(found).toHaveLength(2);
    const slugs = found.map((c) => c.slug!).sort();
    expect(slugs[0]).toBe('nimbus');
    expect(slugs[1]).toMatch(/^nimbus-[0-9a-f]{6}$/);
    for (const company of found) {
      const one = (await get(`/v1/companies/${company.slug}`)).json() as { data: Company };
      expect(one.data).toEqual(company);
      expect((await jobsOf(company.slug!)).length).toBe(company.open_roles);
    }
    expect(found.map((c) => c.domain).sort()).toEqual(['nimbus.dev', 'nimbus.io']);
    expect(found[0]!.open_roles).toBe(2);
  });

  it('serves the keyless twin: one page of at most 50, no paging, cached for 600 s', async () => {
    const res = await ctx.app.inject({ method: 'GET', url: '/public/companies?limit=500' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['cache-control']).toBe('public, max-age=600');
    expect(res.headers['access-control-allow-origin']).toBe('*');
    const page = res.json() as CompanyPage;
    expect(page).toMatchObject({ limit: 50, offset: 0, has_more: false, next_cursor: null });
    expect(page.data).toHaveLength(50);
    const keyed = (await get('/v1/companies?limit=50')).json() as CompanyPage;
    expect(page.data).toEqual(keyed.data);
    expect((await ctx.app.inject({ method: 'GET', url: '/public/companies?cursor=abc' })).json().error).toBe('key_required_to_page');
    expect((await ctx.app.inject({ method: 'GET', url: '/public/companies?offset=50' })).json().error).toBe('key_required_to_page');
    const one = await ctx.app.inject({ method: 'GET', url: `/public/companies/${page.data[0]!.slug}` });
    expect(one.headers['cache-control']).toBe('public, max-age=600');
    expect((one.json() as { data: Company }).data).toEqual(page.data[0]);
    expect((await ctx.app.inject({ method: 'GET', url: '/v1/companies' })).statusCode).toBe(401);
  });
});
