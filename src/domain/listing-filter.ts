/**
 * The one module that owns query-parameter semantics for job listings (spec: Endpoints › Shared
 * listing filters; Errors › Deliberate non-errors; ARCHITECTURE "Query parameters follow the spec").
 *
 * Rules: names are case-sensitive; values are case-insensitive; a comma list ORs within a parameter;
 * parameters AND together; the first occurrence of a repeated parameter wins (done by the HTTP layer's
 * query parser); unknown parameters are ignored; an empty value counts as absent; `limit` is clamped,
 * and a non-numeric `limit` falls back to the default. A vocabulary error is a 422 whose message names
 * the offending value and the endpoint that lists the legal values.
 */
import { ApiError } from './errors.ts';
import { EMPLOYMENT_TYPES, NOT_STATED, REMOTE_VALUES, type EmploymentType, type Remote } from './vocabulary.ts';

/** The query string after first-occurrence de-duplication: one string per parameter name. */
export type RawQuery = Readonly<Record<string, string | undefined>>;

/** Which surface is asking, for clamps and for the "where are legal values listed" in messages. */
export interface ListingContext {
  /** Redistributable provider ids (spec: "An unlisted name is a 422"). */
  providers: readonly string[];
  /** Largest page the caller may get: the plan's `max_page_size`, or 50 on the keyless surface. */
  maxLimit: number;
  /** True on `/public`. */
  keyless: boolean;
  /**
   * ISO-3166 alpha-2 of a country-locked key (spec: Authentication item 9, "a request for another
   * country returns nothing"): it is ANDed with whatever the query asks, never replaces it.
   */
  countryLock?: string;
}

/** Filters of a job listing. Every list is non-empty when present; values are canonical. */
export interface JobFilter {
  /** Upper-case ISO-3166 alpha-2 codes. */
  country?: string[];
  remote?: Array<Remote | typeof NOT_STATED>;
  employmentType?: Array<EmploymentType | typeof NOT_STATED>;
  /** Lower-case company slugs. */
  company?: string[];
  /** Provider ids, at most {@link PROVIDER_LIST_MAX}. */
  provider?: string[];
  /** Full-text over title, company name and location (no stemming). */
  q?: string;
  postedAfter?: Date;
  /** A country-locked key's country: only rows in it match, whatever the other filters say. */
  countryLock?: string;
}

export interface ListingRequest {
  filter: JobFilter;
  /** Page size after clamping. */
  limit: number;
  cursor?: string;
  includeDescription: boolean;
}

/** Default page size (spec: Limits). */
export const DEFAULT_LIMIT = 25;
/** Largest page with descriptions (spec: include_description with limit above 50 is 422). */
export const DESCRIPTION_LIMIT_MAX = 50;
/** Longest `provider` list; longer lists are truncated (spec: Limits). */
export const PROVIDER_LIST_MAX = 12;

/** Endpoint that lists legal values of a vocabulary, on the caller's surface. */
export function vocabularyEndpoint(keyless: boolean, vocabulary: 'facets' | 'providers'): string {
  if (vocabulary === 'providers') return keyless ? '/public/providers' : '/v1/meta/providers';
  return keyless ? '/public/facets' : '/v1/meta/facets';
}

function present(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const trimmed = value.trim();
  return trimmed === '' ? undefined : trimmed;
}

/** Split a comma list into trimmed, non-empty, de-duplicated items; undefined when none remain. */
export function commaList(value: string | undefined): string[] | undefined {
  const v = present(value);
  if (v === undefined) return undefined;
  const items = [...new Set(v.split(',').map((s) => s.trim()).filter(Boolean))];
  return items.length > 0 ? items : undefined;
}

/** Page size: clamped to [1, max]; non-numeric → default (spec: Deliberate non-errors). */
export function parseLimit(value: string | undefined, max: number, fallback = DEFAULT_LIMIT): number {
  const v = present(value);
  const n = v === undefined ? Number.NaN : Number(v);
  if (!Number.isFinite(n)) return Math.min(fallback, max);
  return Math.max(1, Math.min(Math.floor(n), max));
}

/**
 * A boolean parameter: true/false, 1/0, yes/no (any case). Absent → `fallback`.
 * @throws ApiError 422 `bad_boolean` for anything else.
 */
export function parseBoolean(name: string, value: string | undefined, fallback: boolean): boolean {
  const v = present(value)?.toLowerCase();
  if (v === undefined) return fallback;
  if (v === 'true' || v === '1' || v === 'yes') return true;
  if (v === 'false' || v === '0' || v === 'no') return false;
  throw new ApiError('bad_boolean', `The value "${value}" of ${name} is not a boolean; send true or false.`);
}

/**
 * An instant: a date (`2026-11-01`, midnight UTC) or an RFC 3339 timestamp with offset.
 * @throws ApiError 422 `bad_timestamp`.
 */
export function parseInstant(name: string, value: string | undefined): Date | undefined {
  const v = present(value);
  if (v === undefined) return undefined;
  const date = /^\d{4}-\d{2}-\d{2}$/.test(v)
    ? new Date(`${v}T00:00:00Z`)
    : /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?([Zz]|[+-]\d{2}:?\d{2})$/.test(v)
      ? new Date(v.replace(' ', 'T'))
      : new Date(Number.NaN);
  if (Number.isNaN(date.getTime())) {
    throw new ApiError('bad_timestamp', `The value "${value}" of ${name} is not a date (YYYY-MM-DD) or an RFC 3339 timestamp such as 2026-11-01T00:00:00Z.`);
  }
  return date;
}

function vocabularyError(code: 'bad_remote' | 'bad_employment_type' | 'bad_provider', name: string, value: string, ctx: ListingContext): ApiError {
  const where = vocabularyEndpoint(ctx.keyless, code === 'bad_provider' ? 'providers' : 'facets');
  return new ApiError(code, `The value "${value}" is not a legal ${name}; the legal values are listed at ${where}.`);
}

const REMOTE_OPTIONS: ReadonlyArray<Remote | typeof NOT_STATED> = [...REMOTE_VALUES, NOT_STATED];
const REMOTE_LOOKUP = new Map(REMOTE_OPTIONS.map((v) => [v as string, v]));
const EMPLOYMENT_LOOKUP = new Map<string, EmploymentType | typeof NOT_STATED>([
  ...EMPLOYMENT_TYPES.map((v) => [v.toLowerCase(), v] as const),
  [NOT_STATED, NOT_STATED],
]);

function employmentKey(value: string): string {
  // `full_time` appears in a query example of the spec; the facet spelling `Full-time` is canonical.
  return value.toLowerCase().replace(/[_\s]+/g, '-').replace('not-stated', NOT_STATED);
}

/**
 * Parse the shared listing filters and the page parameters.
 * @throws ApiError with the spec's 422 code for a value it will not guess at.
 */
export function parseListingQuery(query: RawQuery, ctx: ListingContext): ListingRequest {
  const filter: JobFilter = {};

  const country = commaList(query.country);
  if (country) filter.country = country.map((c) => c.toUpperCase());

  const remote = commaList(query.remote);
  if (remote) {
    filter.remote = remote.map((v) => {
      const hit = REMOTE_LOOKUP.get(v.toLowerCase());
      if (!hit) throw vocabularyError('bad_remote', 'remote value', v, ctx);
      return hit;
    });
  }

  const employment = commaList(query.employment_type);
  if (employment) {
    filter.employmentType = employment.map((v) => {
      const hit = EMPLOYMENT_LOOKUP.get(employmentKey(v));
      if (!hit) throw vocabularyError('bad_employment_type', 'employment_type', v, ctx);
      return hit;
    });
  }

  const company = commaList(query.company);
  if (company) filter.company = company.map((c) => c.toLowerCase());

  const provider = commaList(query.provider);
  if (provider) {
    const known = new Map(ctx.providers.map((p) => [p.toLowerCase(), p]));
    filter.provider = provider.slice(0, PROVIDER_LIST_MAX).map((v) => {
      const hit = known.get(v.toLowerCase());
      if (!hit) throw vocabularyError('bad_provider', 'provider', v, ctx);
      return hit;
    });
  }

  const q = present(query.q);
  if (q) filter.q = q;

  const postedAfter = parseInstant('posted_after', query.posted_after);
  if (postedAfter) filter.postedAfter = postedAfter;

  const includeDescription = parseBoolean('include_description', query.include_description, false);
  const requested = parseLimit(query.limit, Number.MAX_SAFE_INTEGER);
  const limit = Math.min(requested, ctx.maxLimit);
  if (includeDescription && limit > DESCRIPTION_LIMIT_MAX) {
    throw new ApiError(
      'limit_too_large',
      `limit=${requested} is too large with include_description=true; the maximum with descriptions is ${DESCRIPTION_LIMIT_MAX}.`,
    );
  }

  if (ctx.countryLock) filter.countryLock = ctx.countryLock;

  const cursor = present(query.cursor);
  return { filter, limit, cursor, includeDescription };
}
