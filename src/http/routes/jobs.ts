/**
 * Job listings and single rows on both surfaces (spec: GET /v1/jobs, GET /v1/jobs/{id},
 * GET /public/jobs, GET /public/jobs/{id}).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { ApiError, quoteValue } from '../../domain/errors.ts';
import { JobEnvelopeSchema, JobPageSchema, type JobPage } from '../../domain/job.ts';
import type { CursorPosition } from '../../domain/cursor.ts';
import type { JobFilter } from '../../domain/listing-filter.ts';
import { changeWatermark } from '../../store/feeds.ts';
import { findJob, listJobLines, listJobs, type ListPage } from '../../store/job-queries.ts';
import { listingContextOf, type AppContext } from '../context.ts';
import { keysetCursor, servePage, type CursorCodec } from '../paging.ts';
import { toJob, toJobEnvelope } from '../presenters/job.ts';
import { createRoute, keyedPage, serveRoute } from '../route.ts';
import { errorResponses } from '../schemas/errors.ts';
import { listPieces, utf8Bytes } from '../utf8-body.ts';
import { JobIdParams, jobQuery, keyedJobsQuery, keylessJobsQuery, type JobsRequest } from '../schemas/jobs.ts';

/**
 * The page-level `completeness` object (spec: Job page): for each field named in require_fields,
 * live rows across the whole ledger where it is published, from the facet snapshot.
 */
async function completenessOf(ctx: AppContext, filter: JobFilter): Promise<JobPage['completeness']> {
  if (!filter.requireFields) return undefined;
  const published = (await ctx.facets.get()).value.published;
  return Object.fromEntries(filter.requireFields.map((field) => [field, published[field]]));
}

/** The page body: rows in the served shape, paging fields, and `completeness` when asked for. */
async function pageBody(ctx: AppContext, listing: JobsRequest, rows: ListPage['rows'], nextCursor: string | null): Promise<JobPage> {
  const body: JobPage = {
    data: rows.map((row) => toJob(row, { includeDescription: listing.includeDescription, includeQuality: listing.scope.qualityAll })),
    has_more: nextCursor !== null,
    next_cursor: nextCursor,
  };
  const completeness = await completenessOf(ctx, listing.filter);
  if (completeness) body.completeness = completeness;
  return body;
}

/**
 * Whether a page can be answered from the rows' stored served Job JSON (migration 033): the lines hold
 * every field of a page without descriptions and without quality fields; `completeness` is left to
 * the serializer (its key order is the schema's).
 */
function servesStoredLines(listing: JobsRequest): boolean {
  return !listing.includeDescription && !listing.scope.qualityAll && !listing.filter.requireFields;
}

/**
 * The JSON text of a JobPage without `completeness` from served Job lines, in pieces (the lines among
 * them, as read): the bytes the response serializer (fast-json-stringify over JobPageSchema) writes
 * for the same page, whose `data` items are the lines (test/job-lines.test.ts holds a page both ways).
 */
function pageText(lines: readonly string[], nextCursor: string | null): string[] {
  return listPieces('{"data":[', lines, (line) => [line], `],"has_more":${nextCursor !== null},"next_cursor":${nextCursor === null ? 'null' : JSON.stringify(nextCursor)}}`);
}

/**
 * One page of `/v1/jobs` (with `cursor`) or `/public/jobs` (without: the first page only, `has_more`
 * false and `next_cursor` null by definition), metered: as JSON text in pieces ({@link pageText}) from
 * the rows' stored lines when the page needs nothing else ({@link servesStoredLines}; the reply's
 * content type is then set here), else as the presented JobPage for the serializer.
 */
async function listingPage(ctx: AppContext, request: FastifyRequest, reply: FastifyReply, listing: JobsRequest, cursor?: CursorCodec<CursorPosition>): Promise<JobPage | string[]> {
  const paging = { meter: request.recordMeter, cursor, sent: listing.cursor, limit: listing.limit };
  if (servesStoredLines(listing)) {
    const page = await servePage({ ...paging, read: (after, granted) => listJobLines(ctx.reader, listing.filter, listing.scope, { limit: granted, after }, ctx.genericReader) });
    reply.type('application/json; charset=utf-8');
    return pageText(page.rows, page.nextCursor);
  }
  const page = await servePage({
    ...paging,
    read: (after, granted) => listJobs(ctx.reader, listing.filter, listing.scope, { limit: granted, after, includeDescription: listing.includeDescription }, ctx.genericReader),
  });
  return pageBody(ctx, listing, page.rows, page.nextCursor);
}

function notFound(id: string): ApiError {
  return new ApiError('not_found', `No served job has the id or slug ${quoteValue(id)}.`);
}

/** `/v1/jobs` and `/v1/jobs/{id}`; register inside the authenticated scope. */
export function keyedJobRoutes(ctx: AppContext) {
  const list = createRoute({
    url: '/jobs',
    operationId: 'listJobs',
    tags: ['jobs'],
    summary: 'Live listings, newest first, keyset-paged',
    description:
      'Live employer-direct rows matching the shared filters, ordered by posted_at (newest first, nulls last), then id. Page on with cursor=next_cursor until it is null. Each row served costs one record of the monthly allowance; a page is cut to the records left (402 record_quota_exhausted when none are). status, quality and include_poster_type widen the scope (paid surface).',
    query: keyedJobsQuery,
    ...keyedPage(JobPageSchema, (request) => listingContextOf(ctx, request, 'keyed')),
  });
  const one = createRoute({
    url: '/jobs/:id',
    operationId: 'getJob',
    tags: ['jobs'],
    summary: 'One listing by uuid or slug, description included',
    description:
      'One row by its id or slug, with its sanitized HTML description (also repeated at the top level for the original clients). Costs one record when found. A closed row answers 404 unless include_closed=true; a country-locked key sees its country only.',
    security: [{ bearerAuth: [] }],
    params: JobIdParams,
    query: jobQuery,
    response: { 200: JobEnvelopeSchema, ...errorResponses(400, 401, 402, 404, 422, 429, 500, 503) },
  });

  return async (app: FastifyInstance) => {
    serveRoute(app, list, async ({ request, reply, query: listing }) => {
      // The scope is part of the query: a cursor from status=live is no cursor for status=any.
      const body = await listingPage(ctx, request, reply, listing, keysetCursor(ctx.cursorSecret, '/v1/jobs', { filter: listing.filter, scope: listing.scope }));
      return Array.isArray(body) ? utf8Bytes(body) : body;
    });

    serveRoute(app, one, async ({ request, query, params }) => {
      await request.recordMeter.reserve(1);
      const found = await findJob(ctx.genericReader, params.id, { includeClosed: query.includeClosed });
      // A country-locked key sees only its country (spec: Authentication item 9).
      const lock = request.apiKey!.key.country_lock;
      const row = found && (!lock || found.country === lock) ? found : undefined;
      await request.recordMeter.settle(row ? 1 : 0);
      if (!row) throw notFound(params.id);
      return toJobEnvelope(row);
    });
  };
}

/** `/public/jobs` and `/public/jobs/{id}`: same rows and provenance, no paging, CORS open, cached. */
export function keylessJobRoutes(ctx: AppContext) {
  const list = createRoute({
    url: '/jobs',
    operationId: 'listPublicJobs',
    tags: ['public'],
    summary: 'Keyless listings: at most 50 rows, no paging',
    description:
      'The first page of /v1/jobs without a key: the same rows, filters and provenance, at most 50 rows, never a next page (next_cursor is always null; a cursor is 402 key_required_to_page). Cached for 5 minutes, CORS open, limited per client address (RateLimit fields).',
    security: [],
    query: keylessJobsQuery,
    context: (request) => listingContextOf(ctx, request, 'keyless'),
    response: { 200: JobPageSchema, ...errorResponses(400, 402, 403, 422, 429, 500, 503) },
  });

  return async (app: FastifyInstance) => {
    serveRoute(app, list, async ({ request, reply, query: listing }): Promise<JobPage | Buffer | string> => {
      const cache = ctx.keylessPageCache;
      if (!cache) {
        const body = await listingPage(ctx, request, reply, listing);
        return Array.isArray(body) ? utf8Bytes(body) : body;
      }
      const answerText = async (): Promise<string> => {
        const body = await listingPage(ctx, request, reply, listing);
        return Array.isArray(body) ? body.join('') : (reply.serialize(body) as string);
      };
      // Keyed by the parsed request: equivalent spellings of a query share an entry.
      const key = JSON.stringify([listing.filter, listing.scope, listing.limit, listing.includeDescription]);
      const cached = await cache.serve(key, () => changeWatermark(ctx.reader), answerText, Date.now(), request.raw);
      reply.header('ETag', cached.etag).type('application/json; charset=utf-8');
      return cached.bytes;
    });

    app.withTypeProvider<TypeBoxTypeProvider>().get(
      '/jobs/:id',
      {
        schema: {
          operationId: 'getPublicJob',
          tags: ['public'],
          summary: 'One live listing by uuid or slug, description included',
          description: 'One live row by its id or slug, without a key, with its sanitized HTML description (also at the top level). A closed or unknown row answers 404. Cached for 10 minutes.',
          security: [],
          params: JobIdParams,
          response: { 200: JobEnvelopeSchema, ...errorResponses(400, 404, 429, 500, 503) },
        },
      },
      async (request) => {
        const row = await findJob(ctx.genericReader, request.params.id, { includeClosed: false });
        if (!row) throw notFound(request.params.id);
        return toJobEnvelope(row);
      },
    );
  };
}
