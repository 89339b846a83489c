/**
 * The one module that owns query-parameter semantics for job listings (spec: Endpoints › Shared
 * listing filters; GET /v1/jobs; Errors › 422 codes and Deliberate non-errors; ARCHITECTURE "Query
 * parameters follow the spec"). Routes hand it the raw query and get typed, canonical values back.
 *
 * Rules: names are case-sensitive; values are case-insensitive; a comma list ORs within a parameter;
 * parameters AND together; the first occurrence of a repeated parameter wins (done by the HTTP layer's
 * query parser, src/http/query-string.ts); unknown parameters are ignored; an empty value counts as
 * absent; `limit` is clamped, and a non-numeric `limit` falls back to the default; a list longer than
 * its parameter's maximum is truncated. A vocabulary error is a 422 whose message names the offending
 * value and the endpoint that lists the legal values.
 *
 * Three entry points, so that every endpoint with the shared filters parses them the same way:
 * - {@link parseJobFilter}: the shared filters only (`/v1/export` with its own paging);
 * - {@link parseListingQuery}: shared filters + page parameters (`/v1/jobs`, `/v1/jobs/closed`);
 * - {@link parseServingScope}: the paid-surface parameters of `/v1/jobs` (`status`, `quality`,
 *   `include_poster_type`); {@link parseJobsQuery} combines it with {@link parseListingQuery}.
 * Decisions where the spec is silent are documented in docs/listing.md.
 */
import { bareDomain } from './domain-name.ts';
import { ApiError, type ErrorCode } from './errors.ts';
import { FIELD_SOURCE_KEYS, type FieldSourceKey } from './field-sources.ts';
import {
  CATEGORY_FAMILIES,
  EMPLOYMENT_TYPES,
  LEGACY_SOURCE_TYPE,
  NOT_STATED,
  POSTER_TYPES,
  REMOTE_VALUES,
  SENIORITY_LEVELS,
  SOURCE_TYPES,
  UNCATEGORISED,
  US_STATES,
  type CategoryFamily,
  type EmploymentType,
  type PosterType,
  type Remote,
  type Seniority,
  type SourceType,
} from './vocabulary.ts';

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

export type NotStated = typeof NOT_STATED;
/** A `category` filter value: a family, or `uncategorised` (rows with no confident category). */
export type CategoryValue = CategoryFamily | typeof UNCATEGORISED;

/**
 * Which salaries `has_salary` keeps (spec: has_salary): `structured` = source-published only (`true`
 * and `structured`), `any` = also salaries parsed from the advert text, `none` = rows with no salary
 * at all (`false`; a decision of ours, docs/listing.md).
 */
export type SalaryPresence = 'structured' | 'any' | 'none';

/**
 * The shared listing filters, parsed. Every list is non-empty when present; values are canonical
 * (the ledger's spelling). Every field ANDs with the others; values inside one list OR.
 */
export interface JobFilter {
  category?: CategoryValue[];
  excludeCategory?: CategoryValue[];
  /** Upper-case ISO-3166 alpha-2 codes (not validated: an unknown code matches nothing). */
  country?: string[];
  /** Rows without a country are kept. */
  excludeCountry?: string[];
  /** Lower-case city names; matched case-insensitively against the resolved city. */
  city?: string[];
  /** Upper-case US state codes; only US rows carry a state. */
  state?: string[];
  remote?: Array<Remote | NotStated>;
  /** true: only rows whose remote status the source stated; false: only rows where it did not. */
  remoteConfirmed?: boolean;
  employmentType?: Array<EmploymentType | NotStated>;
  seniority?: Array<Seniority | NotStated>;
  /** Provider ids, at most {@link PROVIDER_LIST_MAX}. */
  provider?: string[];
  excludeProvider?: string[];
  /** Canonical row-level source types; the reserved `aggregator` and `agency` match nothing. */
  sourceType?: SourceType[];
  excludeSourceType?: SourceType[];
  /** Lower-case company slugs. */
  company?: string[];
  /** Bare domains (lower case, no scheme, path or `www.`); companies without a domain never match. */
  companyDomain?: string[];
  /** Rows of companies without a known domain are kept. */
  excludeCompanyDomain?: string[];
  hasSalary?: SalaryPresence;
  /** Lower bound on `salary_min_annual_eur`, EUR per year, inclusive. Rows without it never match. */
  minSalary?: number;
  /** Upper bound on `salary_min_annual_eur`, EUR per year, inclusive. Rows without it never match. */
  maxSalary?: number;
  hasDescription?: boolean;
  /** field_sources keys that must all be `published`. */
  requireFields?: FieldSourceKey[];
  /** Rows whose `posted_at` is strictly later (rows without `posted_at` never match). */
  postedAfter?: Date;
  /** Rows whose `last_verified_at` is strictly later. */
  verifiedAfter?: Date;
  /** Web-search syntax over title, company name and location (PostgreSQL `simple`: no stemming). */
  q?: string;
  /** Web-search syntax over the title. */
  title?: string;
  /** Drops rows whose title matches this web-search query. */
  titleExclude?: string;
  /** Web-search syntax over the description text; implies `hasDescription: true`. */
  descriptionContains?: string;
  /** A country-locked key's country: only rows in it match, whatever the other filters say. */
  countryLock?: string;
}

/** Shared filters plus the page parameters of a keyset-paged listing. */
export interface ListingRequest {
  filter: JobFilter;
  /** Page size after clamping. */
  limit: number;
  /** The opaque cursor as sent (verified by the route, which knows the query fingerprint). */
  cursor?: string;
  includeDescription: boolean;
}

/** `status` of `/v1/jobs` (spec: GET /v1/jobs). */
export const STATUS_VALUES = ['live', 'closed', 'any'] as const;
export type StatusScope = (typeof STATUS_VALUES)[number];

/**
 * Which population `/v1/jobs` reads from, beyond the shared filters (spec: GET /v1/jobs paid-surface
 * parameters). The default — live, employer-posted, not withheld — is exactly the `served` rows.
 */
export interface ServingScope {
  status: StatusScope;
  /** `quality=all`: re-admit `quality_gated` rows (never removed or opted-out ones) and show verdicts. */
  qualityAll: boolean;
  /** `include_poster_type`: re-admitted poster types (staffing agencies, job boards). */
  posterTypes: PosterType[];
}

export const DEFAULT_SCOPE: ServingScope = Object.freeze({ status: 'live', qualityAll: false, posterTypes: [] }) as ServingScope;

/** `/v1/jobs`: shared filters, page parameters and the serving scope. */
export interface JobsRequest extends ListingRequest {
  scope: ServingScope;
}

/** Default page size (spec: Limits). */
export const DEFAULT_LIMIT = 25;
/** Largest page with descriptions (spec: include_description with limit above 50 is 422). */
export const DESCRIPTION_LIMIT_MAX = 50;
/** Longest `provider` list; longer lists are truncated (spec: Limits). */
export const PROVIDER_LIST_MAX = 12;
/**
 * Longest list of any other parameter; longer lists are truncated (spec: Limits, "Maximum list length
 * for parameters other than provider: not shown"; our choice, docs/listing.md).
 */
export const LIST_MAX = 100;
/** Longest offending value quoted back in an error message, characters. */
const QUOTE_MAX = 80;

/** Endpoint that lists legal values of a vocabulary, on the caller's surface. */
export function vocabularyEndpoint(keyless: boolean, vocabulary: 'facets' | 'providers' | 'contract'): string {
  const prefix = keyless ? '/public' : '/v1';
  if (vocabulary === 'providers') return keyless ? '/public/providers' : '/v1/meta/providers';
  if (vocabulary === 'facets') return keyless ? '/public/facets' : '/v1/meta/facets';
  return `${prefix}/openapi.json`;
}

/** A value quoted for an error message: JSON-escaped and cut to {@link QUOTE_MAX} characters. */
export function quoteValue(value: string): string {
  const cut = value.length > QUOTE_MAX ? `${value.slice(0, QUOTE_MAX)}…` : value;
  return JSON.stringify(cut);
}

/**
 * One parameter's value: trimmed, undefined when absent or empty.
 * @throws ApiError 400 `bad_request` when it contains a NUL character, which no text column can hold.
 */
function read(query: RawQuery, name: string): string | undefined {
  const value = query[name];
  if (value === undefined) return undefined;
  if (value.includes('\u0000')) throw new ApiError('bad_request', `The value of ${name} contains a NUL character.`);
  const trimmed = value.trim();
  return trimmed === '' ? undefined : trimmed;
}

/**
 * Split a comma list into trimmed, non-empty items; the first `max` items as sent are kept (the rest
 * is truncated, spec: Deliberate non-errors), then repeats are dropped. Undefined when none remain.
 */
export function commaList(value: string | undefined, max = LIST_MAX): string[] | undefined {
  if (value === undefined) return undefined;
  const items = [...new Set(value.split(',').map((s) => s.trim()).filter(Boolean).slice(0, max))];
  return items.length > 0 ? items : undefined;
}

/** Page size: clamped to [1, max]; non-numeric → default (spec: Deliberate non-errors). */
export function parseLimit(value: string | undefined, max: number, fallback = DEFAULT_LIMIT): number {
  const v = value?.trim();
  const n = v === undefined || v === '' ? Number.NaN : Number(v);
  if (!Number.isFinite(n)) return Math.min(fallback, max);
  return Math.max(1, Math.min(Math.floor(n), max));
}

/**
 * A boolean parameter: true/false, 1/0, yes/no (any case). Absent → `fallback`.
 * @throws ApiError 422 `bad_boolean` for anything else.
 */
export function parseBoolean(name: string, value: string | undefined, fallback: boolean): boolean {
  const v = value?.trim().toLowerCase();
  if (v === undefined || v === '') return fallback;
  if (v === 'true' || v === '1' || v === 'yes') return true;
  if (v === 'false' || v === '0' || v === 'no') return false;
  throw new ApiError('bad_boolean', `The value ${quoteValue(value!)} of ${name} is not a boolean; send true or false.`);
}

const DATE_ONLY = /^(\d{4})-(\d{2})-(\d{2})$/;
const TIMESTAMP = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2})(?::(\d{2})(\.\d+)?)?(?:([Zz])|([+-])(\d{2}):?(\d{2}))$/;

function daysInMonth(year: number, month: number): number {
  const d = new Date(0);
  d.setUTCFullYear(year, month, 0); // day 0 of the next month: the last day of this one
  return d.getUTCDate();
}

/**
 * An instant: a date (`2026-11-01`, midnight UTC) or an RFC 3339 timestamp with an offset
 * (`2026-11-01T08:00:00Z`, `2026-11-01T09:00:00+01:00`; seconds and fractions optional). Every part
 * is range-checked, so `2026-02-30` is refused rather than rolled over into March.
 * @throws ApiError 422 `bad_timestamp`, naming the value.
 */
export function parseInstant(name: string, value: string | undefined, keyless = false): Date | undefined {
  const v = value?.trim();
  if (v === undefined || v === '') return undefined;
  const fail = () =>
    new ApiError(
      'bad_timestamp',
      `The value ${quoteValue(v)} of ${name} is not a date (YYYY-MM-DD) or an RFC 3339 timestamp such as 2026-11-01T00:00:00Z; the formats are described at ${vocabularyEndpoint(keyless, 'contract')}.`,
    );
  const date = DATE_ONLY.exec(v);
  const ts = date ? undefined : TIMESTAMP.exec(v);
  const parts = date ?? ts;
  if (!parts) throw fail();
  const [year, month, day] = [Number(parts[1]), Number(parts[2]), Number(parts[3])];
  if (year < 1 || month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) throw fail();
  if (!ts) return utcInstant(year, month, day, 0, 0, 0, 0);
  const [hour, minute] = [Number(ts[4]), Number(ts[5])];
  // RFC 3339 allows a leap second (:60); it is read as the last millisecond of that minute.
  const second = ts[6] === undefined ? 0 : Number(ts[6]);
  const millis = ts[7] === undefined ? 0 : Math.floor(Number(`0${ts[7]}`) * 1000);
  if (hour > 23 || minute > 59 || second > 60) throw fail();
  let offsetMinutes = 0;
  if (!ts[8]) {
    const [oh, om] = [Number(ts[10]), Number(ts[11])];
    if (oh > 23 || om > 59) throw fail();
    offsetMinutes = (ts[9] === '-' ? -1 : 1) * (oh * 60 + om);
  }
  const local = utcInstant(year, month, day, hour, minute, Math.min(second, 59), second === 60 ? 999 : millis);
  return new Date(local.getTime() - offsetMinutes * 60_000);
}

/** A UTC instant from its parts (unlike Date.UTC, years 1-99 stay years 1-99). */
function utcInstant(year: number, month: number, day: number, hour: number, minute: number, second: number, millis: number): Date {
  const d = new Date(0);
  d.setUTCFullYear(year, month - 1, day);
  d.setUTCHours(hour, minute, second, millis);
  return d;
}

/**
 * A salary bound in EUR per year: a plain decimal number (`50000`, `52500.5`).
 * @throws ApiError 422 `bad_salary`, naming the value.
 */
export function parseSalaryBound(name: string, value: string | undefined, keyless = false): number | undefined {
  if (value === undefined) return undefined;
  const n = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isFinite(n)) {
    throw new ApiError(
      'bad_salary',
      `The value ${quoteValue(value)} of ${name} is not a number; send an amount in EUR per year such as 50000 (see ${vocabularyEndpoint(keyless, 'contract')}).`,
    );
  }
  return n;
}

function vocabularyError(code: ErrorCode, name: string, value: string, where: string): ApiError {
  return new ApiError(code, `The value ${quoteValue(value)} is not a legal ${name}; the legal values are listed at ${where}.`);
}

/**
 * Map each item of a comma list through a case-insensitive lookup.
 * @throws the error `onMiss` builds for the first item the lookup does not know.
 */
function mapList<T>(items: string[] | undefined, lookup: ReadonlyMap<string, T>, onMiss: (item: string) => ApiError): T[] | undefined {
  if (!items) return undefined;
  const out = items.map((item) => {
    const hit = lookup.get(item.toLowerCase());
    if (hit === undefined) throw onMiss(item);
    return hit;
  });
  return [...new Set(out)];
}

const CATEGORY_LOOKUP = new Map<string, CategoryValue>([
  ...CATEGORY_FAMILIES.map((c) => [c.toLowerCase(), c] as const),
  [UNCATEGORISED, UNCATEGORISED],
  // The spec's vocabulary spells it with an s; the z spelling is accepted too.
  ['uncategorized', UNCATEGORISED],
]);
const REMOTE_LOOKUP = new Map<string, Remote | NotStated>([
  ...REMOTE_VALUES.map((v) => [v, v] as const),
  [NOT_STATED, NOT_STATED],
  // Spellings clients use for the same three values.
  ['on-site', 'on_site'],
  ['onsite', 'on_site'],
  ['not-stated', NOT_STATED],
]);
const EMPLOYMENT_LOOKUP = new Map<string, EmploymentType | NotStated>([
  ...EMPLOYMENT_TYPES.flatMap((v) => [
    [v.toLowerCase(), v] as const,
    // `full_time` appears in a query example of the spec; the facet spelling `Full-time` is canonical.
    [v.toLowerCase().replace('-', '_'), v] as const,
    [v.toLowerCase().replace('-', ''), v] as const,
    [v.toLowerCase().replace('-', ' '), v] as const,
  ]),
  [NOT_STATED, NOT_STATED],
  ['not-stated', NOT_STATED],
]);
const SENIORITY_LOOKUP = new Map<string, Seniority | NotStated>([
  ...SENIORITY_LEVELS.map((v) => [v.toLowerCase(), v] as const),
  [NOT_STATED, NOT_STATED],
  ['not-stated', NOT_STATED],
]);
const SOURCE_TYPE_LOOKUP = new Map<string, SourceType>([
  ...SOURCE_TYPES.map((v) => [v, v] as const),
  ...Object.entries(LEGACY_SOURCE_TYPE),
]);
const STATE_LOOKUP = new Map<string, string>(Object.keys(US_STATES).map((code) => [code.toLowerCase(), code]));
const POSTER_LOOKUP = new Map<string, PosterType | 'all'>([...POSTER_TYPES.map((v) => [v, v] as const), ['all', 'all']]);
const SALARY_PRESENCE_LOOKUP = new Map<string, SalaryPresence>([
  ['true', 'structured'],
  ['yes', 'structured'],
  ['1', 'structured'],
  ['structured', 'structured'],
  ['any', 'any'],
  ['false', 'none'],
  ['no', 'none'],
  ['0', 'none'],
]);

/** Field_sources keys that are never `published` (spec: require_fields, 422 field_never_published). */
const NEVER_PUBLISHED: readonly FieldSourceKey[] = ['category', 'seniority'];
/** Field_sources keys `require_fields` accepts (`source_type` is accepted and, today, matches nothing). */
export const REQUIRABLE_FIELDS = FIELD_SOURCE_KEYS.filter(
  (k): k is Exclude<FieldSourceKey, 'category' | 'seniority'> => !NEVER_PUBLISHED.includes(k),
);

function parseRequireFields(value: string | undefined, keyless: boolean): FieldSourceKey[] | undefined {
  const items = commaList(value);
  if (!items) return undefined;
  const legal = REQUIRABLE_FIELDS;
  const out = items.map((item) => {
    const key = FIELD_SOURCE_KEYS.find((k) => k === item.toLowerCase());
    if (key && NEVER_PUBLISHED.includes(key)) {
      throw new ApiError(
        'field_never_published',
        `require_fields names ${quoteValue(item)}, which is always inferred and never published; the fields that can be required are ${legal.join(', ')} (see ${vocabularyEndpoint(keyless, 'contract')}).`,
      );
    }
    if (!key) {
      throw new ApiError(
        'bad_field',
        `The value ${quoteValue(item)} of require_fields is not a field_sources key; the fields that can be required are ${legal.join(', ')} (see ${vocabularyEndpoint(keyless, 'contract')}).`,
      );
    }
    return key;
  });
  return [...new Set(out)];
}

function parseDomains(value: string | undefined): string[] | undefined {
  // A value that is no domain at all is kept (lower case) so it simply matches nothing.
  const items = commaList(value)?.map((v) => bareDomain(v) ?? v.toLowerCase());
  return items ? [...new Set(items)] : undefined;
}

/**
 * Parse the shared listing filters (spec: Endpoints › Shared listing filters).
 * @throws ApiError with the spec's 422 code for a value it will not guess at (`bad_category`,
 * `bad_seniority`, `bad_remote`, `bad_employment_type`, `bad_state`, `bad_provider`,
 * `bad_source_type`, `field_never_published`, `bad_field`, `bad_timestamp`, `bad_salary`,
 * `bad_boolean`), or 400 `bad_request` for a value holding a NUL character.
 */
export function parseJobFilter(query: RawQuery, ctx: Pick<ListingContext, 'providers' | 'keyless' | 'countryLock'>): JobFilter {
  const facets = vocabularyEndpoint(ctx.keyless, 'facets');
  const providersAt = vocabularyEndpoint(ctx.keyless, 'providers');
  const filter: JobFilter = {};
  const set = <K extends keyof JobFilter>(key: K, value: JobFilter[K] | undefined) => {
    if (value !== undefined) filter[key] = value;
  };

  const categoryError = (v: string) => vocabularyError('bad_category', 'category', v, `${facets} (group "family")`);
  set('category', mapList(commaList(read(query, 'category')), CATEGORY_LOOKUP, categoryError));
  set('excludeCategory', mapList(commaList(read(query, 'exclude_category')), CATEGORY_LOOKUP, categoryError));

  set('country', dedupe(commaList(read(query, 'country'))?.map((c) => c.toUpperCase())));
  set('excludeCountry', dedupe(commaList(read(query, 'exclude_country'))?.map((c) => c.toUpperCase())));
  set('city', dedupe(commaList(read(query, 'city'))?.map((c) => c.toLowerCase())));
  set('state', mapList(commaList(read(query, 'state')), STATE_LOOKUP, (v) => vocabularyError('bad_state', 'US state code', v, `${facets} (group "state")`)));

  set('remote', mapList(commaList(read(query, 'remote')), REMOTE_LOOKUP, (v) => vocabularyError('bad_remote', 'remote value', v, `${facets} (group "remote")`)));
  const remoteConfirmed = read(query, 'remote_confirmed');
  if (remoteConfirmed !== undefined) filter.remoteConfirmed = parseBoolean('remote_confirmed', remoteConfirmed, false);
  set(
    'employmentType',
    mapList(commaList(read(query, 'employment_type')), EMPLOYMENT_LOOKUP, (v) =>
      vocabularyError('bad_employment_type', 'employment_type', v, `${facets} (group "employment")`),
    ),
  );
  set('seniority', mapList(commaList(read(query, 'seniority')), SENIORITY_LOOKUP, (v) => vocabularyError('bad_seniority', 'seniority', v, `${facets} (group "seniority")`)));

  const providers = new Map(ctx.providers.map((p) => [p.toLowerCase(), p]));
  const providerError = (v: string) => vocabularyError('bad_provider', 'provider', v, providersAt);
  set('provider', mapList(commaList(read(query, 'provider'), PROVIDER_LIST_MAX), providers, providerError));
  set('excludeProvider', mapList(commaList(read(query, 'exclude_provider')), providers, providerError));

  const sourceTypeError = (v: string) => vocabularyError('bad_source_type', 'source_type', v, `${facets} (group "source_type")`);
  set('sourceType', mapList(commaList(read(query, 'source_type')), SOURCE_TYPE_LOOKUP, sourceTypeError));
  set('excludeSourceType', mapList(commaList(read(query, 'exclude_source_type')), SOURCE_TYPE_LOOKUP, sourceTypeError));

  set('company', dedupe(commaList(read(query, 'company'))?.map((c) => c.toLowerCase())));
  set('companyDomain', parseDomains(read(query, 'company_domain')));
  set('excludeCompanyDomain', parseDomains(read(query, 'exclude_company_domain')));

  const hasSalary = read(query, 'has_salary');
  if (hasSalary !== undefined) {
    const presence = SALARY_PRESENCE_LOOKUP.get(hasSalary.toLowerCase());
    if (!presence) {
      throw new ApiError(
        'bad_salary',
        `The value ${quoteValue(hasSalary)} of has_salary is not legal; send true or structured (source-published salaries), any (also salaries parsed from the advert) or false (see ${vocabularyEndpoint(ctx.keyless, 'contract')}).`,
      );
    }
    filter.hasSalary = presence;
  }
  set('minSalary', parseSalaryBound('min_salary', read(query, 'min_salary'), ctx.keyless));
  set('maxSalary', parseSalaryBound('max_salary', read(query, 'max_salary'), ctx.keyless));

  const hasDescription = read(query, 'has_description');
  if (hasDescription !== undefined) filter.hasDescription = parseBoolean('has_description', hasDescription, false);
  set('requireFields', parseRequireFields(read(query, 'require_fields'), ctx.keyless));

  set('postedAfter', parseInstant('posted_after', read(query, 'posted_after'), ctx.keyless));
  set('verifiedAfter', parseInstant('verified_after', read(query, 'verified_after'), ctx.keyless));

  set('q', read(query, 'q'));
  set('title', read(query, 'title'));
  set('titleExclude', read(query, 'title_exclude'));
  set('descriptionContains', read(query, 'description_contains'));
  if (ctx.countryLock) filter.countryLock = ctx.countryLock;
  return filter;
}

function dedupe(items: string[] | undefined): string[] | undefined {
  return items ? [...new Set(items)] : undefined;
}

/**
 * Parse the shared filters and the page parameters (`limit`, `cursor`, `include_description`).
 * @throws ApiError as {@link parseJobFilter}, and 422 `limit_too_large` for `include_description=true`
 * with a page above 50 rows.
 */
export function parseListingQuery(query: RawQuery, ctx: ListingContext): ListingRequest {
  const filter = parseJobFilter(query, ctx);
  const includeDescription = parseBoolean('include_description', read(query, 'include_description'), false);
  const requested = parseLimit(read(query, 'limit'), Number.MAX_SAFE_INTEGER);
  const limit = Math.min(requested, ctx.maxLimit);
  if (includeDescription && limit > DESCRIPTION_LIMIT_MAX) {
    throw new ApiError(
      'limit_too_large',
      `limit=${requested} is too large with include_description=true; the maximum with descriptions is ${DESCRIPTION_LIMIT_MAX} (see ${vocabularyEndpoint(ctx.keyless, 'contract')}).`,
    );
  }
  return { filter, limit, cursor: read(query, 'cursor'), includeDescription };
}

/**
 * Parse `status`, `quality` and `include_poster_type` (spec: GET /v1/jobs, "Paid surface only").
 * On the keyless surface a value that would widen the rows beyond live, employer-direct ones is
 * refused with 403 `paid_feature` (our choice between the spec's two accounts, docs/listing.md).
 * @throws ApiError 422 `bad_status`, `bad_quality` or `bad_poster_type` for a value outside the
 * vocabulary; 403 `paid_feature` on the keyless surface as above.
 */
export function parseServingScope(query: RawQuery, ctx: Pick<ListingContext, 'keyless'>): ServingScope {
  const contract = vocabularyEndpoint(ctx.keyless, 'contract');
  const scope: ServingScope = { status: 'live', qualityAll: false, posterTypes: [] };

  const status = read(query, 'status');
  if (status !== undefined) {
    const hit = STATUS_VALUES.find((s) => s === status.toLowerCase());
    if (!hit) throw new ApiError('bad_status', `The value ${quoteValue(status)} of status is not legal; send live, closed or any (see ${contract}).`);
    scope.status = hit;
  }

  const quality = read(query, 'quality');
  if (quality !== undefined) {
    if (quality.toLowerCase() !== 'all') {
      throw new ApiError('bad_quality', `The value ${quoteValue(quality)} of quality is not legal; the only value is all (see ${contract}).`);
    }
    scope.qualityAll = true;
  }

  const posters = mapList(commaList(read(query, 'include_poster_type')), POSTER_LOOKUP, (v) =>
    vocabularyError('bad_poster_type', 'include_poster_type', v, `${contract} (staffing, jobboard or all)`),
  );
  if (posters) scope.posterTypes = posters.includes('all') ? [...POSTER_TYPES] : (posters as PosterType[]);

  if (ctx.keyless) {
    const paid = [
      scope.status !== 'live' ? `status=${scope.status}` : undefined,
      scope.qualityAll ? 'quality=all' : undefined,
      scope.posterTypes.length > 0 ? 'include_poster_type' : undefined,
    ].filter(Boolean);
    if (paid.length > 0) {
      throw new ApiError(
        'paid_feature',
        `${paid.join(' and ')} needs an API key: the keyless surface serves live, employer-direct rows only; send the request to /v1/jobs with "Authorization: Bearer <API_KEY>".`,
      );
    }
  }
  return scope;
}

/** `/v1/jobs` and `/public/jobs`: {@link parseListingQuery} plus {@link parseServingScope}. */
export function parseJobsQuery(query: RawQuery, ctx: ListingContext): JobsRequest {
  const listing = parseListingQuery(query, ctx);
  return { ...listing, scope: parseServingScope(query, ctx) };
}

/** True when the scope is the default population (the ledger's `served` rows). */
export function isDefaultScope(scope: ServingScope): boolean {
  return scope.status === 'live' && !scope.qualityAll && scope.posterTypes.length === 0;
}
