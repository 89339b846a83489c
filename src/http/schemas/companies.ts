/**
 * The employer directory's queries (spec: GET /v1/companies, Keyless endpoints › GET /public/companies).
 * `limit` clamps like every page size; `cursor` overrides `offset`; unknown parameters are ignored.
 */
import { Type } from 'typebox';
import { COMPANY_OFFSET_MAX, COMPANY_SOURCE_TYPES, type CompanyFilter } from '../../domain/company.ts';
import { ApiError } from '../../domain/errors.ts';
import { DEFAULT_LIMIT, LIST_MAX } from '../../domain/listing-filter.ts';
import { LEGACY_SOURCE_TYPE, type SourceType } from '../../domain/vocabulary.ts';
import { KEYLESS_MAX_LIMIT, keyRequiredToPageMessage, LEGAL_VALUES_AT, type Surface } from '../endpoints.ts';
import { collect, paramsOf, queryContract, type QueryCheck } from '../query-table.ts';
import { commaList, parseBoolean, parseLimit, parseOptionalBoolean, quoteValue } from '../query-values.ts';

/** What parsing a directory query needs to know about the caller. */
export interface DirectoryContext {
  surface: Surface;
  /** Largest page: the plan's `max_page_size`, or 50 on the keyless surface. */
  maxLimit: number;
  /** A country-locked key's country (docs/architecture.md, "The employer directory under a country lock"). */
  countryLock?: string;
}

/** A directory page request, parsed. */
export interface CompanyListRequest {
  filter: CompanyFilter;
  limit: number;
  offset: number;
  /** The opaque cursor as sent, trimmed; it overrides `offset`. */
  cursor?: string;
}

const { param, field } = paramsOf<DirectoryContext>();
const directoryField = field<CompanyFilter>();

/**
 * A `source_type` list: the spec's values plus the legacy spellings `employer_ats`, `government`,
 * `direct` (spec: Controlled vocabularies), any case.
 * @throws ApiError 422 `bad_source_type` naming the value and where legal values are listed.
 */
function parseSourceTypes(value: string | undefined, ctx: DirectoryContext): SourceType[] | undefined {
  const items = commaList(value, LIST_MAX);
  if (!items) return undefined;
  const where = LEGAL_VALUES_AT[ctx.surface].facets;
  return [
    ...new Set(
      items.map((raw) => {
        const v = raw.toLowerCase();
        // Own keys only: `constructor` or `__proto__` must not find Object.prototype's members.
        const hit = (Object.hasOwn(LEGACY_SOURCE_TYPE, v) ? LEGACY_SOURCE_TYPE[v] : undefined) ?? (COMPANY_SOURCE_TYPES as readonly string[]).find((t) => t === v);
        if (!hit) throw new ApiError('bad_source_type', `The value ${quoteValue(raw)} is not a legal source_type; the legal values are listed at ${where}.`);
        return hit as SourceType;
      }),
    ),
  ];
}

/**
 * `offset`: an integer 0..100000; absent means 0.
 * @throws ApiError 422 `bad_offset` for anything else (spec: "Beyond that: 422 bad_offset").
 */
function parseOffset(value: string | undefined): number {
  const v = value?.trim();
  if (v === undefined || v === '') return 0;
  const n = Number(v);
  if (!/^\d+$/.test(v) || !Number.isSafeInteger(n) || n > COMPANY_OFFSET_MAX) {
    throw new ApiError('bad_offset', `The value ${quoteValue(v)} of offset is not allowed; offset is an integer from 0 to ${COMPANY_OFFSET_MAX}. Page deeper with next_cursor.`);
  }
  return n;
}

/** A comma list of free values into filter property `into`, each cased by `canonical`; nothing is refused. */
function freeList(into: 'country' | 'orgType', description: string, example: string, canonical: (v: string) => string) {
  return directoryField(into, { type: Type.Array(Type.String()), description, example, errors: [], parse: (value) => commaList(value, LIST_MAX)?.map(canonical) });
}

/** The directory's filters, in the order the contract lists them. */
const DIRECTORY_FILTER_PARAMS = {
  country: freeList(
    'country',
    'Comma list of ISO-3166 alpha-2 codes: the company country (stated, else the most frequent country of its live rows).',
    'DE',
    (c) => c.toUpperCase(),
  ),
  org_type: freeList('orgType', 'Comma list of organisation types, any case (e.g. government).', 'government', (o) => o.toLowerCase()),
  source_type: directoryField('sourceType', {
    type: Type.Array(Type.Unsafe({ type: 'string', enum: [...COMPANY_SOURCE_TYPES, ...Object.keys(LEGACY_SOURCE_TYPE)] })),
    description:
      'Comma list: ats, career_site, public_agency (aggregator and agency are reserved and match nothing); legacy employer_ats, government, direct. Unknown: 422 bad_source_type.',
    example: 'ats',
    errors: ['bad_source_type'],
    parse: parseSourceTypes,
  }),
  has_website: directoryField('hasWebsite', {
    type: Type.Boolean(),
    description: 'true: only companies whose own-name website was verified; false: only those without one.',
    example: true,
    errors: ['bad_boolean'],
    parse: (value) => parseOptionalBoolean('has_website', value),
  }),
  // Always part of the filter (false when absent), so the build sets it rather than `collect`.
  include_discovered: param<boolean>({
    type: Type.Boolean({ default: false }),
    description: 'true also lists discovered companies (open_roles 0, seen hiring on a discovery-only source).',
    example: true,
    errors: ['bad_boolean'],
    parse: (value) => parseBoolean('include_discovered', value, false),
  }),
  q: directoryField('q', {
    type: Type.String(),
    description: 'Case-insensitive part of the company name, or an exact slug or domain.',
    example: 'acme',
    errors: [],
    parse: (value) => value?.trim() || undefined,
  }),
};

const directoryLimit = (description: string, maximum: number) =>
  param<number>({
    type: Type.Integer({ minimum: 1, maximum, default: DEFAULT_LIMIT }),
    description,
    example: 50,
    errors: [],
    parse: (value, ctx) => Math.min(parseLimit(value, Number.MAX_SAFE_INTEGER, DEFAULT_LIMIT), ctx.maxLimit),
  });

const cursor = (description: string) =>
  param<string | undefined>({ type: Type.String(), description, errors: ['bad_cursor'], parse: (value) => value?.trim() || undefined });

/** The reading order: `include_discovered` first, as the directory always read it. */
const READ_ORDER = ['include_discovered', 'country', 'org_type', 'source_type', 'has_website', 'q', 'offset', 'limit', 'cursor'] as const;

function directoryRequest(
  values: { include_discovered: boolean; limit: number; offset: number; cursor: string | undefined } & Readonly<Record<string, unknown>>,
  ctx: DirectoryContext,
): CompanyListRequest {
  const filter: CompanyFilter = { includeDiscovered: values.include_discovered, ...collect<CompanyFilter>(DIRECTORY_FILTER_PARAMS, values) };
  if (ctx.countryLock) filter.countryLock = ctx.countryLock;
  return { filter, limit: values.limit, offset: values.offset, cursor: values.cursor };
}

/** `GET /v1/companies`. */
export const keyedDirectoryQuery = queryContract({
  params: {
    ...DIRECTORY_FILTER_PARAMS,
    limit: directoryLimit('1 to 200, default 25; clamped to the plan maximum; a non-numeric value uses the default.', 200),
    offset: param<number>({
      type: Type.Integer({ minimum: 0, maximum: COMPANY_OFFSET_MAX, default: 0 }),
      description: '0 to 100000, default 0. Above: 422 bad_offset. Ignored when cursor is sent.',
      example: 50,
      errors: ['bad_offset'],
      parse: parseOffset,
    }),
    cursor: cursor("The previous page's next_cursor, verbatim; overrides offset. Malformed or from another query: 422 bad_cursor."),
  },
  order: READ_ORDER,
  build: (values, ctx: DirectoryContext) => directoryRequest(values, ctx),
});

/**
 * The keyless directory serves its first page only (docs/architecture.md, "Keyless directory").
 * @throws ApiError 402 `key_required_to_page` for a cursor or an offset above 0.
 */
const firstPageOnly: QueryCheck<{ offset: ReturnType<typeof param<number>>; cursor: ReturnType<typeof cursor> }, DirectoryContext> = (values) => {
  if (values.cursor !== undefined || (values.offset ?? 0) > 0) {
    throw new ApiError('key_required_to_page', keyRequiredToPageMessage('cursor or offset', '/v1/companies'));
  }
};

/** `GET /public/companies`. */
export const keylessDirectoryQuery = queryContract({
  params: {
    ...DIRECTORY_FILTER_PARAMS,
    limit: directoryLimit('1 to 50, default 25; larger values are clamped to 50.', KEYLESS_MAX_LIMIT),
    offset: param<number>({
      type: Type.Integer({ minimum: 0, default: 0 }),
      description: 'Not available without a key: a value above 0 is 402 key_required_to_page.',
      errors: ['bad_offset', 'key_required_to_page'],
      parse: parseOffset,
    }),
    cursor: { ...cursor('Not available without a key: 402 key_required_to_page.'), errors: ['key_required_to_page'] },
  },
  order: [...READ_ORDER, firstPageOnly],
  build: (values, ctx: DirectoryContext) => directoryRequest(values, ctx),
});

/** The path of the single-company endpoints. */
export const SlugParams = Type.Object({ slug: Type.String({ description: 'Company slug (any case).' }) });
