/**
 * Generated requests against the listing surface: random strings, numbers, unicode, empty, repeated
 * and malformed values for every query parameter, on the imported real corpus. Whatever arrives, the
 * answer is a 2xx page or a 4xx error from the catalogue — never a 5xx (spec: Errors; "Bad input gets
 * a clear error ... never a 500"). 2,400 requests in all.
 */
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { ERROR_STATUS } from '../src/domain/errors.ts';
import { CATEGORY_FAMILIES, EMPLOYMENT_TYPES, REMOTE_VALUES, SENIORITY_LEVELS, SOURCE_TYPES, US_STATES } from '../src/domain/vocabulary.ts';
import { bearer, useCorpusApp } from './helpers/app.ts';


const BOOLEANS = ['true', 'false', '1', '0', 'yes', 'no'];
const DATES = ['2025-10-01', '2026-02-28', '2026-11-01T08:00:00+01:00', '2026-11-01t08:00z', '0001-01-01', '9999-12-31T23:59:59-23:59', '2024-02-29'];
const WORDS = ['engineer', '"data engineer"', 'engineer or nurse', '-senior', 'london', 'python', 'visa', 'zeitgeist', 'nosuchwordanywhere'];

/** Legal values of each parameter, as a client would send them. */
const LEGAL: Record<string, readonly string[]> = {
  category: [...CATEGORY_FAMILIES, 'uncategorised'],
  exclude_category: [...CATEGORY_FAMILIES, 'uncategorised'],
  country: ['US', 'de', 'GB', 'fr', 'ZZ'],
  exclude_country: ['US', 'de', 'GB'],
  city: ['London', 'paris', 'Berlin', 'Atlantis'],
  state: Object.keys(US_STATES),
  remote: [...REMOTE_VALUES, 'not_stated'],
  remote_confirmed: BOOLEANS,
  employment_type: [...EMPLOYMENT_TYPES, 'full_time', 'not_stated'],
  seniority: [...SENIORITY_LEVELS, 'not_stated'],
  provider: ['ashby', 'greenhouse', 'lever', 'usajobs'],
  exclude_provider: ['ashby', 'greenhouse', 'lever', 'usajobs'],
  source_type: [...SOURCE_TYPES, 'employer_ats', 'government', 'direct'],
  exclude_source_type: [...SOURCE_TYPES, 'employer_ats', 'government', 'direct'],
  company: ['uipath', 'voodoo', 'bjak', 'no-such-company'],
  company_domain: ['uipath.com', 'https://www.uipath.com/x', 'voodoo.io'],
  exclude_company_domain: ['uipath.com', 'voodoo.io'],
  has_salary: ['true', 'structured', 'any', 'false'],
  min_salary: ['0', '50000', '1e5', '-1', '99999999999'],
  max_salary: ['0', '60000', '1e308', '250000.5'],
  has_description: BOOLEANS,
  include_description: BOOLEANS,
  require_fields: ['remote', 'employment_type', 'salary', 'location', 'posted_at', 'description', 'source_type'],
  posted_after: DATES,
  verified_after: DATES,
  q: WORDS,
  title: WORDS,
  title_exclude: WORDS,
  description_contains: WORDS,
  status: ['live', 'closed', 'any'],
  quality: ['all'],
  include_poster_type: ['staffing', 'jobboard', 'all'],
  limit: ['1', '25', '50', '200', '201', '0', '-5', 'abc', '2.5', 'Infinity'],
  cursor: [],
};
const PARAMETERS = Object.keys(LEGAL);
const KNOWN_VALUES = [...new Set(Object.values(LEGAL).flat())];

/** Parameters that take any text without a 422: their values reach SQL as they are. */
const FREE_TEXT = new Set(['country', 'exclude_country', 'city', 'company', 'company_domain', 'exclude_company_domain', 'q', 'title', 'title_exclude', 'description_contains', 'limit']);

const caseVariant = (v: string) => fc.constantFrom(v, v.toUpperCase(), v.toLowerCase());
const known = fc.constantFrom(...KNOWN_VALUES).chain(caseVariant);
const legal = (n: string) => (LEGAL[n]?.length ? fc.constantFrom(...LEGAL[n]!).chain(caseVariant) : known);

/** Anything: random, unicode, binary-ish, numeric, huge, empty, punctuation, or a comma list. */
const anything: fc.Arbitrary<string> = fc.oneof(
  fc.string(),
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.integer().map(String),
  fc.double().map(String),
  fc.constantFrom('', ' ', ',', ',,,', '%', '%zz', '&', '=', '+', '#', '\\', "'", '"', ';--', '\u0000', '\uFFFD', '\u202E', '🙂', 'é'.normalize('NFD'), '!', '<->', '&&', '(', ':*'),
  fc.string({ minLength: 500, maxLength: 3000 }),
  fc.array(fc.oneof(known, fc.string({ maxLength: 8 })), { minLength: 2, maxLength: 20 }).map((items) => items.join(',')),
);

/** A value for `name`: free-text parameters get anything; the others mostly legal values, so most requests reach the database. */
function valueFor(name: string): fc.Arbitrary<string> {
  if (FREE_TEXT.has(name)) return fc.oneof(anything, legal(name));
  return fc.oneof(
    { weight: 12, arbitrary: legal(name) },
    { weight: 3, arbitrary: fc.array(legal(name), { minLength: 2, maxLength: 14 }).map((items) => items.join(',')) },
    { weight: 1, arbitrary: anything },
  );
}

/** A parameter name: a real one (sometimes in the wrong case) or an unknown one. */
const name: fc.Arbitrary<string> = fc.oneof(
  { weight: 8, arbitrary: fc.constantFrom(...PARAMETERS) },
  { weight: 1, arbitrary: fc.constantFrom(...PARAMETERS).map((p) => p.toUpperCase()) },
  { weight: 1, arbitrary: fc.string({ maxLength: 12 }) },
);

/** A query string of 1-5 pairs (names may repeat), encoded properly or sent raw. */
const queryString: fc.Arbitrary<string> = fc
  .tuple(fc.array(name.chain((n) => valueFor(n).map((v) => [n, v] as const)), { minLength: 1, maxLength: 5 }), fc.boolean())
  .map(([pairs, raw]) =>
    pairs
      .map(([n, v]) => (raw ? `${n}=${v.replace(/[#\s]/g, (c) => encodeURIComponent(c))}` : `${encodeURIComponent(n)}=${encodeURIComponent(v)}`))
      .join('&'),
  );

describe('fuzzing the listing parameters', () => {
  const ctx = useCorpusApp({ key: 'unlimited' });
  let cursors: string[];

  beforeAll(async () => {
    const first = await ctx.app.inject({ method: 'GET', url: '/v1/jobs?limit=3', headers: bearer(ctx.key) });
    cursors = [first.json().next_cursor as string];
  });

  async function check(url: string, headers: Record<string, string>): Promise<void> {
    let res;
    try {
      res = await ctx.app.inject({ method: 'GET', url, headers });
    } catch (error) {
      // A URL the HTTP layer itself cannot represent is the client's problem, not a server error.
      expect((error as Error).message).toMatch(/invalid|URI|character/i);
      return;
    }
    expect(res.statusCode, `${url} -> ${res.body.slice(0, 300)}`).toBeLessThan(500);
    const body = res.json() as Record<string, unknown>;
    if (res.statusCode === 200) {
      expect(Array.isArray(body.data)).toBe(true);
    } else {
      expect(Object.keys(ERROR_STATUS)).toContain(body.error);
      expect(ERROR_STATUS[body.error as keyof typeof ERROR_STATUS]).toBe(res.statusCode);
      expect(typeof body.message).toBe('string');
    }
  }

  it('never answers 5xx on /v1/jobs (1,600 generated requests)', async () => {
    const cursor = fc.oneof(fc.constantFrom(...cursors), fc.constantFrom(...cursors).map((c) => `${c.slice(0, -4)}AAAA`), fc.base64String(), anything);
    const withCursor = fc.tuple(queryString, fc.oneof({ weight: 5, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: cursor }));
    await fc.assert(
      fc.asyncProperty(withCursor, async ([query, cursor]) => {
        const suffix = cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`;
        await check(`/v1/jobs?${query}${suffix}`, bearer(ctx.key));
      }),
      { numRuns: 1600 },
    );
    // Correctness, not speed: a loaded CI machine may take minutes for 1,600 requests.
  }, 600_000);

  it('never answers 5xx on /public/jobs (800 generated requests)', async () => {
    await fc.assert(
      fc.asyncProperty(queryString, async (query) => {
        await check(`/public/jobs?${query}`, {});
      }),
      { numRuns: 800 },
    );
  }, 600_000);
});
