/**
 * The job listings' queries (spec: GET /v1/jobs, GET /v1/jobs/{id}, Keyless endpoints › GET
 * /public/jobs): the shared filters plus the page parameters and the paid-surface scope, keyed and
 * keyless, and the single row's `include_closed`.
 */
import { Type } from 'typebox';
import { ApiError } from '../../domain/errors.ts';
import {
  DEFAULT_LIMIT,
  DESCRIPTION_LIMIT_MAX,
  LIST_MAX,
  STATUS_VALUES,
  type JobFilter,
  type ServingScope,
  type StatusScope,
} from '../../domain/listing-filter.ts';
import { POSTER_TYPES, type PosterType } from '../../domain/vocabulary.ts';
import { KEYLESS_MAX_LIMIT, keyRequiredToPageMessage, LEGAL_VALUES_AT, paidFeatureMessage } from '../endpoints.ts';
import { collect, paramsOf, queryContract, type QueryCheck, type QueryValues } from '../query-table.ts';
import { commaList, lookupList, parseBoolean, parseLimit, quoteValue, text, vocabularyError } from '../query-values.ts';
import { FILTER_ORDER, LISTING_FILTER_PARAMS, type ListingContext } from './listing-filters.ts';

/** Shared filters plus the page parameters of a keyset-paged listing, parsed. */
export interface ListingRequest {
  filter: JobFilter;
  /** Page size after clamping. */
  limit: number;
  /** The opaque cursor as sent, trimmed (decoded by the page, which knows the query fingerprint). */
  cursor?: string;
  includeDescription: boolean;
}

/** `/v1/jobs` and `/public/jobs`: shared filters, page parameters and the serving scope. */
export interface JobsRequest extends ListingRequest {
  scope: ServingScope;
}

/** A page size as asked for and as served after the plan's (or the keyless) clamp. */
export interface PageSize {
  requested: number;
  limit: number;
}

const { param } = paramsOf<ListingContext>();

/** `limit` of a job listing: clamped to the caller's maximum; non-numeric → the default. */
export function pageSizeParam(description: string, maximum: number) {
  return param<PageSize>({
    type: Type.Integer({ minimum: 1, maximum, default: DEFAULT_LIMIT }),
    description,
    example: 50,
    errors: ['bad_request', 'limit_too_large'],
    parse: (value, ctx) => {
      const requested = parseLimit(text('limit', value), Number.MAX_SAFE_INTEGER, DEFAULT_LIMIT);
      return { requested, limit: Math.min(requested, ctx.maxLimit) };
    },
  });
}

/** The keyed surface's `cursor`: the opaque keyset cursor, checked when the page is read. */
export const cursorParam = param<string | undefined>({
  type: Type.String(),
  description: "The previous page's next_cursor, verbatim. Malformed, altered or from another query: 422 bad_cursor.",
  errors: ['bad_request', 'bad_cursor'],
  parse: (value) => text('cursor', value),
});

/**
 * `include_description=true` with more than 50 rows (spec: include_description).
 * @throws ApiError 422 `limit_too_large`.
 */
export const descriptionsFitThePage: QueryCheck<{ include_description: typeof LISTING_FILTER_PARAMS.include_description; limit: ReturnType<typeof pageSizeParam> }, ListingContext> = (
  values,
  ctx,
) => {
  if (values.include_description && values.limit && values.limit.limit > DESCRIPTION_LIMIT_MAX) {
    throw new ApiError(
      'limit_too_large',
      `limit=${values.limit.requested} is too large with include_description=true; the maximum with descriptions is ${DESCRIPTION_LIMIT_MAX} (see ${LEGAL_VALUES_AT[ctx.surface].contract}).`,
    );
  }
};

/** The shared filters as a {@link JobFilter}, the caller's country lock ANDed last. */
export function jobFilterOf(values: Readonly<Record<string, unknown>>, ctx: Pick<ListingContext, 'countryLock'>): JobFilter {
  const filter = collect<JobFilter>(LISTING_FILTER_PARAMS, values);
  if (ctx.countryLock) filter.countryLock = ctx.countryLock;
  return filter;
}

const POSTER_LOOKUP = new Map<string, PosterType | 'all'>([...POSTER_TYPES.map((v) => [v, v] as const), ['all', 'all']]);

/** The paid-surface parameters of `/v1/jobs` (spec: GET /v1/jobs, "Paid surface only"). */
export const SERVING_SCOPE_PARAMS = {
  status: param<StatusScope | undefined>({
    type: Type.Unsafe({ type: 'string', enum: [...STATUS_VALUES], default: 'live' }),
    description: 'live (default), closed or any. Unknown: 422 bad_status. Order stays posted_at desc (nulls last), id desc.',
    example: 'any',
    errors: ['bad_status', 'bad_request'],
    parse: (value, ctx) => {
      const status = text('status', value);
      if (status === undefined) return undefined;
      const hit = STATUS_VALUES.find((s) => s === status.toLowerCase());
      if (!hit) throw new ApiError('bad_status', `The value ${quoteValue(status)} of status is not legal; send live, closed or any (see ${LEGAL_VALUES_AT[ctx.surface].contract}).`);
      return hit;
    },
  }),
  quality: param<boolean | undefined>({
    type: Type.Unsafe({ type: 'string', enum: ['all'] }),
    description:
      'all: also rows withheld as quality_gated (never removed ones), and each row carries quality_verdict, quality_rule_id and quality_matched_host. Other values: 422 bad_quality.',
    example: 'all',
    errors: ['bad_quality', 'bad_request'],
    parse: (value, ctx) => {
      const quality = text('quality', value);
      if (quality === undefined) return undefined;
      if (quality.toLowerCase() !== 'all') {
        throw new ApiError('bad_quality', `The value ${quoteValue(quality)} of quality is not legal; the only value is all (see ${LEGAL_VALUES_AT[ctx.surface].contract}).`);
      }
      return true;
    },
  }),
  include_poster_type: param<PosterType[] | undefined>({
    type: Type.Array(Type.Unsafe({ type: 'string', enum: [...POSTER_TYPES, 'all'] })),
    description: 'Comma list of staffing, jobboard or all: re-admits rows posted by a staffing agency or a job board. Unknown: 422 bad_poster_type.',
    example: 'staffing',
    errors: ['bad_poster_type', 'bad_request'],
    parse: (value, ctx) => {
      const posters = lookupList(commaList(text('include_poster_type', value), LIST_MAX), POSTER_LOOKUP, (v) =>
        vocabularyError('bad_poster_type', 'include_poster_type', v, `${LEGAL_VALUES_AT[ctx.surface].contract} (staffing, jobboard or all)`),
      );
      if (!posters) return undefined;
      return posters.includes('all') ? [...POSTER_TYPES] : (posters as PosterType[]);
    },
  }),
};

function scopeOf(values: QueryValues<typeof SERVING_SCOPE_PARAMS>): ServingScope {
  return { status: values.status ?? 'live', qualityAll: values.quality ?? false, posterTypes: values.include_poster_type ?? [] };
}

/** `GET /v1/jobs`. */
export const keyedJobsQuery = queryContract({
  params: {
    ...LISTING_FILTER_PARAMS,
    ...SERVING_SCOPE_PARAMS,
    limit: pageSizeParam('1 to 200, default 25; clamped to the plan maximum; a non-numeric value uses the default.', 200),
    cursor: cursorParam,
  },
  // The filters, then the page, then the scope: a request with several bad values names the first.
  order: [...FILTER_ORDER, 'limit', descriptionsFitThePage, 'cursor', 'status', 'quality', 'include_poster_type'],
  build: (values, ctx: ListingContext): JobsRequest => ({
    filter: jobFilterOf(values, ctx),
    limit: values.limit.limit,
    cursor: values.cursor,
    includeDescription: values.include_description,
    scope: scopeOf(values),
  }),
});

/**
 * Paid-surface parameters sent without a key (our choice between the spec's two accounts,
 * docs/listing.md): refused rather than ignored.
 * @throws ApiError 403 `paid_feature` naming them.
 */
const paidFeaturesNeedAKey: QueryCheck<typeof SERVING_SCOPE_PARAMS, ListingContext> = (values) => {
  const scope = scopeOf(values as QueryValues<typeof SERVING_SCOPE_PARAMS>);
  const asked = [
    scope.status !== 'live' ? `status=${scope.status}` : undefined,
    scope.qualityAll ? 'quality=all' : undefined,
    scope.posterTypes.length > 0 ? 'include_poster_type' : undefined,
  ].filter((a): a is string => a !== undefined);
  if (asked.length > 0) throw new ApiError('paid_feature', paidFeatureMessage(asked));
};

/** `GET /public/jobs`: one page of at most 50 rows, live employer-direct rows only. */
export const keylessJobsQuery = queryContract({
  params: {
    ...LISTING_FILTER_PARAMS,
    status: { ...SERVING_SCOPE_PARAMS.status, description: 'Only live is served without a key; closed or any: 403 paid_feature.', errors: ['bad_status', 'paid_feature', 'bad_request'] },
    quality: { ...SERVING_SCOPE_PARAMS.quality, description: 'Not available without a key: quality=all is 403 paid_feature.', errors: ['bad_quality', 'paid_feature', 'bad_request'] },
    include_poster_type: {
      ...SERVING_SCOPE_PARAMS.include_poster_type,
      description: 'Not available without a key: 403 paid_feature.',
      errors: ['bad_poster_type', 'paid_feature', 'bad_request'],
    },
    limit: pageSizeParam('1 to 50, default 25; larger values are clamped to 50.', KEYLESS_MAX_LIMIT),
    cursor: param<undefined>({
      type: Type.String(),
      description: 'Not available without a key: 402 key_required_to_page.',
      errors: ['key_required_to_page'],
      parse: (value) => {
        if (value !== undefined && value !== '') throw new ApiError('key_required_to_page', keyRequiredToPageMessage('the cursor', '/v1/jobs'));
        return undefined;
      },
    }),
  },
  // A cursor is refused before anything else is read: paging is what the key is for.
  order: ['cursor', ...FILTER_ORDER, 'limit', descriptionsFitThePage, 'status', 'quality', 'include_poster_type', paidFeaturesNeedAKey],
  build: (values, ctx: ListingContext): JobsRequest => ({
    filter: jobFilterOf(values, ctx),
    limit: values.limit.limit,
    cursor: undefined,
    includeDescription: values.include_description,
    scope: scopeOf(values),
  }),
});

/** `GET /v1/jobs/{id}`. */
export const jobQuery = queryContract({
  params: {
    include_closed: paramsOf<unknown>().param<boolean>({
      type: Type.Boolean({ default: false }),
      description: 'true returns a closed row too (status closed, closed_at and closed_reason set).',
      example: true,
      errors: ['bad_boolean'],
      parse: (value) => parseBoolean('include_closed', value, false),
    }),
  },
  build: (values) => ({ includeClosed: values.include_closed }),
});

/** The path of the single-row endpoints. */
export const JobIdParams = Type.Object({ id: Type.String({ description: 'Job uuid or slug.' }) });
