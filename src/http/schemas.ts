/**
 * Route schemas shared by the keyed and keyless surfaces. Every query parameter is declared as a
 * string so the framework never rejects a request before the spec's own parsing rules run
 * (`src/domain/listing-filter.ts`); the descriptions are what the OpenAPI contract shows.
 */
import { Type, type TSchema } from 'typebox';
import { ErrorSchema } from '../domain/job.ts';

const param = (description: string) => Type.Optional(Type.String({ description }));

/**
 * The shared listing filters (spec: Endpoints › Shared listing filters), for `/v1/jobs`,
 * `/v1/jobs/closed` and `/v1/export`. Names are case-sensitive, values are not; a comma list ORs
 * within a parameter; parameters AND together; the first occurrence of a repeated parameter wins.
 */
export const listingFilterParams = {
  category: param('Comma list of category families (the `family` facet), or uncategorised for rows with no confident category. Unknown: 422 bad_category.'),
  exclude_category: param('Comma list of category families (or uncategorised) to drop. Unknown: 422 bad_category.'),
  country: param('Comma list of ISO-3166 alpha-2 codes. Rows with no country never match.'),
  exclude_country: param('Comma list of ISO-3166 alpha-2 codes to drop. Rows with no country are kept.'),
  city: param('Comma list of resolved city names (the `city` facet), any case. Thinner coverage than country.'),
  state: param('Comma list of two-letter US state codes; rows outside the US never match. Unknown: 422 bad_state.'),
  remote: param('Comma list of remote, hybrid, on_site, not_stated (no value). Unknown: 422 bad_remote.'),
  remote_confirmed: param('true: only rows whose remote status the source stated; false: only rows where it was inferred or absent.'),
  employment_type: param('Comma list of Full-time, Part-time, Contract, Temporary, Internship, not_stated (full_time etc. accepted). Unknown: 422 bad_employment_type.'),
  seniority: param('Comma list of Entry, Mid, Senior, Lead, Manager, Director, Executive, Intern, not_stated. Unknown: 422 bad_seniority.'),
  provider: param('Comma list of provider ids from /v1/meta/providers, at most 12 (longer lists are truncated). Unknown: 422 bad_provider.'),
  exclude_provider: param('Comma list of provider ids to drop. Unknown: 422 bad_provider.'),
  source_type: param('Comma list of ats, career_site, public_agency (legacy employer_ats, government, direct accepted); aggregator and agency are reserved and match nothing. Unknown: 422 bad_source_type.'),
  exclude_source_type: param('Comma list of source types to drop (same vocabulary as source_type).'),
  company: param('Comma list of company slugs.'),
  company_domain: param('Comma list of bare domains (acme.com; a scheme, www. or path is tolerated). Companies without a known domain never match.'),
  exclude_company_domain: param('Comma list of domains to drop. Companies without a known domain are kept.'),
  has_salary: param('true or structured: source-published salaries only; any: also salaries parsed from the advert text; false: rows with no salary. Other values: 422 bad_salary.'),
  min_salary: param('Lower bound (inclusive) on salary_min_annual_eur, EUR per year. Only rows that have it. Not a number: 422 bad_salary.'),
  max_salary: param('Upper bound (inclusive) on salary_min_annual_eur, EUR per year. Only rows that have it. Not a number: 422 bad_salary.'),
  has_description: param('true: only rows with a description; false: only rows without one.'),
  include_description: param('true adds `description` (sanitized HTML); limit above 50 is then 422 limit_too_large.'),
  require_fields: param('Comma list of field_sources keys (remote, employment_type, salary, location, posted_at, description, source_type) that must all be published; adds `completeness`. category or seniority: 422 field_never_published; other unknown keys: 422 bad_field.'),
  posted_after: param('Date (YYYY-MM-DD, midnight UTC) or RFC 3339 timestamp; rows posted strictly later (rows without posted_at never match). Unparseable: 422 bad_timestamp.'),
  verified_after: param('Date or RFC 3339 timestamp; rows re-confirmed at their source strictly later. Unparseable: 422 bad_timestamp.'),
  q: param('Full text over title, company name and location, not the description (PostgreSQL `simple`: no stemming; web-search syntax: "quoted phrase", or, -word).'),
  title: param('Full text over the title only (same syntax as q).'),
  title_exclude: param('Drops rows whose title matches this full-text query (same syntax as q).'),
  description_contains: param('Full text over the advert body (same syntax as q). Implies has_description=true. Together with title it is the most expensive query.'),
};

/** The paid-surface parameters of `/v1/jobs` (spec: GET /v1/jobs). */
const servingScopeParams = {
  status: param('live (default), closed or any. Unknown: 422 bad_status. Order stays posted_at desc (nulls last), id desc.'),
  quality: param('all: also rows withheld as quality_gated (never removed ones), and each row carries quality_verdict, quality_rule_id and quality_matched_host. Other values: 422 bad_quality.'),
  include_poster_type: param('Comma list of staffing, jobboard or all: re-admits rows posted by a staffing agency or a job board. Unknown: 422 bad_poster_type.'),
};

export const keyedListingQuery = Type.Object(
  {
    ...listingFilterParams,
    ...servingScopeParams,
    limit: param('1 to 200, default 25; clamped to the plan maximum; a non-numeric value uses the default.'),
    cursor: param('The previous page\'s next_cursor, verbatim. Malformed, altered or from another query: 422 bad_cursor.'),
  },
  { additionalProperties: true },
);

export const keylessListingQuery = Type.Object(
  {
    ...listingFilterParams,
    status: param('Only live is served without a key; closed or any: 403 paid_feature.'),
    quality: param('Not available without a key: quality=all is 403 paid_feature.'),
    include_poster_type: param('Not available without a key: 403 paid_feature.'),
    limit: param('1 to 50, default 25; larger values are clamped to 50.'),
    cursor: param('Not available without a key: 402 key_required_to_page.'),
  },
  { additionalProperties: true },
);

export const JobIdParams = Type.Object({ id: Type.String({ description: 'Job uuid or slug.' }) });

/** Error responses a route can give, keyed by status, all with the error body. */
export function errorResponses(...statuses: number[]): Record<number, TSchema> {
  return Object.fromEntries(statuses.map((s) => [s, ErrorSchema]));
}
