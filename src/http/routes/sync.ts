/**
 * The sync surfaces of the keyed API (spec: GET /v1/changes, GET /v1/jobs/expired, GET /v1/jobs/closed;
 * Events; Recipes › Stay in sync). The feeds page by `since`/`next_since` (`<timestamp>|<uuid>`), the
 * closed listing by an opaque keyset cursor. See docs/sync.md.
 */
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { parseClosedQuery } from '../../domain/closed-listing.ts';
import { CursorError, decodeCursor, encodeCursor, queryFingerprint } from '../../domain/cursor.ts';
import { ApiError } from '../../domain/errors.ts';
import { formatFeedCursor, parseSince } from '../../domain/feed-cursor.ts';
import { JobPageSchema, JobSchema, StringEnum, type JobPage } from '../../domain/job.ts';
import { parseListingQuery, parseLimit, type RawQuery } from '../../domain/listing-filter.ts';
import { CHANGE_KINDS, CLOSED_REASONS } from '../../domain/vocabulary.ts';
import { listClosedJobs, readChanges, readExpired } from '../../store/feeds.ts';
import { toJob } from '../presenters/job.ts';
import type { AppContext } from '../context.ts';
import { requireEntitlement } from '../../access/entitlements.ts';
import { errorResponses, keyedListingQuery } from '../schemas.ts';

/** Page sizes of the feeds (spec: Limits). */
export const CHANGES_DEFAULT_LIMIT = 500;
export const CHANGES_MAX_LIMIT = 5000;
export const EXPIRED_DEFAULT_LIMIT = 1000;
export const EXPIRED_MAX_LIMIT = 10000;

const sinceParam = Type.String({
  description: 'Required. An RFC 3339 timestamp (or a date) on the first call, then the previous next_since verbatim. Not a timestamp: 422 bad_timestamp; a malformed cursor: 422 bad_cursor.',
});

export const ChangeItemSchema = Type.Object(
  {
    change: StringEnum(CHANGE_KINDS, { description: 'created and updated: upsert `job`. delisted and withdrawn: stop serving the job.' }),
    id: Type.String({ format: 'uuid', description: 'The job id.' }),
    changed_at: Type.String({ format: 'date-time', description: 'When the change was committed (feed stamp, whole milliseconds, UTC).' }),
    job: Type.Optional(JobSchema),
  },
  { description: "One change. A job's earlier changes after your cursor are folded into its latest one." },
);

export const ChangesPageSchema = Type.Object({
  count: Type.Integer({ description: 'Items in data.' }),
  data: Type.Array(ChangeItemSchema),
  next_since: Type.String({ description: '<timestamp>|<uuid>; pass back verbatim. An empty page echoes the since it was given.' }),
});

export const ExpiredItemSchema = Type.Object({
  id: Type.String({ format: 'uuid' }),
  closed_at: Type.String({ format: 'date-time', description: 'When the ledger closed the row (feed stamp, whole milliseconds, UTC).' }),
  closed_reason: StringEnum(CLOSED_REASONS),
});

export const ExpiredPageSchema = Type.Object({
  count: Type.Integer({ description: 'Items in data.' }),
  data: Type.Array(ExpiredItemSchema),
  next_since: Type.String({ description: '<timestamp>|<uuid>; pass back verbatim. An empty page echoes the since it was given.' }),
});

const closedQuery = Type.Object(
  {
    ...keyedListingQuery.properties,
    closed_after: Type.Optional(Type.String({ description: 'Date (YYYY-MM-DD) or RFC 3339 timestamp; rows closed at or after it. Unparseable: 422 bad_timestamp.' })),
    closed_before: Type.Optional(Type.String({ description: 'Date (YYYY-MM-DD) or RFC 3339 timestamp; rows closed before it. Unparseable: 422 bad_timestamp.' })),
    closed_reason: Type.Optional(Type.String({ description: 'expired_upstream or not_seen; comma list, any case. Unknown: 422 bad_closed_reason.' })),
  },
  { additionalProperties: true },
);

/** `/v1/changes`, `/v1/jobs/expired`, `/v1/jobs/closed`; register inside the authenticated scope. */
export function syncRoutes(ctx: AppContext) {
  return async (app: FastifyInstance) => {
    const r = app.withTypeProvider<TypeBoxTypeProvider>();

    r.get(
      '/changes',
      {
        schema: {
          operationId: 'listChanges',
          tags: ['sync'],
          summary: 'Delta feed: every change after a cursor, in commit order (needs delta_feed)',
          security: [{ bearerAuth: [] }],
          querystring: Type.Object(
            { since: Type.Optional(sinceParam), limit: Type.Optional(Type.String({ description: '1 to 5000, default 500.' })) },
            { additionalProperties: true },
          ),
          response: { 200: ChangesPageSchema, ...errorResponses(401, 402, 403, 422, 429, 500, 503) },
        },
      },
      async (request) => {
        requireEntitlement(request.apiKey, 'delta_feed');
        const query = request.query as RawQuery;
        const position = parseSince(query.since, '/v1/changes');
        const limit = parseLimit(query.limit, CHANGES_MAX_LIMIT, CHANGES_DEFAULT_LIMIT);
        const granted = await request.recordMeter.reserve(limit);
        // A country-locked key reads its country's feed (spec: Authentication item 9; docs/sync.md).
        const items = await readChanges(ctx.db, position, granted, { countryLock: request.apiKey!.key.country_lock ?? undefined });
        // One record per job row returned (spec: Metering rules); id-only items cost nothing.
        await request.recordMeter.settle(items.filter((i) => i.job).length);
        const last = items[items.length - 1];
        return {
          count: items.length,
          data: items.map((i) => ({ change: i.change, id: i.jobId, changed_at: i.changedAt, ...(i.job ? { job: toJob(i.job, { includeDescription: false }) } : {}) })),
          next_since: last ? formatFeedCursor(last.changedAt, last.jobId) : query.since!.trim(),
        };
      },
    );

    r.get(
      '/jobs/expired',
      {
        schema: {
          operationId: 'listExpiredJobs',
          tags: ['sync'],
          summary: 'Compact closure feed: closed rows after a cursor, oldest closure first (needs delta_feed)',
          security: [{ bearerAuth: [] }],
          querystring: Type.Object(
            { since: Type.Optional(sinceParam), limit: Type.Optional(Type.String({ description: '1 to 10000, default 1000.' })) },
            { additionalProperties: true },
          ),
          response: { 200: ExpiredPageSchema, ...errorResponses(401, 402, 403, 422, 429, 500, 503) },
        },
      },
      async (request) => {
        requireEntitlement(request.apiKey, 'delta_feed');
        const query = request.query as RawQuery;
        const position = parseSince(query.since, '/v1/jobs/expired');
        const limit = parseLimit(query.limit, EXPIRED_MAX_LIMIT, EXPIRED_DEFAULT_LIMIT);
        const granted = await request.recordMeter.reserve(limit);
        const items = await readExpired(ctx.db, position, granted, { countryLock: request.apiKey!.key.country_lock ?? undefined });
        await request.recordMeter.settle(items.length);
        const last = items[items.length - 1];
        return {
          count: items.length,
          data: items.map((i) => ({ id: i.id, closed_at: i.closedAt, closed_reason: i.closedReason })),
          next_since: last ? formatFeedCursor(last.closedAt, last.id) : query.since!.trim(),
        };
      },
    );

    r.get(
      '/jobs/closed',
      {
        schema: {
          operationId: 'listClosedJobs',
          tags: ['sync'],
          summary: 'Closed rows, most recently closed first, keyset-paged (every key)',
          security: [{ bearerAuth: [] }],
          querystring: closedQuery,
          response: { 200: JobPageSchema, ...errorResponses(401, 402, 422, 429, 500, 503) },
        },
      },
      async (request): Promise<JobPage> => {
        const query = request.query as RawQuery;
        const plan = request.apiKey!.plan;
        const listing = parseListingQuery(query, {
          providers: await ctx.providerIds(),
          maxLimit: plan.max_page_size,
          keyless: false,
          countryLock: request.apiKey!.key.country_lock ?? undefined,
        });
        const closed = parseClosedQuery(query);
        const fingerprint = queryFingerprint({ endpoint: '/v1/jobs/closed', filter: listing.filter, closed });
        let after;
        if (listing.cursor) {
          try {
            after = decodeCursor(ctx.cursorSecret, fingerprint, listing.cursor);
          } catch (error) {
            if (error instanceof CursorError) throw new ApiError('bad_cursor', `The cursor is not valid here: ${error.message}.`);
            throw error;
          }
        }
        const granted = await request.recordMeter.reserve(listing.limit);
        const page = await listClosedJobs(ctx.db, listing.filter, closed, { limit: granted, after, includeDescription: listing.includeDescription });
        await request.recordMeter.settle(page.rows.length);
        return {
          data: page.rows.map((row) => toJob(row, { includeDescription: listing.includeDescription })),
          has_more: page.hasMore,
          next_cursor: page.next ? encodeCursor(ctx.cursorSecret, fingerprint, page.next) : null,
        };
      },
    );
  };
}
