/**
 * Every parameter of the /v1/jobs query surface, table-driven (spec: Endpoints › Shared listing
 * filters; GET /v1/jobs; Errors › 422 codes). For each parameter: a value that matches some rows and
 * not others, paged to the end and compared row for row with an oracle computed here from the stored
 * rows; its case variants; its comma list; and its 422 where it has one, whose message must name the
 * value and the endpoint listing the legal values.
 *
 * The ledger is the imported real corpus plus a few hand-built rows written through `applyCrawl` for
 * what the corpus lacks (staffing and job-board posters, gated and removed rows, a salary parsed from
 * the advert, a career-site row).
 */
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Job } from '../src/domain/job.ts';
import type { CreatedKey } from '../src/access/api-keys.ts';
import { allPages, bearer, buildTestApp, createUnlimitedKey } from './helpers/app.ts';
import { createTestDatabase, type TestDatabase } from './helpers/database.ts';
import { handBuiltJob, writeHandBuiltRows } from './helpers/ledger-rows.ts';
import { tampered } from './helpers/tamper.ts';

type Page = { data: Job[]; has_more: boolean; next_cursor: string | null; completeness?: Record<string, number> };

/** What the oracle knows about a stored row. */
interface Row {
  id: string;
  served: boolean;
  status: string;
  withheld_kind: string | null;
  poster_type: string | null;
  sort_key: string;
  category: string | null;
  country: string | null;
  city: string | null;
  state: string | null;
  remote: string | null;
  remote_inferred: boolean;
  employment_type: string | null;
  seniority: string | null;
  provider_id: string;
  source_type: string;
  company_slug: string;
  company_domain: string | null;
  salary_source: string | null;
  salary_min_annual_eur: string | null;
  has_description: boolean;
  field_sources: Record<string, string>;
  posted_at: Date | null;
  last_verified_at: Date;
  title: string;
  company_name: string;
  location: string | null;
  description_text: string | null;
}

/** Whole-word, case-insensitive match: what the `simple` configuration does for a plain word. */
function hasWord(text: string | null, word: string): boolean {
  return text !== null && new RegExp(`(^|[^\\p{L}\\p{N}])${word}($|[^\\p{L}\\p{N}])`, 'iu').test(text);
}

interface Case {
  /** Query string of the canonical value (URL-encoded as needed). */
  query: string;
  matches: (r: Row) => boolean;
  /** Other spellings of the same query: each must give exactly the same rows. */
  variants?: string[];
  /** A comma list and the rows it must give (the union, or for require_fields the intersection). */
  list?: { query: string; matches: (r: Row) => boolean };
  /** A value refused with 422, its code and the endpoint its message must name. */
  error?: { query: string; value: string; code: string; where: string };
}

describe('every /v1/jobs parameter', () => {
  let t: TestDatabase;
  let app: FastifyInstance;
  let key: CreatedKey;
  let rows: Row[];
  let verifiedBetween: string;

  beforeAll(async () => {
    t = await createTestDatabase({ corpus: true });
    const before = await t.db.selectFrom('jobs').select((eb) => eb.fn.max('last_verified_at').as('at')).executeTakeFirstOrThrow();
    verifiedBetween = new Date(new Date(before.at as Date).getTime() + 1).toISOString();
    await new Promise((resolve) => setTimeout(resolve, 5));
    const description = (text: string) => ({ hasDescription: true, descriptionHtml: `<p>${text}</p>`, descriptionText: text });
    await writeHandBuiltRows(t.db, [
      {
        job: handBuiltJob({ sourcePostingId: 'staffing-1', title: 'Warehouse Associate (agency)', posterType: 'staffing', country: 'US', location: 'Columbus, OH', state: 'OH', city: 'Columbus', postedAt: '2026-11-01T00:00:00Z', fieldSources: { location: 'published', posted_at: 'published' } }),
      },
      {
        job: handBuiltJob({ sourcePostingId: 'jobboard-1', title: 'Barista (board repost)', posterType: 'jobboard', postedAt: '2026-11-02T00:00:00Z', fieldSources: { posted_at: 'published' } }),
      },
      {
        job: handBuiltJob({ sourcePostingId: 'gated-1', title: 'Pharmacist, future dated', postedAt: '2026-11-03T00:00:00Z', fieldSources: { posted_at: 'published' } }),
        verdict: { verdict: 'quality_gated', ruleId: 'posted_at.future', matchedHost: 'careers.example.org' },
      },
      {
        job: handBuiltJob({ sourcePostingId: 'removed-1', title: 'Pharmacist via aggregator', postedAt: '2026-11-04T00:00:00Z', fieldSources: { posted_at: 'published' } }),
        verdict: { verdict: 'quality_removed', ruleId: 'apply_url.aggregator', matchedHost: 'aggregator.example.net' },
      },
      {
        job: handBuiltJob({
          sourcePostingId: 'parsed-salary-1',
          title: 'Pharmacist',
          ...description('Salary EUR 52,000 per year.'),
          salary: { min: 52000, currency: 'EUR', period: 'annual', source: 'parsed_description', minAnnualEur: 52000, maxAnnualEur: null },
          country: 'DE',
          city: 'Berlin',
          location: 'Berlin',
          fieldSources: { salary: 'inferred', description: 'published', location: 'published' },
        }),
      },
      {
        job: handBuiltJob({ sourcePostingId: 'career-site-1', title: 'Line Cook', sourceType: 'career_site', providerType: 'direct', remote: 'on_site', remoteInferred: true, fieldSources: { remote: 'inferred' } }),
      },
    ]);
    rows = (await t.db
      .selectFrom('jobs as j')
      .innerJoin('companies as c', 'c.id', 'j.company_id')
      .select([
        'j.id', 'j.served', 'j.status', 'j.withheld_kind', 'j.poster_type', 'j.category', 'j.country', 'j.city', 'j.state', 'j.remote', 'j.remote_inferred',
        'j.employment_type', 'j.seniority', 'j.provider_id', 'j.source_type', 'c.slug as company_slug', 'c.domain as company_domain', 'j.salary_source',
        'j.salary_min_annual_eur', 'j.has_description', 'j.field_sources', 'j.posted_at', 'j.last_verified_at', 'j.title', 'j.company_name', 'j.location', 'j.description_text',
      ])
      .select((eb) => eb.cast<string>('j.sort_key', 'text').as('sort_key'))
      .execute()) as unknown as Row[];
    app = await buildTestApp(t);
    key = await createUnlimitedKey(t);
  });
  afterAll(async () => {
    await app.close();
    await t.drop();
  });

  const get = (query: string) => app.inject({ method: 'GET', url: `/v1/jobs?${query}`, headers: bearer(key) });

  /** Page to the end with limit=200; the rows must come in listing order, each once. */
  async function allIds(query: string): Promise<string[]> {
    const ids = (await allPages<Job>(get, `${query}&limit=200`)).map((j) => j.id);
    expect(new Set(ids).size).toBe(ids.length);
    return ids;
  }

  /** The ids an oracle selects, in the listing order (posted_at desc nulls last, id desc). */
  function expected(matches: (r: Row) => boolean, population: (r: Row) => boolean = (r) => r.served): string[] {
    // sort_key is PostgreSQL text of a timestamptz, '-infinity' for null posted_at.
    const key = (r: Row) => (r.posted_at ? r.posted_at.getTime() : Number.NEGATIVE_INFINITY);
    return rows
      .filter((r) => population(r) && matches(r))
      .sort((a, b) => key(b) - key(a) || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0))
      .map((r) => r.id);
  }

  const num = (v: string | null) => (v === null ? null : Number(v));
  const published = (r: Row, field: string) => r.field_sources[field] === 'published';

  const cases: Record<string, () => Case> = {
    category: () => ({
      query: 'category=Engineering',
      matches: (r) => r.category === 'Engineering',
      variants: ['category=ENGINEERING', 'category=engineering'],
      list: { query: 'category=Sales,uncategorised', matches: (r) => r.category === 'Sales' || r.category === null },
      error: { query: 'category=Astronauts', value: 'Astronauts', code: 'bad_category', where: '/v1/meta/facets' },
    }),
    'category (uncategorised, an ampersand family)': () => ({
      query: `category=${encodeURIComponent('Operations & Admin')}`,
      matches: (r) => r.category === 'Operations & Admin',
      variants: [`category=${encodeURIComponent('OPERATIONS & admin')}`],
      list: { query: 'category=uncategorised,Finance', matches: (r) => r.category === null || r.category === 'Finance' },
    }),
    exclude_category: () => ({
      query: 'exclude_category=Engineering',
      matches: (r) => r.category !== 'Engineering',
      variants: ['exclude_category=engineering'],
      list: { query: 'exclude_category=Engineering,uncategorised', matches: (r) => r.category !== 'Engineering' && r.category !== null },
      error: { query: 'exclude_category=Astronauts', value: 'Astronauts', code: 'bad_category', where: '/v1/meta/facets' },
    }),
    country: () => ({
      query: 'country=DE',
      matches: (r) => r.country === 'DE',
      variants: ['country=de', 'country=De'],
      list: { query: 'country=DE,fr', matches: (r) => r.country === 'DE' || r.country === 'FR' },
    }),
    exclude_country: () => ({
      query: 'exclude_country=US',
      matches: (r) => r.country !== 'US',
      variants: ['exclude_country=us'],
      list: { query: 'exclude_country=US,gb', matches: (r) => r.country !== 'US' && r.country !== 'GB' },
    }),
    city: () => ({
      query: 'city=London',
      matches: (r) => r.city === 'London',
      variants: ['city=LONDON', 'city=london'],
      list: { query: 'city=London,paris', matches: (r) => r.city === 'London' || r.city === 'Paris' },
    }),
    state: () => ({
      query: 'state=CA',
      matches: (r) => r.state === 'CA',
      variants: ['state=ca'],
      list: { query: 'state=ca,NY', matches: (r) => r.state === 'CA' || r.state === 'NY' },
      error: { query: 'state=ZZ', value: 'ZZ', code: 'bad_state', where: '/v1/meta/facets' },
    }),
    remote: () => ({
      query: 'remote=hybrid',
      matches: (r) => r.remote === 'hybrid',
      variants: ['remote=HYBRID', 'remote=Hybrid'],
      list: { query: 'remote=remote,not_stated', matches: (r) => r.remote === 'remote' || r.remote === null },
      error: { query: 'remote=sometimes', value: 'sometimes', code: 'bad_remote', where: '/v1/meta/facets' },
    }),
    'remote_confirmed=true': () => ({
      query: 'remote_confirmed=true',
      matches: (r) => published(r, 'remote'),
      variants: ['remote_confirmed=TRUE', 'remote_confirmed=yes'],
      error: { query: 'remote_confirmed=perhaps', value: 'perhaps', code: 'bad_boolean', where: 'remote_confirmed' },
    }),
    'remote_confirmed=false': () => ({
      query: 'remote_confirmed=false',
      matches: (r) => !published(r, 'remote'),
      variants: ['remote_confirmed=False', 'remote_confirmed=0'],
    }),
    employment_type: () => ({
      query: 'employment_type=Part-time',
      matches: (r) => r.employment_type === 'Part-time',
      variants: ['employment_type=part_time', 'employment_type=PART-TIME'],
      list: { query: 'employment_type=Contract,not_stated', matches: (r) => r.employment_type === 'Contract' || r.employment_type === null },
      error: { query: 'employment_type=gig', value: 'gig', code: 'bad_employment_type', where: '/v1/meta/facets' },
    }),
    seniority: () => ({
      query: 'seniority=Senior',
      matches: (r) => r.seniority === 'Senior',
      variants: ['seniority=SENIOR', 'seniority=senior'],
      list: { query: 'seniority=Lead,not_stated', matches: (r) => r.seniority === 'Lead' || r.seniority === null },
      error: { query: 'seniority=Wizard', value: 'Wizard', code: 'bad_seniority', where: '/v1/meta/facets' },
    }),
    provider: () => ({
      query: 'provider=greenhouse',
      matches: (r) => r.provider_id === 'greenhouse',
      variants: ['provider=GREENHOUSE', 'provider=GreenHouse'],
      list: { query: 'provider=greenhouse,LEVER', matches: (r) => r.provider_id === 'greenhouse' || r.provider_id === 'lever' },
      error: { query: 'provider=indeed', value: 'indeed', code: 'bad_provider', where: '/v1/meta/providers' },
    }),
    exclude_provider: () => ({
      query: 'exclude_provider=ashby',
      matches: (r) => r.provider_id !== 'ashby',
      variants: ['exclude_provider=ASHBY'],
      list: { query: 'exclude_provider=ashby,usajobs', matches: (r) => r.provider_id !== 'ashby' && r.provider_id !== 'usajobs' },
      error: { query: 'exclude_provider=indeed', value: 'indeed', code: 'bad_provider', where: '/v1/meta/providers' },
    }),
    source_type: () => ({
      query: 'source_type=public_agency',
      matches: (r) => r.source_type === 'public_agency',
      variants: ['source_type=GOVERNMENT', 'source_type=Public_Agency'],
      list: { query: 'source_type=direct,ats', matches: (r) => r.source_type === 'career_site' || r.source_type === 'ats' },
      error: { query: 'source_type=jobboard', value: 'jobboard', code: 'bad_source_type', where: '/v1/meta/facets' },
    }),
    'source_type (legacy direct)': () => ({
      query: 'source_type=direct',
      matches: (r) => r.source_type === 'career_site',
      variants: ['source_type=career_site', 'source_type=CAREER_SITE'],
      list: { query: 'source_type=career_site,aggregator,agency', matches: (r) => r.source_type === 'career_site' },
    }),
    exclude_source_type: () => ({
      query: 'exclude_source_type=ats',
      matches: (r) => r.source_type !== 'ats',
      variants: ['exclude_source_type=employer_ats', 'exclude_source_type=ATS'],
      list: { query: 'exclude_source_type=ats,government', matches: (r) => r.source_type !== 'ats' && r.source_type !== 'public_agency' },
      error: { query: 'exclude_source_type=jobboard', value: 'jobboard', code: 'bad_source_type', where: '/v1/meta/facets' },
    }),
    company: () => ({
      query: 'company=uipath',
      matches: (r) => r.company_slug === 'uipath',
      variants: ['company=UiPath', 'company=UIPATH'],
      list: { query: 'company=uipath,voodoo', matches: (r) => r.company_slug === 'uipath' || r.company_slug === 'voodoo' },
    }),
    company_domain: () => ({
      query: 'company_domain=uipath.com',
      matches: (r) => r.company_domain === 'uipath.com',
      variants: ['company_domain=UIPATH.COM', `company_domain=${encodeURIComponent('https://www.UiPath.com/careers?x=1')}`],
      list: { query: 'company_domain=uipath.com,www.voodoo.io', matches: (r) => r.company_domain === 'uipath.com' || r.company_domain === 'voodoo.io' },
    }),
    exclude_company_domain: () => ({
      query: 'exclude_company_domain=uipath.com',
      matches: (r) => r.company_domain !== 'uipath.com',
      variants: ['exclude_company_domain=UiPath.com', `exclude_company_domain=${encodeURIComponent('http://uipath.com/')}`],
      list: { query: 'exclude_company_domain=uipath.com,voodoo.io', matches: (r) => r.company_domain !== 'uipath.com' && r.company_domain !== 'voodoo.io' },
    }),
    'has_salary=true': () => ({
      query: 'has_salary=true',
      matches: (r) => r.salary_source === 'structured',
      variants: ['has_salary=structured', 'has_salary=TRUE', 'has_salary=Structured'],
      error: { query: 'has_salary=sometimes', value: 'sometimes', code: 'bad_salary', where: '/v1/openapi.json' },
    }),
    'has_salary=any': () => ({
      query: 'has_salary=any',
      matches: (r) => r.salary_source !== null,
      variants: ['has_salary=ANY'],
    }),
    'has_salary=false': () => ({
      query: 'has_salary=false',
      matches: (r) => r.salary_source === null,
      variants: ['has_salary=FALSE'],
    }),
    min_salary: () => ({
      query: 'min_salary=100000',
      matches: (r) => r.salary_min_annual_eur !== null && num(r.salary_min_annual_eur)! >= 100000,
      variants: ['min_salary=100000.00', 'min_salary=1e5'],
      error: { query: 'min_salary=100k', value: '100k', code: 'bad_salary', where: '/v1/openapi.json' },
    }),
    max_salary: () => ({
      query: 'max_salary=60000',
      matches: (r) => r.salary_min_annual_eur !== null && num(r.salary_min_annual_eur)! <= 60000,
      variants: ['max_salary=6e4', 'max_salary=+60000'],
      error: { query: 'max_salary=cheap', value: 'cheap', code: 'bad_salary', where: '/v1/openapi.json' },
    }),
    'has_description=true': () => ({
      query: 'has_description=true',
      matches: (r) => r.has_description,
      variants: ['has_description=TRUE', 'has_description=1'],
      error: { query: 'has_description=kinda', value: 'kinda', code: 'bad_boolean', where: 'has_description' },
    }),
    'has_description=false': () => ({
      query: 'has_description=false',
      matches: (r) => !r.has_description,
      variants: ['has_description=No'],
    }),
    require_fields: () => ({
      query: 'require_fields=salary',
      matches: (r) => published(r, 'salary'),
      variants: ['require_fields=SALARY', 'require_fields=Salary'],
      list: { query: 'require_fields=salary,remote', matches: (r) => published(r, 'salary') && published(r, 'remote') },
      error: { query: 'require_fields=seniority', value: 'seniority', code: 'field_never_published', where: '/v1/openapi.json' },
    }),
    'require_fields (source_type matches nothing)': () => ({
      query: 'require_fields=location',
      matches: (r) => published(r, 'location'),
      variants: ['require_fields=LOCATION'],
      list: { query: 'require_fields=location,source_type', matches: () => false },
      error: { query: 'require_fields=category', value: 'category', code: 'field_never_published', where: '/v1/openapi.json' },
    }),
    posted_after: () => ({
      query: 'posted_after=2025-10-01',
      matches: (r) => r.posted_at !== null && r.posted_at.getTime() > Date.parse('2025-10-01T00:00:00Z'),
      variants: ['posted_after=2025-10-01T00:00:00Z', `posted_after=${encodeURIComponent('2025-10-01T02:00:00+02:00')}`, 'posted_after=2025-10-01t00:00:00z'],
      error: { query: 'posted_after=yesterday', value: 'yesterday', code: 'bad_timestamp', where: '/v1/openapi.json' },
    }),
    verified_after: () => ({
      query: `verified_after=${encodeURIComponent(verifiedBetween)}`,
      matches: (r) => r.last_verified_at.getTime() > Date.parse(verifiedBetween),
      variants: [`verified_after=${encodeURIComponent(verifiedBetween.toLowerCase())}`],
      error: { query: 'verified_after=2026-02-30', value: '2026-02-30', code: 'bad_timestamp', where: '/v1/openapi.json' },
    }),
    q: () => ({
      query: 'q=london',
      matches: (r) => hasWord(`${r.title} ${r.company_name} ${r.location ?? ''}`, 'london'),
      variants: ['q=LONDON', 'q=London'],
    }),
    title: () => ({
      query: 'title=designer',
      matches: (r) => hasWord(r.title, 'designer'),
      variants: ['title=DESIGNER', 'title=Designer'],
    }),
    title_exclude: () => ({
      query: 'title_exclude=manager',
      matches: (r) => !hasWord(r.title, 'manager'),
      variants: ['title_exclude=MANAGER'],
    }),
    description_contains: () => ({
      query: 'description_contains=visa',
      matches: (r) => r.has_description && hasWord(r.description_text, 'visa'),
      variants: ['description_contains=VISA', 'description_contains=Visa'],
    }),
  };

  it.each(Object.keys(cases))('%s', async (name) => {
    const c = cases[name]!();
    const want = expected(c.matches);
    expect(want.length, 'a matching row exists').toBeGreaterThan(0);
    expect(want.length, 'a non-matching row exists').toBeLessThan(rows.filter((r) => r.served).length);
    expect(await allIds(c.query)).toEqual(want);

    for (const variant of c.variants ?? []) {
      const page = (await get(`${variant}&limit=200`)).json() as Page;
      expect(page.data.map((j) => j.id), variant).toEqual(want.slice(0, 200));
    }
    if (c.list) expect(await allIds(c.list.query), c.list.query).toEqual(expected(c.list.matches));
    if (c.error) {
      const res = await get(c.error.query);
      expect(res.statusCode).toBe(422);
      const body = res.json();
      expect(body.error).toBe(c.error.code);
      expect(body.message).toContain(`"${c.error.value}"`);
      expect(body.message).toContain(c.error.where);
    }
  });

  it('ANDs different parameters together', async () => {
    const ids = await allIds('country=US&remote=remote&category=Engineering&has_salary=any');
    const want = expected((r) => r.country === 'US' && r.remote === 'remote' && r.category === 'Engineering' && r.salary_source !== null);
    expect(want.length).toBeGreaterThan(0);
    expect(ids).toEqual(want);
  });

  it('matches nothing for the reserved source types and for an unknown country or domain, without error', async () => {
    for (const query of ['source_type=aggregator', 'source_type=AGENCY,aggregator', 'country=ZZ', 'company_domain=no-such-domain.example', 'company_domain=not a domain', 'city=Atlantis']) {
      const res = await get(query);
      expect(res.statusCode, query).toBe(200);
      expect((res.json() as Page).data, query).toEqual([]);
    }
  });

  it('pages small pages of a full-text search exactly, whichever step of the guarded plan answers', async () => {
    // With 7-row pages the bounded first step fills the early pages; further down the listing, where
    // matches thin out, the second step (every match, sorted) answers. The pages must join up exactly.
    const ids = (await allPages<Job>(get, 'q=london&limit=7')).map((j) => j.id);
    expect(ids).toEqual(expected((r) => hasWord(`${r.title} ${r.company_name} ${r.location ?? ''}`, 'london')));
  });

  it('implies has_description=true with description_contains', async () => {
    expect(await allIds('description_contains=visa&has_description=false')).toEqual([]);
    expect(await allIds('description_contains=visa&has_description=true')).toEqual(await allIds('description_contains=visa'));
  });

  it('adds completeness for require_fields: live rows across the whole ledger with each field published', async () => {
    const page = (await get('require_fields=salary,remote&country=US&limit=5')).json() as Page;
    const live = rows.filter((r) => r.served);
    expect(page.completeness).toEqual({
      salary: live.filter((r) => published(r, 'salary')).length,
      remote: live.filter((r) => published(r, 'remote')).length,
    });
    expect(page.data.every((j) => j.field_sources.salary === 'published' && j.field_sources.remote === 'published')).toBe(true);
    expect(((await get('limit=5')).json() as Page).completeness).toBeUndefined();
    const keyless = await app.inject({ method: 'GET', url: '/public/jobs?require_fields=description&limit=1' });
    expect(keyless.json().completeness).toEqual({ description: live.filter((r) => published(r, 'description')).length });
  });

  describe('paid-surface parameters', () => {
    const employerDirect = (r: Row) => r.withheld_kind === null && r.poster_type === null;

    it('status=closed and status=any keep the listing order and their own cursors', async () => {
      const closed = await allIds('status=closed');
      expect(closed).toEqual(expected(() => true, (r) => r.status === 'closed' && employerDirect(r)));
      expect(closed.length).toBeGreaterThan(1000);
      expect((await get('status=CLOSED&limit=200')).json().data.map((j: Job) => j.id)).toEqual(closed.slice(0, 200));
      const any = await allIds('status=any&country=US');
      expect(any).toEqual(expected((r) => r.country === 'US', employerDirect));
      const live = await allIds('status=live');
      expect(live).toEqual(expected(() => true));
      const bad = await get('status=open');
      expect(bad.statusCode).toBe(422);
      expect(bad.json()).toMatchObject({ error: 'bad_status', message: expect.stringContaining('"open"') });
      expect(bad.json().message).toContain('/v1/openapi.json');
      // A cursor carries its scope: one from the live listing is refused on status=any.
      const cursor = ((await get('limit=5')).json() as Page).next_cursor!;
      const crossed = await get(`status=any&limit=5&cursor=${encodeURIComponent(cursor)}`);
      expect(crossed.json().error).toBe('bad_cursor');
    });

    it('quality=all re-admits gated rows, never removed ones, and shows every verdict', async () => {
      const res = await allIds('quality=all');
      expect(res).toEqual(expected(() => true, (r) => r.status === 'live' && r.poster_type === null && (r.withheld_kind === null || r.withheld_kind === 'quality_gated')));
      const page = (await get('quality=ALL&q=pharmacist&limit=50')).json() as Page;
      const gated = page.data.find((j) => j.title === 'Pharmacist, future dated');
      expect(gated).toMatchObject({ quality_verdict: 'quality_gated', quality_rule_id: 'posted_at.future', quality_matched_host: 'careers.example.org' });
      expect(page.data.some((j) => j.title === 'Pharmacist via aggregator')).toBe(false);
      expect(page.data.filter((j) => j !== gated).every((j) => j.quality_verdict === 'live')).toBe(true);
      const plain = (await get('q=pharmacist&limit=50')).json() as Page;
      expect(plain.data.some((j) => j.title === 'Pharmacist, future dated')).toBe(false);
      expect(plain.data.every((j) => j.quality_verdict === undefined)).toBe(true);
      const bad = await get('quality=best');
      expect(bad.json()).toMatchObject({ error: 'bad_quality', message: expect.stringContaining('"best"') });
    });

    it('include_poster_type re-admits staffing and job-board rows', async () => {
      const poster = (types: string[]) => (r: Row) => r.status === 'live' && r.withheld_kind === null && (r.poster_type === null || types.includes(r.poster_type));
      expect(await allIds('include_poster_type=staffing')).toEqual(expected(() => true, poster(['staffing'])));
      expect(await allIds('include_poster_type=STAFFING,jobboard')).toEqual(expected(() => true, poster(['staffing', 'jobboard'])));
      expect(await allIds('include_poster_type=all')).toEqual(expected(() => true, poster(['staffing', 'jobboard'])));
      expect(expected(() => true, poster(['staffing'])).length).toBe(expected(() => true).length + 1);
      const bad = await get('include_poster_type=recruiter');
      expect(bad.statusCode).toBe(422);
      expect(bad.json()).toMatchObject({ error: 'bad_poster_type', message: expect.stringContaining('"recruiter"') });
    });

    it('are refused on the keyless surface with 403 paid_feature, and status=live is accepted', async () => {
      for (const query of ['status=closed', 'status=ANY', 'quality=all', 'include_poster_type=staffing']) {
        const res = await app.inject({ method: 'GET', url: `/public/jobs?${query}` });
        expect(res.statusCode, query).toBe(403);
        expect(res.json().error).toBe('paid_feature');
      }
      const live = await app.inject({ method: 'GET', url: '/public/jobs?status=live&limit=50' });
      expect(live.statusCode).toBe(200);
      expect(live.json().data.map((j: Job) => j.id)).toEqual(expected(() => true).slice(0, 50));
      expect((await app.inject({ method: 'GET', url: '/public/jobs?status=open' })).json().error).toBe('bad_status');
    });
  });

  describe('parameter semantics', () => {
    it('keeps names case-sensitive, ignores unknown names, uses the first of a repeated parameter', async () => {
      const all = expected(() => true);
      expect((await get('Country=DE&limit=200')).json().data.map((j: Job) => j.id)).toEqual(all.slice(0, 200));
      expect((await get('frobnicate=1&limit=3')).json().data.map((j: Job) => j.id)).toEqual(all.slice(0, 3));
      expect(await allIds('country=DE&country=US')).toEqual(expected((r) => r.country === 'DE'));
      expect((await get('category=Astronauts&category=Engineering')).statusCode).toBe(422);
    });

    it('truncates a provider list to 12 values', async () => {
      const twelve = Array.from({ length: 12 }, () => 'lever');
      const res = await get(`provider=${[...twelve, 'not-a-provider'].join(',')}&limit=200`);
      expect(res.statusCode).toBe(200);
      expect(res.json().data.every((j: Job) => j.source === 'lever')).toBe(true);
    });

    it('refuses a tampered cursor or one from another query with bad_cursor naming the endpoint', async () => {
      const cursor = ((await get('country=US&limit=5')).json() as Page).next_cursor!;
      for (const bad of [tampered(cursor), cursor.slice(0, 12), 'x.y', '%%%', `${cursor}.`]) {
        const res = await get(`country=US&limit=5&cursor=${encodeURIComponent(bad)}`);
        expect(res.statusCode, bad).toBe(422);
        expect(res.json().error).toBe('bad_cursor');
        expect(res.json().message).toContain('/v1/jobs');
      }
      expect((await get(`country=DE&limit=5&cursor=${encodeURIComponent(cursor)}`)).json().error).toBe('bad_cursor');
    });
  });
});
