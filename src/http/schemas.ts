/**
 * Route schemas shared by the keyed and keyless surfaces. Every query parameter is declared as a
 * string so the framework never rejects a request before the spec's own parsing rules run
 * (`src/domain/listing-filter.ts`); the descriptions are what the OpenAPI contract shows.
 */
import { Type, type TSchema } from 'typebox';
import { ErrorSchema } from '../domain/job.ts';

const param = (description: string) => Type.Optional(Type.String({ description }));

/** The shared listing filters (spec: Endpoints › Shared listing filters). */
export const listingFilterParams = {
  country: param('Comma list of ISO-3166 alpha-2 codes. Rows with no country never match.'),
  remote: param('remote, hybrid, on_site or not_stated; comma list. Unknown: 422 bad_remote.'),
  employment_type: param('Full-time, Part-time, Contract, Temporary, Internship or not_stated; comma list, any case. Unknown: 422 bad_employment_type.'),
  company: param('Comma list of company slugs.'),
  provider: param('Comma list of provider ids from /v1/meta/providers, at most 12 (longer lists are truncated). Unknown: 422 bad_provider.'),
  q: param('Full text over title, company name and location (no stemming; web-search syntax: quotes, or, -word).'),
  posted_after: param('Date (YYYY-MM-DD) or RFC 3339 timestamp. Unparseable: 422 bad_timestamp.'),
  include_description: param('true adds `description` (sanitized HTML); limit above 50 is then 422 limit_too_large.'),
};

export const keyedListingQuery = Type.Object(
  {
    ...listingFilterParams,
    limit: param('1 to 200, default 25; clamped to the plan maximum; a non-numeric value uses the default.'),
    cursor: param('The previous page\'s next_cursor, verbatim. Malformed or from another query: 422 bad_cursor.'),
  },
  { additionalProperties: true },
);

export const keylessListingQuery = Type.Object(
  {
    ...listingFilterParams,
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
