/**
 * The sync surfaces' queries (spec: GET /v1/jobs/closed, GET /v1/changes, GET /v1/jobs/expired).
 * Decisions on the closure parameters (docs/sync.md): `closed_after` and `closed_before` accept what
 * `posted_after` accepts and bound a half-open window `closed_after <= closed_at < closed_before`;
 * `closed_reason` is a comma list like every vocabulary filter, any case.
 */
import { Type } from 'typebox';
import type { ClosedFilter } from '../../domain/closed-listing.ts';
import { ApiError } from '../../domain/errors.ts';
import { LIST_MAX } from '../../domain/listing-filter.ts';
import { CLOSED_REASONS, type ClosedReason } from '../../domain/vocabulary.ts';
import { LEGAL_VALUES_AT } from '../endpoints.ts';
import { collect, paramsOf, queryContract } from '../query-table.ts';
import { commaList, parseInstant, parseLimit, quoteValue } from '../query-values.ts';
import { cursorParam, descriptionsFitThePage, jobFilterOf, pageSizeParam, type ListingRequest } from './jobs.ts';
import { FILTER_ORDER, LISTING_FILTER_PARAMS, type ListingContext } from './listing-filters.ts';

/** Page sizes of the feeds (spec: Limits). */
export const CHANGES_DEFAULT_LIMIT = 500;
export const CHANGES_MAX_LIMIT = 5000;
export const EXPIRED_DEFAULT_LIMIT = 1000;
export const EXPIRED_MAX_LIMIT = 10000;

const { field } = paramsOf<ListingContext>();
const closedField = field<ClosedFilter>();
/**
 * The original service's closure reasons, accepted as aliases of the spec's (issue 19, compatibility;
 * docs/sync.md). The spec's two reasons partition closures like the original's two did:
 * `deadline_passed` (the stated closing date passed, or the source proved the vacancy dead) is
 * `expired_upstream`; `employer_closed` (the employer took the posting down, so it stopped appearing at
 * its source) is `not_seen`. Served rows always carry the spec's values.
 */
export const CLOSED_REASON_ALIASES: Readonly<Record<string, ClosedReason>> = {
  deadline_passed: 'expired_upstream',
  employer_closed: 'not_seen',
};

const Instant = Type.Union([Type.String({ format: 'date' }), Type.String({ format: 'date-time' })]);

/** The closure parameters of `/v1/jobs/closed` (spec: "closed_after, closed_before, closed_reason"). */
const CLOSED_FILTER_PARAMS = {
  closed_after: closedField('closedAfter', {
    type: Instant,
    description: 'Date (YYYY-MM-DD) or RFC 3339 timestamp; rows closed at or after it. Unparseable: 422 bad_timestamp.',
    example: '2026-11-01',
    errors: ['bad_timestamp'],
    parse: (value, ctx) => parseInstant('closed_after', value, LEGAL_VALUES_AT[ctx.surface].contract),
  }),
  closed_before: closedField('closedBefore', {
    type: Instant,
    description: 'Date (YYYY-MM-DD) or RFC 3339 timestamp; rows closed before it. Unparseable: 422 bad_timestamp.',
    example: '2026-12-01T00:00:00Z',
    errors: ['bad_timestamp'],
    parse: (value, ctx) => parseInstant('closed_before', value, LEGAL_VALUES_AT[ctx.surface].contract),
  }),
  closed_reason: closedField('closedReason', {
    type: Type.Array(Type.Unsafe({ type: 'string', enum: [...CLOSED_REASONS, ...Object.keys(CLOSED_REASON_ALIASES)] })),
    description:
      'expired_upstream or not_seen; comma list, any case. The original service\'s deadline_passed (= expired_upstream) and employer_closed (= not_seen) are accepted too. Unknown: 422 bad_closed_reason.',
    example: 'not_seen',
    errors: ['bad_closed_reason'],
    parse: (value) =>
      commaList(value, LIST_MAX)?.map((item) => {
        const lower = item.toLowerCase();
        const hit = CLOSED_REASONS.find((r) => r === lower) ?? (Object.hasOwn(CLOSED_REASON_ALIASES, lower) ? CLOSED_REASON_ALIASES[lower] : undefined);
        if (!hit) throw new ApiError('bad_closed_reason', `The value ${quoteValue(item)} is not a closed_reason; the legal values are ${CLOSED_REASONS.join(', ')}.`);
        return hit;
      }),
  }),
};

/** `/v1/jobs/closed`: the listing request and the closure window. */
export interface ClosedJobsRequest {
  listing: ListingRequest;
  closed: ClosedFilter;
}

/**
 * `GET /v1/jobs/closed`: the spec's parameters (limit, cursor, the closure window, the shared filters)
 * and no others. `/v1/jobs`'s `status`, `quality` and `include_poster_type` are not parameters here
 * (every row is closed, and the closed population is fixed: docs/sync.md), so like any unknown name
 * they are ignored and named in `X-Ignored-Params`; before issue 13 they were documented but ignored.
 */
export const closedJobsQuery = queryContract({
  params: {
    ...LISTING_FILTER_PARAMS,
    limit: pageSizeParam('1 to 200, default 25; clamped to the plan maximum; a non-numeric value uses the default.', 200),
    cursor: cursorParam,
    ...CLOSED_FILTER_PARAMS,
  },
  order: [...FILTER_ORDER, 'limit', descriptionsFitThePage, 'cursor', 'closed_after', 'closed_before', 'closed_reason'],
  build: (values, ctx: ListingContext): ClosedJobsRequest => ({
    listing: { filter: jobFilterOf(values, ctx), limit: values.limit.limit, cursor: values.cursor, includeDescription: values.include_description },
    closed: collect<ClosedFilter>(CLOSED_FILTER_PARAMS, values),
  }),
});

/** A feed's query: `since` as sent (decoded by the page, `domain/feed-cursor.ts`) and the page size. */
export interface FeedRequest {
  since: string | undefined;
  limit: number;
}

/**
 * The query of a feed (spec: GET /v1/changes, GET /v1/jobs/expired): `since` is required, but its
 * absence is the feed's own 422 `bad_timestamp` rather than a framework 400, so the contract lists it
 * as optional.
 */
function feedQuery(limit: { max: number; fallback: number }) {
  const { param: feedParam } = paramsOf<unknown>();
  return queryContract({
    params: {
      since: feedParam<string | undefined>({
        type: Type.String(),
        description:
          'Required. An RFC 3339 timestamp (or a date) on the first call, then the previous next_since verbatim. Not a timestamp: 422 bad_timestamp; a malformed cursor: 422 bad_cursor.',
        example: '2026-11-01T00:00:00Z',
        errors: ['bad_timestamp', 'bad_cursor'],
        parse: (value) => value,
      }),
      limit: feedParam<number>({
        type: Type.Integer({ minimum: 1, maximum: limit.max, default: limit.fallback }),
        description: `1 to ${limit.max}, default ${limit.fallback}.`,
        example: limit.fallback,
        errors: [],
        parse: (value) => parseLimit(value, limit.max, limit.fallback),
      }),
    },
    build: (values): FeedRequest => ({ since: values.since, limit: values.limit }),
  });
}

/** `GET /v1/changes`. */
export const changesQuery = feedQuery({ max: CHANGES_MAX_LIMIT, fallback: CHANGES_DEFAULT_LIMIT });
/** `GET /v1/jobs/expired`. */
export const expiredQuery = feedQuery({ max: EXPIRED_MAX_LIMIT, fallback: EXPIRED_DEFAULT_LIMIT });
