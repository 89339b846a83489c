/**
 * The Company resource and the employer directory's filter (spec: Resources › Company, Company page;
 * Endpoints › GET /v1/companies). The directory's query is parsed by `src/http/schemas/companies.ts`.
 */
import { Type, type Static } from 'typebox';
import { SOURCE_TYPES, type SourceType } from './vocabulary.ts';

/** Row-level source types a company can list (spec: Company.source_types; `unknown` is never listed). */
export const COMPANY_SOURCE_TYPES = SOURCE_TYPES.filter((t) => t !== 'unknown');

const DateOnly = (description: string) => Type.String({ format: 'date', description });

/**
 * A company as served. Every field is optional (spec: "All Company fields are optional"); the directory
 * always sets slug, name, open_roles, own_site_roles, source_types and first_seen.
 */
export const CompanySchema = Type.Object(
  {
    slug: Type.Optional(Type.String({ description: 'Derived from the display name; may change (a retired slug answers 301). Prefer the domain as a stable key.' })),
    name: Type.Optional(Type.String()),
    domain: Type.Optional(Type.String({ description: 'Bare domain (no scheme, no www.), when known; the stable key, as used by company_domain on /v1/jobs.' })),
    website: Type.Optional(
      Type.String({ description: "Present only where the domain was fetched and the company's own name found on it. Absence means unproven." }),
    ),
    website_verified: Type.Optional(DateOnly('When that check was made (UTC date).')),
    logo: Type.Optional(Type.String({ description: 'URL.' })),
    country: Type.Optional(
      Type.String({ minLength: 2, maxLength: 2, description: 'ISO-3166 alpha-2: the country stated for the company, else the most frequent country of its live rows.' }),
    ),
    industry: Type.Optional(Type.String()),
    org_type: Type.Optional(Type.String({ description: 'Organisation type where known, e.g. government for public agencies.' })),
    sectors: Type.Optional(Type.Array(Type.String())),
    open_roles: Type.Optional(Type.Integer({ minimum: 0, description: 'Roles retrievable from this API: exactly the rows GET /v1/jobs?company=<slug> pages through.' })),
    own_site_roles: Type.Optional(
      Type.Integer({ minimum: 0, description: "Live vacancies seen on the company's own careers page under a non-redistributed (discovery-only) source." }),
    ),
    source_types: Type.Optional(
      Type.Array(Type.Unsafe<SourceType>({ type: 'string', enum: [...COMPANY_SOURCE_TYPES] }), {
        description: 'Source types of its live rows. aggregator and agency are reserved and match nothing.',
      }),
    ),
    careers_url: Type.Optional(Type.String({ description: 'Page where a discovered company was seen hiring.' })),
    first_seen: Type.Optional(DateOnly('When the company entered the ledger (UTC date).')),
  },
  { $id: 'Company', description: 'An employer with at least one retrievable row, or (include_discovered) evidence of hiring.' },
);
export type Company = Static<typeof CompanySchema>;

/** `{ data: Company }` (spec: single-row endpoints wrap the object). */
export const CompanyEnvelopeSchema = Type.Object({ data: CompanySchema }, { $id: 'CompanyEnvelope', description: 'One company, wrapped in data.' });

/** The Company page (spec: Resources › Company page). */
export const CompanyPageSchema = Type.Object(
  {
    data: Type.Array(CompanySchema),
    has_more: Type.Boolean(),
    limit: Type.Integer({ minimum: 1, description: 'Page size after clamping.' }),
    offset: Type.Integer({ minimum: 0, description: 'Position of the first row of this page in the whole ordering.' }),
    next_cursor: Type.Union([Type.String(), Type.Null()], { description: 'Opaque; pass back verbatim as cursor. Null on the last page.' }),
  },
  { $id: 'CompanyPage', description: 'A page of the employer directory, paged by offset or cursor.' },
);
export type CompanyPage = Static<typeof CompanyPageSchema>;

/** Largest `offset` (spec: GET /v1/companies, "0 to 100000"). */
export const COMPANY_OFFSET_MAX = 100_000;

/** Filters of the employer directory. Lists are non-empty when present; values are canonical. */
export interface CompanyFilter {
  /** Upper-case ISO-3166 alpha-2 codes. */
  country?: string[];
  /** Lower-case organisation types. */
  orgType?: string[];
  sourceType?: SourceType[];
  hasWebsite?: boolean;
  includeDiscovered: boolean;
  /** Case-insensitive substring of the name, or an exact slug or domain. */
  q?: string;
  /**
   * ISO-3166 alpha-2 of a country-locked key (spec: Authentication item 9): the directory of that
   * country's rows only (docs/architecture.md, "The employer directory under a country lock").
   */
  countryLock?: string;
}
