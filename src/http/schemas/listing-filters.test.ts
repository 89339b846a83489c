/**
 * The listing queries' parse (spec: Shared listing filters; GET /v1/jobs; Keyless endpoints), through
 * the same contracts the routes serve: `keyedJobsQuery` and `keylessJobsQuery`.
 */
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../domain/errors.ts';
import { DEFAULT_SCOPE, LIST_MAX, PROVIDER_LIST_MAX } from '../../domain/listing-filter.ts';
import { LEGAL_VALUES_AT } from '../endpoints.ts';
import type { RawQuery } from '../query-table.ts';
import { commaList, parseDecimal, parseInstant, parseLimit } from '../query-values.ts';
import { keyedJobsQuery, keylessJobsQuery } from './jobs.ts';
import type { ListingContext } from './listing-filters.ts';

const keyed: ListingContext = { surface: 'keyed', providers: ['ashby', 'greenhouse', 'lever', 'usajobs'], maxLimit: 200 };
const keyless: ListingContext = { ...keyed, maxLimit: 50, surface: 'keyless' };

/** The shared filters as the listing parses them on the caller's surface. */
const parseJobFilter = (query: RawQuery, ctx: ListingContext) => (ctx.surface === 'keyless' ? keylessJobsQuery : keyedJobsQuery).parse(query, ctx).filter;
/** Filters and page parameters of `/v1/jobs` (or `/public/jobs`). */
const parseListingQuery = (query: RawQuery, ctx: ListingContext) => (ctx.surface === 'keyless' ? keylessJobsQuery : keyedJobsQuery).parse(query, ctx);
/** The serving scope of `/v1/jobs` (or `/public/jobs`). */
const parseServingScope = (query: RawQuery, ctx: ListingContext) => parseListingQuery(query, ctx).scope;
const parseJobsQuery = parseListingQuery;
/** A salary bound as `min_salary` reads it. */
const parseSalaryBound = (name: string, value: string) => keyedJobsQuery.parse({ [name]: value }, keyed).filter.minSalary;
const V1_CONTRACT = LEGAL_VALUES_AT.keyed.contract;

function errorOf(fn: () => unknown): ApiError {
  try {
    fn();
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  throw new Error('expected an ApiError');
}

describe('parseInstant', () => {
  it('reads a date as midnight UTC and RFC 3339 timestamps with their offset', () => {
    expect(parseInstant('x', '2026-11-01', V1_CONTRACT)?.toISOString()).toBe('2026-11-01T00:00:00.000Z');
    expect(parseInstant('x', '2026-11-01T09:30:00+01:00', V1_CONTRACT)?.toISOString()).toBe('2026-11-01T08:30:00.000Z');
    expect(parseInstant('x', '2026-11-01t09:30z', V1_CONTRACT)?.toISOString()).toBe('2026-11-01T09:30:00.000Z');
    expect(parseInstant('x', '2026-11-01 09:30:15.25-0230', V1_CONTRACT)?.toISOString()).toBe('2026-11-01T12:00:15.250Z');
    expect(parseInstant('x', '2026-12-31T23:59:60Z', V1_CONTRACT)?.toISOString()).toBe('2026-12-31T23:59:59.999Z');
    expect(parseInstant('x', '0050-03-01', V1_CONTRACT)?.toISOString()).toBe('0050-03-01T00:00:00.000Z');
    expect(parseInstant('x', '2024-02-29', V1_CONTRACT)?.toISOString()).toBe('2024-02-29T00:00:00.000Z');
  });

  it('refuses impossible dates instead of rolling them over, naming the value and where formats are listed', () => {
    for (const bad of ['2026-02-30', '2025-02-29', '2026-13-01', '0000-01-01', '2026-01-01T24:00:00Z', '2026-01-01T00:60Z', '2026-01-01T00:00:00+24:00', 'yesterday', '2026-01-01T00:00:00', '1700000000']) {
      const error = errorOf(() => parseJobFilter({ posted_after: bad }, keyed));
      expect(error.code).toBe('bad_timestamp');
      expect(error.message).toContain(JSON.stringify(bad));
      expect(error.message).toContain('/v1/openapi.json');
    }
    expect(errorOf(() => parseJobFilter({ verified_after: 'x' }, keyless)).message).toContain('/public/openapi.json');
  });
});

describe('parseLimit and lists', () => {
  it('clamps, floors, and falls back to the default for non-numbers', () => {
    expect(parseLimit('5000', 200, 25)).toBe(200);
    expect(parseLimit('0', 200, 25)).toBe(1);
    expect(parseLimit('-7', 200, 25)).toBe(1);
    expect(parseLimit('12.9', 200, 25)).toBe(12);
    expect(parseLimit('abc', 200, 25)).toBe(25);
    expect(parseLimit('Infinity', 200, 25)).toBe(25);
    expect(parseLimit(undefined, 10, 25)).toBe(10);
    // What /v1/jobs serves for the same values.
    const limit = (value: string) => parseListingQuery({ limit: value }, keyed).limit;
    expect([limit('5000'), limit('0'), limit('-7'), limit('12.9'), limit('abc'), limit('Infinity')]).toEqual([200, 1, 1, 12, 25, 25]);
  });

  it('splits comma lists, dropping blanks and repeats, and truncates long ones', () => {
    expect(commaList(' a, b ,,a ', LIST_MAX)).toEqual(['a', 'b']);
    expect(commaList(' , ', LIST_MAX)).toBeUndefined();
    expect(commaList(Array.from({ length: 500 }, (_, i) => `v${i}`).join(','), LIST_MAX)).toHaveLength(LIST_MAX);
    expect(parseJobFilter({ city: Array.from({ length: 500 }, (_, i) => `v${i}`).join(',') }, keyed).city).toHaveLength(LIST_MAX);
  });

  it('reads salary bounds as plain numbers only', () => {
    expect(parseSalaryBound('min_salary', '50000')).toBe(50000);
    expect(parseSalaryBound('min_salary', '52500.5')).toBe(52500.5);
    expect(parseSalaryBound('min_salary', '1e5')).toBe(100000);
    for (const bad of ['50k', '0x10', 'Infinity', '1e999', '€50000', '']) {
      expect(parseDecimal(bad)).toBeUndefined();
      // An empty parameter is absent (spec: an empty value counts as absent), every other one is refused.
      if (bad !== '') expect(errorOf(() => parseSalaryBound('min_salary', bad)).code).toBe('bad_salary');
    }
    expect(parseSalaryBound('min_salary', '')).toBeUndefined();
  });
});

describe('parseJobFilter', () => {
  it('canonicalises every vocabulary value whatever its case', () => {
    const filter = parseJobFilter(
      {
        category: 'ENGINEERING,operations & admin,Uncategorised',
        exclude_category: 'sales',
        country: 'us,De',
        exclude_country: 'fr',
        city: 'San Francisco,PARIS',
        state: 'ca,Ny',
        remote: 'REMOTE,On-Site,not_stated',
        remote_confirmed: 'TRUE',
        employment_type: 'full_time,PART-TIME,not_stated',
        seniority: 'SENIOR,not_stated',
        provider: 'ASHBY,Lever',
        exclude_provider: 'USAJOBS',
        source_type: 'employer_ats,GOVERNMENT,direct,Aggregator',
        exclude_source_type: 'career_site',
        company: 'Acme,ACME',
        company_domain: 'https://www.Acme.com/careers,beta.io',
        exclude_company_domain: 'gamma.org',
        has_salary: 'Any',
        min_salary: '40000',
        max_salary: '90000.5',
        has_description: 'False',
        require_fields: 'SALARY,remote,salary',
        posted_after: '2026-01-01',
        verified_after: '2026-01-02T00:00:00Z',
        q: ' data engineer ',
        title: 'engineer',
        title_exclude: 'intern',
        description_contains: 'kubernetes',
      },
      keyed,
    );
    expect(filter).toEqual({
      category: ['Engineering', 'Operations & Admin', 'uncategorised'],
      excludeCategory: ['Sales'],
      country: ['US', 'DE'],
      excludeCountry: ['FR'],
      city: ['san francisco', 'paris'],
      state: ['CA', 'NY'],
      remote: ['remote', 'on_site', 'not_stated'],
      remoteConfirmed: true,
      employmentType: ['Full-time', 'Part-time', 'not_stated'],
      seniority: ['Senior', 'not_stated'],
      provider: ['ashby', 'lever'],
      excludeProvider: ['usajobs'],
      sourceType: ['ats', 'public_agency', 'career_site', 'aggregator'],
      excludeSourceType: ['career_site'],
      company: ['acme'],
      companyDomain: ['acme.com', 'beta.io'],
      excludeCompanyDomain: ['gamma.org'],
      hasSalary: 'any',
      minSalary: 40000,
      maxSalary: 90000.5,
      hasDescription: false,
      requireFields: ['salary', 'remote'],
      postedAfter: new Date('2026-01-01T00:00:00Z'),
      verifiedAfter: new Date('2026-01-02T00:00:00Z'),
      q: 'data engineer',
      title: 'engineer',
      titleExclude: 'intern',
      descriptionContains: 'kubernetes',
    });
  });

  it('treats empty values as absent and ignores unknown parameters', () => {
    expect(parseJobFilter({ country: '', q: '   ', Country: 'US', frobnicate: 'x' }, keyed)).toEqual({});
  });

  it('maps has_salary values', () => {
    const presence = (v: string) => parseJobFilter({ has_salary: v }, keyed).hasSalary;
    expect([presence('true'), presence('STRUCTURED'), presence('any'), presence('false')]).toEqual(['structured', 'structured', 'any', 'none']);
    expect(errorOf(() => presence('sometimes')).code).toBe('bad_salary');
  });

  it('truncates a provider list to 12 before checking it', () => {
    const providers = Array.from({ length: 20 }, (_, i) => `p${i}`);
    const filter = parseJobFilter({ provider: providers.join(',') }, { ...keyed, providers });
    expect(filter.provider).toEqual(providers.slice(0, PROVIDER_LIST_MAX));
    // The 13th value is dropped, so an unknown value there is no error.
    expect(parseJobFilter({ provider: `${providers.slice(0, 12).join(',')},nope` }, { ...keyed, providers }).provider).toHaveLength(12);
  });

  it.each([
    ['category', 'Astronauts', 'bad_category', '/v1/meta/facets'],
    ['exclude_category', 'Astronauts', 'bad_category', '/v1/meta/facets'],
    ['state', 'ZZ', 'bad_state', '/v1/meta/facets'],
    ['remote', 'sometimes', 'bad_remote', '/v1/meta/facets'],
    ['employment_type', 'gig', 'bad_employment_type', '/v1/meta/facets'],
    ['seniority', 'Wizard', 'bad_seniority', '/v1/meta/facets'],
    ['provider', 'indeed', 'bad_provider', '/v1/meta/providers'],
    ['exclude_provider', 'indeed', 'bad_provider', '/v1/meta/providers'],
    ['source_type', 'jobboard', 'bad_source_type', '/v1/meta/facets'],
    ['exclude_source_type', 'jobboard', 'bad_source_type', '/v1/meta/facets'],
    ['require_fields', 'category', 'field_never_published', '/v1/openapi.json'],
    ['require_fields', 'SENIORITY', 'field_never_published', '/v1/openapi.json'],
    ['require_fields', 'title', 'bad_field', '/v1/openapi.json'],
    ['posted_after', 'soon', 'bad_timestamp', '/v1/openapi.json'],
    ['verified_after', '2026-99-01', 'bad_timestamp', '/v1/openapi.json'],
    ['min_salary', 'lots', 'bad_salary', '/v1/openapi.json'],
    ['max_salary', 'lots', 'bad_salary', '/v1/openapi.json'],
    ['has_salary', 'maybe', 'bad_salary', '/v1/openapi.json'],
    ['remote_confirmed', 'maybe', 'bad_boolean', 'remote_confirmed'],
    ['has_description', 'maybe', 'bad_boolean', 'has_description'],
  ])('%s=%s is 422 %s, naming the value and %s', (name, value, code, where) => {
    const error = errorOf(() => parseJobFilter({ [name]: value }, keyed));
    expect(error.code).toBe(code);
    expect(error.status).toBe(422);
    expect(error.message).toContain(`"${value}"`);
    expect(error.message).toContain(where);
    // On the keyless surface the message points at the keyless twin.
    if (where.startsWith('/v1/')) expect(errorOf(() => parseJobFilter({ [name]: value }, keyless)).message).toContain(where.replace(/^\/v1\/(meta\/)?/, '/public/'));
  });

  it('names the offending item of a comma list, not the whole list', () => {
    const error = errorOf(() => parseJobFilter({ category: 'Engineering,Astronauts' }, keyed));
    expect(error.message).toContain('"Astronauts"');
    expect(error.message).not.toContain('Engineering,');
  });

  it('refuses a NUL character with 400 bad_request and cuts long values in messages', () => {
    expect(errorOf(() => parseJobFilter({ q: 'a\u0000b' }, keyed))).toMatchObject({ code: 'bad_request', status: 400 });
    const long = 'x'.repeat(5000);
    expect(errorOf(() => parseJobFilter({ category: long }, keyed)).message.length).toBeLessThan(300);
  });
});

describe('parseListingQuery', () => {
  it('clamps limit to the surface maximum and refuses more than 50 rows with descriptions', () => {
    expect(parseListingQuery({ limit: '500' }, keyed).limit).toBe(200);
    expect(parseListingQuery({ limit: '500' }, keyless).limit).toBe(50);
    expect(parseListingQuery({ limit: '500', include_description: 'true' }, keyless).limit).toBe(50);
    const error = errorOf(() => parseListingQuery({ limit: '51', include_description: 'true' }, keyed));
    expect(error.code).toBe('limit_too_large');
    expect(error.message).toContain('51');
    expect(parseListingQuery({ cursor: ' abc ' }, keyed).cursor).toBe('abc');
  });
});

describe('parseServingScope', () => {
  it('defaults to live, employer-direct, ungated rows', () => {
    expect(parseServingScope({}, keyed)).toEqual(DEFAULT_SCOPE);
    expect(parseServingScope({ status: 'LIVE' }, keyless)).toEqual(DEFAULT_SCOPE);
  });

  it('reads status, quality and include_poster_type in any case', () => {
    expect(parseServingScope({ status: 'Closed', quality: 'ALL', include_poster_type: 'Staffing,jobboard' }, keyed)).toEqual({
      status: 'closed',
      qualityAll: true,
      posterTypes: ['staffing', 'jobboard'],
    });
    expect(parseServingScope({ include_poster_type: 'all' }, keyed).posterTypes).toEqual(['staffing', 'jobboard']);
    expect(parseServingScope({ status: 'any' }, keyed).status).toBe('any');
  });

  it.each([
    ['status', 'open', 'bad_status'],
    ['quality', 'best', 'bad_quality'],
    ['include_poster_type', 'recruiter', 'bad_poster_type'],
  ])('%s=%s is 422 %s naming the value', (name, value, code) => {
    const error = errorOf(() => parseServingScope({ [name]: value }, keyed));
    expect(error.code).toBe(code);
    expect(error.message).toContain(`"${value}"`);
    expect(error.message).toContain('/v1/openapi.json');
  });

  it.each([['status', 'closed'], ['status', 'any'], ['quality', 'all'], ['include_poster_type', 'staffing']])(
    'refuses %s=%s without a key with 403 paid_feature',
    (name, value) => {
      const error = errorOf(() => parseJobsQuery({ [name]: value }, keyless));
      expect(error.code).toBe('paid_feature');
      expect(error.status).toBe(403);
      expect(error.message).toContain('/v1/jobs');
    },
  );
});
