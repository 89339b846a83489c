/**
 * The sync surfaces of the keyed API (spec: GET /v1/changes, GET /v1/jobs/expired, GET /v1/jobs/closed;
 * Events; Recipes › Stay in sync). The feeds page by `since`/`next_since` (`<timestamp>|<uuid>`), the
 * closed listing by an opaque keyset cursor. See docs/sync.md.
 */
import type { FastifyInstance } from 'fastify';
import { Type, type TSchema } from 'typebox';
import { JobPageSchema, JobSchema, StringEnum, type JobPage } from '../../domain/job.ts';
import type { FeedPosition } from '../../domain/feed-cursor.ts';
import { CHANGE_KINDS, CLOSED_REASONS } from '../../domain/vocabulary.ts';
import { ApiError } from '../../domain/errors.ts';
import { listClosedJobs, readChanges, readExpired } from '../../store/feeds.ts';
import { sinceExpired } from '../../store/retention.ts';
import { listingContextOf, type AppContext } from '../context.ts';
import { feedCursor, keysetCursor, servePage } from '../paging.ts';
import { toJob } from '../presenters/job.ts';
import { createRoute, keyedPage, serveRoute } from '../route.ts';
import { errorResponses } from '../schemas/errors.ts';
import { listPieces, utf8Bytes } from '../utf8-body.ts';
import { changesQuery, closedJobsQuery, expiredQuery } from '../schemas/sync.ts';

export const ChangeItemSchema = Type.Object(
  {
    change: StringEnum(CHANGE_KINDS, { description: 'created and updated: upsert `job`. delisted and withdrawn: stop serving the job.' }),
    id: Type.String({ format: 'uuid', description: 'The job id.' }),
    changed_at: Type.String({ format: 'date-time', description: 'When the change was committed (feed stamp, whole milliseconds, UTC).' }),
    job: Type.Optional(JobSchema),
  },
  { description: "One change. A job's earlier changes after your cursor are folded into its latest one." },
);

export const ChangesPageSchema = Type.Object(
  {
    count: Type.Integer({ description: 'Items in data.' }),
    data: Type.Array(ChangeItemSchema),
    next_since: Type.String({ description: '<timestamp>|<uuid>; pass back verbatim. An empty page echoes the since it was given.' }),
  },
  { $id: 'ChangesPage', description: 'A page of the change feed, oldest change first; next_since continues it.' },
);

export const ExpiredItemSchema = Type.Object({
  id: Type.String({ format: 'uuid' }),
  closed_at: Type.String({ format: 'date-time', description: 'When the ledger closed the row (feed stamp, whole milliseconds, UTC).' }),
  closed_reason: StringEnum(CLOSED_REASONS),
});

export const ExpiredPageSchema = Type.Object(
  {
    count: Type.Integer({ description: 'Items in data.' }),
    data: Type.Array(ExpiredItemSchema),
    next_since: Type.String({ description: '<timestamp>|<uuid>; pass back verbatim. An empty page echoes the since it was given.' }),
  },
  { $id: 'ExpiredPage', description: 'A page of the closure feed, oldest closure first; next_since continues it.' },
);

/**
 * A feed route (needs `delta_feed`): `since` → reserve → read → settle → `next_since`, and an empty page
 * echoes the `since` it was given (spec: GET /v1/changes, GET /v1/jobs/expired).
 */
function feedRoute<Item>(o: {
  url: string;
  operationId: string;
  summary: string;
  description: string;
  query: typeof changesQuery;
  page: TSchema;
  /** At most `granted` items after `after`; `countryLock` restricts them to one country's rows. */
  read: (after: FeedPosition, granted: number, countryLock: string | undefined) => Promise<Item[]>;
  positionOf: (item: Item) => FeedPosition;
  /**
   * An item as the page's object, serialized by the route's schema; or, as `json`, as JSON text in
   * the schema's key order, in pieces that are written one after another, and the page is then
   * assembled as bytes (the change feed, whose rows PostgreSQL writes as JSON; issue 22). A row's
   * JSON from PostgreSQL stays a piece of its own, so it is never copied into a larger string.
   */
  present: { object: (item: Item) => unknown } | { json: (item: Item) => readonly string[] };
  records?: (items: Item[]) => number;
  /**
   * Whether reading after this position may have missed deleted items (retention); checked after the
   * page was read, so a deletion that committed before the read is always seen.
   */
  expired?: (after: FeedPosition) => Promise<boolean>;
}) {
  const route = createRoute({
    url: o.url,
    operationId: o.operationId,
    tags: ['sync'],
    summary: o.summary,
    description: o.description,
    security: [{ bearerAuth: [] }],
    entitlement: 'delta_feed',
    query: o.query,
    response: { 200: o.page, ...errorResponses(400, 401, 402, 403, ...(o.expired ? [410] : []), 422, 429, 500, 503) },
  });
  return (app: FastifyInstance) =>
    serveRoute(app, route, async ({ request, reply, query }) => {
      // A country-locked key reads its country's feed (spec: Authentication item 9; docs/sync.md).
      const countryLock = request.apiKey!.key.country_lock ?? undefined;
      const page = await servePage({
        meter: request.recordMeter,
        cursor: feedCursor(`/v1${o.url}`),
        sent: query.since,
        limit: query.limit,
        read: async (after, granted) => {
          const items = await o.read(after!, granted, countryLock);
          if (o.expired && (await o.expired(after!))) {
            throw new ApiError(
              'since_expired',
              'The since value is older than the oldest change event this feed keeps, so changes after it may be missing. Re-snapshot with /v1/export, then resume from its watermark (the since of its final line).',
            );
          }
          const last = items[items.length - 1];
          return { rows: items, next: last ? o.positionOf(last) : undefined };
        },
        records: o.records,
      });
      const nextSince = page.nextCursor ?? query.since!.trim();
      if ('object' in o.present) return { count: page.rows.length, data: page.rows.map(o.present.object), next_since: nextSince };
      // The keys in the order the page schema's serializer writes them: count, data, next_since.
      reply.type('application/json; charset=utf-8');
      return utf8Bytes(listPieces(`{"count":${page.rows.length},"data":[`, page.rows, o.present.json, `],"next_since":${JSON.stringify(nextSince)}}`));
    });
}

/** `/v1/changes`, `/v1/jobs/expired`, `/v1/jobs/closed`; register inside the authenticated scope. */
export function syncRoutes(ctx: AppContext) {
  const changes = feedRoute({
    url: '/changes',
    operationId: 'listChanges',
    summary: 'Delta feed: every change after a cursor, in commit order (needs delta_feed)',
    description:
      'Every change to a served row after since (a timestamp on the first call, then next_since verbatim), oldest first: created and updated carry the row (upsert it), delisted and withdrawn only its id (stop serving it). Poll it to stay in sync; never re-read /v1/jobs. Each item carrying a row costs one record. A since older than the feed keeps answers 410 since_expired.',
    query: changesQuery,
    page: ChangesPageSchema,
    read: (after, granted, countryLock) => readChanges(ctx.db, after, granted, { countryLock }),
    positionOf: (item) => ({ at: item.changedAt, id: item.jobId }),
    // ChangeItemSchema's order: the required change, id and changed_at, then the optional job.
    present: {
      json: (i) => {
        const head = `{"change":${JSON.stringify(i.change)},"id":${JSON.stringify(i.jobId)},"changed_at":${JSON.stringify(i.changedAt)}`;
        return i.jobJson === undefined ? [head, '}'] : [head, ',"job":', i.jobJson, '}'];
      },
    },
    // One record per job row returned (spec: Metering rules); id-only items cost nothing.
    records: (items) => items.filter((i) => i.jobJson !== undefined).length,
    // Retention deletes old change events (src/store/retention.ts); a since before them answers 410.
    expired: (after) => sinceExpired(ctx.db, after),
  });
  const expired = feedRoute({
    url: '/jobs/expired',
    operationId: 'listExpiredJobs',
    summary: 'Compact closure feed: closed rows after a cursor, oldest closure first (needs delta_feed)',
    description: 'The id, closed_at and closed_reason of every row closed after since (a timestamp, then next_since verbatim), oldest closure first. Costs no records.',
    query: expiredQuery,
    page: ExpiredPageSchema,
    read: (after, granted, countryLock) => readExpired(ctx.db, after, granted, { countryLock }),
    positionOf: (item) => ({ at: item.closedAt, id: item.id }),
    present: { object: (i) => ({ id: i.id, closed_at: i.closedAt, closed_reason: i.closedReason }) },
  });
  const closed = createRoute({
    url: '/jobs/closed',
    operationId: 'listClosedJobs',
    tags: ['sync'],
    summary: 'Closed rows, most recently closed first, keyset-paged (every key)',
    description:
      'Rows the ledger has closed, with the shared filters and closed_reason / closed_since, most recently closed first; page on with cursor=next_cursor. Each row costs one record. Every plan may call it.',
    query: closedJobsQuery,
    ...keyedPage(JobPageSchema, (request) => listingContextOf(ctx, request, 'keyed')),
  });

  return async (app: FastifyInstance) => {
    changes(app);
    expired(app);
    serveRoute(app, closed, async ({ request, query }): Promise<JobPage> => {
      const { listing } = query;
      const page = await servePage({
        meter: request.recordMeter,
        cursor: keysetCursor(ctx.cursorSecret, '/v1/jobs/closed', { filter: listing.filter, closed: query.closed }),
        sent: listing.cursor,
        limit: listing.limit,
        read: (after, granted) => listClosedJobs(ctx.db, listing.filter, query.closed, { limit: granted, after, includeDescription: listing.includeDescription }),
      });
      return {
        data: page.rows.map((row) => toJob(row, { includeDescription: listing.includeDescription })),
        has_more: page.nextCursor !== null,
        next_cursor: page.nextCursor,
      };
    });
  };
}
