/**
 * What a job listing is asked for, once its query is parsed (spec: Endpoints › Shared listing filters;
 * GET /v1/jobs): the filter the store's queries take, the serving scope of `/v1/jobs`, and the spec's
 * numbers for lists and pages. Parsing the query string is the HTTP layer's
 * (`src/http/schemas/listing-filters.ts`, with the value parsers of `src/http/query-values.ts`);
 * decisions where the spec is silent are documented in docs/listing.md.
 */
import { FIELD_SOURCE_KEYS, type FieldSourceKey } from './field-sources.ts';
import type { CategoryFamily, EmploymentType, NOT_STATED, PosterType, Remote, Seniority, SourceType, UNCATEGORISED } from './vocabulary.ts';

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

/** Field_sources keys that are never `published` (spec: require_fields, 422 field_never_published). */
export const NEVER_PUBLISHED: readonly FieldSourceKey[] = ['category', 'seniority'];
/** Field_sources keys `require_fields` accepts (`source_type` is accepted and, today, matches nothing). */
export const REQUIRABLE_FIELDS = FIELD_SOURCE_KEYS.filter(
  (k): k is Exclude<FieldSourceKey, 'category' | 'seniority'> => !NEVER_PUBLISHED.includes(k),
);

/** True when the scope is the default population (the ledger's `served` rows). */
export function isDefaultScope(scope: ServingScope): boolean {
  return scope.status === 'live' && !scope.qualityAll && scope.posterTypes.length === 0;
}
