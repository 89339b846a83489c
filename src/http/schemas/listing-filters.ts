/**
 * The shared listing filters (spec: Endpoints › Shared listing filters), one table for `/v1/jobs`,
 * `/public/jobs`, `/v1/jobs/closed` and `/v1/export`. Names are case-sensitive, values are not; a comma
 * list ORs within a parameter; parameters AND together; the first occurrence of a repeated parameter
 * wins (`query-string.ts`); unknown parameters are ignored; an empty value counts as absent; a list
 * longer than its parameter's maximum is truncated. A vocabulary error is a 422 whose message names
 * the offending value and the endpoint that lists the legal values on the caller's surface.
 * Decisions where the spec is silent: docs/listing.md.
 */
import { Type } from 'typebox';
import { bareDomain } from '../../domain/domain-name.ts';
import { ApiError, type ErrorCode } from '../../domain/errors.ts';
import { FIELD_SOURCE_KEYS, type FieldSourceKey } from '../../domain/field-sources.ts';
import { StringEnum } from '../../domain/job.ts';
import {
  LIST_MAX,
  NEVER_PUBLISHED,
  PROVIDER_LIST_MAX,
  REQUIRABLE_FIELDS,
  type CategoryValue,
  type JobFilter,
  type NotStated,
  type SalaryPresence,
} from '../../domain/listing-filter.ts';
import { CATEGORY_FAMILIES, EMPLOYMENT_TYPES, LEGACY_SOURCE_TYPE, NOT_STATED, REMOTE_VALUES, SENIORITY_LEVELS, SOURCE_TYPES } from '../../domain/vocabulary.ts';
import { UNCATEGORISED, US_STATES, type EmploymentType, type Remote, type Seniority, type SourceType } from '../../domain/vocabulary.ts';
import { LEGAL_VALUES_AT, type Surface } from '../endpoints.ts';
import { paramsOf } from '../query-table.ts';
import {
  commaList,
  dedupe,
  lookupList,
  parseBoolean,
  parseDecimal,
  parseInstant,
  parseOptionalBoolean,
  quoteValue,
  SEARCH_MAX_LENGTH,
  SEARCH_MAX_TERMS,
  searchText,
  text,
  vocabularyError,
} from '../query-values.ts';

/** What parsing a job listing's query needs to know about the caller. */
export interface ListingContext {
  surface: Surface;
  /** Redistributable provider ids (spec: "An unlisted name is a 422"). */
  providers: readonly string[];
  /** Largest page the caller may get: the plan's `max_page_size`, or 50 on the keyless surface. */
  maxLimit: number;
  /**
   * ISO-3166 alpha-2 of a country-locked key (spec: Authentication item 9, "a request for another
   * country returns nothing"): it is ANDed with whatever the query asks, never replaces it.
   */
  countryLock?: string;
}

/** What the shared filters need of {@link ListingContext}. */
export type FilterContext = Pick<ListingContext, 'surface' | 'providers'>;

const { param, field } = paramsOf<FilterContext>();
const filterField = field<JobFilter>();

/** A comma list, typed as an array of its values (`documentCommaLists` marks it `explode: false`). */
const listOf = (values?: readonly string[]) => Type.Array(values ? StringEnum(values) : Type.String());
const Instant = Type.Union([Type.String({ format: 'date' }), Type.String({ format: 'date-time' })]);

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
const SOURCE_TYPE_LOOKUP = new Map<string, SourceType>([...SOURCE_TYPES.map((v) => [v, v] as const), ...Object.entries(LEGACY_SOURCE_TYPE)]);
const STATE_LOOKUP = new Map<string, string>(Object.keys(US_STATES).map((code) => [code.toLowerCase(), code]));
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

/** What a vocabulary filter is made of: its legal values, their spellings, and its 422. */
interface Vocabulary<T> {
  /** The canonical values, as the contract lists them. */
  values: readonly string[];
  /** Every accepted spelling, in lower case, to its canonical value. */
  lookup: ReadonlyMap<string, T>;
  code: ErrorCode;
  /** What a value is called in the error message. */
  what: string;
  /** The facet group that lists the legal values. */
  group: string;
}

/**
 * A comma list of a vocabulary into filter property `into`; an unknown item is a 422 naming it and
 * where `group`'s legal values are listed on the caller's surface.
 */
function vocabularyFilter<K extends keyof JobFilter, T>(into: K, name: string, vocabulary: Vocabulary<T>, doc: { description: string; example: string }) {
  const parse = (value: string | undefined, ctx: FilterContext): T[] | undefined =>
    lookupList(commaList(text(name, value), LIST_MAX), vocabulary.lookup, (v) =>
      vocabularyError(vocabulary.code, vocabulary.what, v, `${LEGAL_VALUES_AT[ctx.surface].facets} (group "${vocabulary.group}")`),
    );
  return filterField(into, { type: listOf(vocabulary.values), ...doc, errors: [vocabulary.code, 'bad_request'], parse: parse as (value: string | undefined, ctx: FilterContext) => JobFilter[K] | undefined });
}

/** true/false (1/0, yes/no) into filter property `into`; absent leaves the filter off. */
function booleanFilter<K extends 'remoteConfirmed' | 'hasDescription'>(into: K, name: string, description: string) {
  return filterField(into, { type: Type.Boolean(), description, example: true, errors: ['bad_boolean', 'bad_request'], parse: (value) => parseOptionalBoolean(name, text(name, value)) });
}

/** Web-search text into filter property `into`. */
function textFilter<K extends 'q' | 'title' | 'titleExclude' | 'descriptionContains'>(into: K, name: string, description: string, example: string) {
  return filterField(into, {
    type: Type.String({ maxLength: SEARCH_MAX_LENGTH }),
    description: `${description} At most ${SEARCH_MAX_LENGTH} characters and ${SEARCH_MAX_TERMS} terms; a value without a letter or digit, or over either bound: 422 bad_query.`,
    example,
    errors: ['bad_query', 'bad_request'],
    parse: (value) => searchText(name, value),
  });
}

/** A comma list of free values, trimmed and cased by `canonical`, repeats dropped. */
function freeList(name: string, canonical: (v: string) => string) {
  return (value: string | undefined): string[] | undefined => dedupe(commaList(text(name, value), LIST_MAX)?.map(canonical));
}

function providerList(name: string, max: number) {
  return (value: string | undefined, ctx: FilterContext): string[] | undefined => {
    const providers = new Map(ctx.providers.map((p) => [p.toLowerCase(), p]));
    return lookupList(commaList(text(name, value), max), providers, (v) => vocabularyError('bad_provider', 'provider', v, LEGAL_VALUES_AT[ctx.surface].providers));
  };
}

function domainList(name: string) {
  // A value that is no domain at all is kept (lower case) so it simply matches nothing.
  return (value: string | undefined): string[] | undefined => dedupe(commaList(text(name, value), LIST_MAX)?.map((v) => bareDomain(v) ?? v.toLowerCase()));
}

/**
 * A salary bound in EUR per year: a plain decimal number (`50000`, `52500.5`).
 * @throws ApiError 422 `bad_salary`, naming the value.
 */
function salaryFilter(into: 'minSalary' | 'maxSalary', name: string, description: string, example: number) {
  const parse = (value: string | undefined, ctx: FilterContext): number | undefined => {
    const v = text(name, value);
    if (v === undefined) return undefined;
    const n = parseDecimal(v);
    if (n === undefined) {
      throw new ApiError(
        'bad_salary',
        `The value ${quoteValue(v)} of ${name} is not a number; send an amount in EUR per year such as 50000 (see ${LEGAL_VALUES_AT[ctx.surface].contract}).`,
      );
    }
    return n;
  };
  return filterField(into, { type: Type.Number(), description, example, errors: ['bad_salary', 'bad_request'], parse });
}

function instant(name: string) {
  return (value: string | undefined, ctx: FilterContext): Date | undefined => parseInstant(name, text(name, value), LEGAL_VALUES_AT[ctx.surface].contract);
}

function parseRequireFields(value: string | undefined, ctx: FilterContext): FieldSourceKey[] | undefined {
  const items = commaList(text('require_fields', value), LIST_MAX);
  if (!items) return undefined;
  const legal = REQUIRABLE_FIELDS;
  const contract = LEGAL_VALUES_AT[ctx.surface].contract;
  const out = items.map((item) => {
    const key = FIELD_SOURCE_KEYS.find((k) => k === item.toLowerCase());
    if (key && NEVER_PUBLISHED.includes(key)) {
      throw new ApiError(
        'field_never_published',
        `require_fields names ${quoteValue(item)}, which is always inferred and never published; the fields that can be required are ${legal.join(', ')} (see ${contract}).`,
      );
    }
    if (!key) {
      throw new ApiError(
        'bad_field',
        `The value ${quoteValue(item)} of require_fields is not a field_sources key; the fields that can be required are ${legal.join(', ')} (see ${contract}).`,
      );
    }
    return key;
  });
  return [...new Set(out)];
}

function parseSalaryPresence(value: string | undefined, ctx: FilterContext): SalaryPresence | undefined {
  const v = text('has_salary', value);
  if (v === undefined) return undefined;
  const presence = SALARY_PRESENCE_LOOKUP.get(v.toLowerCase());
  if (!presence) {
    throw new ApiError(
      'bad_salary',
      `The value ${quoteValue(v)} of has_salary is not legal; send true or structured (source-published salaries), any (also salaries parsed from the advert) or false (see ${LEGAL_VALUES_AT[ctx.surface].contract}).`,
    );
  }
  return presence;
}

const CATEGORY: Vocabulary<CategoryValue> = { values: [...CATEGORY_FAMILIES, UNCATEGORISED], lookup: CATEGORY_LOOKUP, code: 'bad_category', what: 'category', group: 'family' };
const SOURCE_TYPE: Vocabulary<SourceType> = {
  values: [...SOURCE_TYPES, ...Object.keys(LEGACY_SOURCE_TYPE)],
  lookup: SOURCE_TYPE_LOOKUP,
  code: 'bad_source_type',
  what: 'source_type',
  group: 'source_type',
};

/**
 * The shared filters, in the order the contract lists them and the order they are read (which decides
 * the error of a request with several bad values). Every entry but `include_description` is a
 * {@link JobFilter} property (`into`); `include_description` is a page option, read after the filters.
 */
export const LISTING_FILTER_PARAMS = {
  category: vocabularyFilter('category', 'category', CATEGORY, {
    description: 'Comma list of category families (the `family` facet), or uncategorised for rows with no confident category. Unknown: 422 bad_category.',
    example: 'Engineering',
  }),
  exclude_category: vocabularyFilter('excludeCategory', 'exclude_category', CATEGORY, {
    description: 'Comma list of category families (or uncategorised) to drop. Unknown: 422 bad_category.',
    example: 'Sales',
  }),
  country: filterField('country', {
    type: listOf(),
    description: 'Comma list of ISO-3166 alpha-2 codes. Rows with no country never match.',
    example: 'DE,AT',
    errors: ['bad_request'],
    parse: freeList('country', (c) => c.toUpperCase()),
  }),
  exclude_country: filterField('excludeCountry', {
    type: listOf(),
    description: 'Comma list of ISO-3166 alpha-2 codes to drop. Rows with no country are kept.',
    example: 'US',
    errors: ['bad_request'],
    parse: freeList('exclude_country', (c) => c.toUpperCase()),
  }),
  city: filterField('city', {
    type: listOf(),
    description: 'Comma list of resolved city names (the `city` facet), any case. Thinner coverage than country.',
    example: 'Berlin',
    errors: ['bad_request'],
    parse: freeList('city', (c) => c.toLowerCase()),
  }),
  state: vocabularyFilter(
    'state',
    'state',
    { values: Object.keys(US_STATES), lookup: STATE_LOOKUP, code: 'bad_state', what: 'US state code', group: 'state' },
    { description: 'Comma list of two-letter US state codes; rows outside the US never match. Unknown: 422 bad_state.', example: 'CA,NY' },
  ),
  remote: vocabularyFilter(
    'remote',
    'remote',
    { values: [...REMOTE_VALUES, NOT_STATED], lookup: REMOTE_LOOKUP, code: 'bad_remote', what: 'remote value', group: 'remote' },
    { description: 'Comma list of remote, hybrid, on_site, not_stated (no value). Unknown: 422 bad_remote.', example: 'remote,hybrid' },
  ),
  remote_confirmed: booleanFilter(
    'remoteConfirmed',
    'remote_confirmed',
    'true: only rows whose remote status the source stated; false: only rows where it was inferred or absent.',
  ),
  employment_type: vocabularyFilter(
    'employmentType',
    'employment_type',
    { values: [...EMPLOYMENT_TYPES, NOT_STATED], lookup: EMPLOYMENT_LOOKUP, code: 'bad_employment_type', what: 'employment_type', group: 'employment' },
    {
      description: 'Comma list of Full-time, Part-time, Contract, Temporary, Internship, not_stated (full_time etc. accepted). Unknown: 422 bad_employment_type.',
      example: 'Full-time',
    },
  ),
  seniority: vocabularyFilter(
    'seniority',
    'seniority',
    { values: [...SENIORITY_LEVELS, NOT_STATED], lookup: SENIORITY_LOOKUP, code: 'bad_seniority', what: 'seniority', group: 'seniority' },
    { description: 'Comma list of Entry, Mid, Senior, Lead, Manager, Director, Executive, Intern, not_stated. Unknown: 422 bad_seniority.', example: 'Senior' },
  ),
  provider: filterField('provider', {
    type: Type.Array(Type.String(), { maxItems: PROVIDER_LIST_MAX }),
    description: 'Comma list of provider ids from /v1/meta/providers, at most 12 (longer lists are truncated). Unknown: 422 bad_provider.',
    example: 'greenhouse,lever',
    errors: ['bad_provider', 'bad_request'],
    parse: providerList('provider', PROVIDER_LIST_MAX),
  }),
  exclude_provider: filterField('excludeProvider', {
    type: listOf(),
    description: 'Comma list of provider ids to drop. Unknown: 422 bad_provider.',
    example: 'usajobs',
    errors: ['bad_provider', 'bad_request'],
    parse: providerList('exclude_provider', LIST_MAX),
  }),
  source_type: vocabularyFilter('sourceType', 'source_type', SOURCE_TYPE, {
    description:
      'Comma list of ats, career_site, public_agency (legacy employer_ats, government, direct accepted); aggregator and agency are reserved and match nothing. Unknown: 422 bad_source_type.',
    example: 'ats',
  }),
  exclude_source_type: vocabularyFilter('excludeSourceType', 'exclude_source_type', SOURCE_TYPE, {
    description: 'Comma list of source types to drop (same vocabulary as source_type).',
    example: 'public_agency',
  }),
  company: filterField('company', {
    type: listOf(),
    description: 'Comma list of company slugs.',
    example: 'acme',
    errors: ['bad_request'],
    parse: freeList('company', (c) => c.toLowerCase()),
  }),
  company_domain: filterField('companyDomain', {
    type: listOf(),
    description: 'Comma list of bare domains (acme.com; a scheme, www. or path is tolerated). Companies without a known domain never match.',
    example: 'acme.com',
    errors: ['bad_request'],
    parse: domainList('company_domain'),
  }),
  exclude_company_domain: filterField('excludeCompanyDomain', {
    type: listOf(),
    description: 'Comma list of domains to drop. Companies without a known domain are kept.',
    example: 'acme.com',
    errors: ['bad_request'],
    parse: domainList('exclude_company_domain'),
  }),
  has_salary: filterField('hasSalary', {
    type: StringEnum(['true', 'structured', 'any', 'false']),
    description:
      'true or structured: source-published salaries only; any: also salaries parsed from the advert text; false: rows with no salary. Other values: 422 bad_salary.',
    example: 'any',
    errors: ['bad_salary', 'bad_request'],
    parse: parseSalaryPresence,
  }),
  min_salary: salaryFilter(
    'minSalary',
    'min_salary',
    'Lower bound (inclusive) on salary_min_annual_eur, EUR per year. Only rows that have it. Not a number: 422 bad_salary.',
    50000,
  ),
  max_salary: salaryFilter(
    'maxSalary',
    'max_salary',
    'Upper bound (inclusive) on salary_min_annual_eur, EUR per year. Only rows that have it. Not a number: 422 bad_salary.',
    120000,
  ),
  has_description: booleanFilter('hasDescription', 'has_description', 'true: only rows with a description; false: only rows without one.'),
  include_description: param({
    type: Type.Boolean({ default: false }),
    description: 'true adds `description` (sanitized HTML); limit above 50 is then 422 limit_too_large.',
    example: true,
    errors: ['bad_boolean', 'bad_request'],
    parse: (value) => parseBoolean('include_description', text('include_description', value), false),
  }),
  require_fields: filterField('requireFields', {
    type: listOf(REQUIRABLE_FIELDS),
    description:
      'Comma list of field_sources keys (remote, employment_type, salary, location, posted_at, description, source_type) that must all be published; adds `completeness`. category or seniority: 422 field_never_published; other unknown keys: 422 bad_field.',
    example: 'salary,remote',
    errors: ['field_never_published', 'bad_field', 'bad_request'],
    parse: parseRequireFields,
  }),
  posted_after: filterField('postedAfter', {
    type: Instant,
    description:
      'Date (YYYY-MM-DD, midnight UTC) or RFC 3339 timestamp; rows posted strictly later (rows without posted_at never match). Unparseable: 422 bad_timestamp.',
    example: '2026-11-01',
    errors: ['bad_timestamp', 'bad_request'],
    parse: instant('posted_after'),
  }),
  verified_after: filterField('verifiedAfter', {
    type: Instant,
    description: 'Date or RFC 3339 timestamp; rows re-confirmed at their source strictly later. Unparseable: 422 bad_timestamp.',
    example: '2026-11-01T00:00:00Z',
    errors: ['bad_timestamp', 'bad_request'],
    parse: instant('verified_after'),
  }),
  q: textFilter(
    'q',
    'q',
    'Full text over title, company name and location, not the description (PostgreSQL `simple`: no stemming; web-search syntax: "quoted phrase", or, -word).',
    '"data engineer" python',
  ),
  title: textFilter('title', 'title', 'Full text over the title only (same syntax as q).', 'engineer'),
  title_exclude: textFilter('titleExclude', 'title_exclude', 'Drops rows whose title matches this full-text query (same syntax as q).', 'intern'),
  description_contains: textFilter(
    'descriptionContains',
    'description_contains',
    'Full text over the advert body (same syntax as q). Implies has_description=true. Together with title it is the most expensive query.',
    'kubernetes',
  ),
};

/** The filters' names in reading order: every shared filter, then `include_description`. */
export const FILTER_ORDER = [
  ...(Object.keys(LISTING_FILTER_PARAMS) as Array<keyof typeof LISTING_FILTER_PARAMS>).filter((name) => name !== 'include_description'),
  'include_description',
] as const;
