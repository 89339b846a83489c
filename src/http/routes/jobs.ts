/**
 * Job listings and single rows on both surfaces (spec: GET /v1/jobs, GET /v1/jobs/{id},
 * GET /public/jobs, GET /public/jobs/{id}).
 */
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { CursorError, decodeCursor, encodeCursor, queryFingerprint, type CursorPosition } from '../../domain/cursor.ts';
import { ApiError } from '../../domain/errors.ts';
import { JobEnvelopeSchema, JobPageSchema, type JobPage } from '../../domain/job.ts';
import { parseBoolean, parseJobsQuery, quoteValue, type JobFilter, type JobsRequest, type RawQuery } from '../../domain/listing-filter.ts';
import { findJob, listJobs, type ListPage } from '../../store/job-queries.ts';
import { toJob } from '../presenters/job.ts';
import type { AppContext } from '../context.ts';
import { JobIdParams, errorResponses, keyedListingQuery, keylessListingQuery } from '../schemas.ts';

/** Keyless page-size cap (spec: Keyless endpoints, "max 50 rows"). Cache lifetimes: plugins/keyless-access.ts. */
export const KEYLESS_MAX_LIMIT = 50;

function decodeOr422(secret: string, fingerprint: string, cursor: string, endpoint: string): CursorPosition {
  try {
    return decodeCursor(secret, fingerprint, cursor);
  } catch (error) {
    if (error instanceof CursorError) {
      throw new ApiError(
        'bad_cursor',
        `The cursor ${quoteValue(cursor)} is not valid here: ${error.message}. Pass back the next_cursor of the previous ${endpoint} page verbatim, with the same filters.`,
      );
    }
    throw error;
  }
}

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
async function pageBody(ctx: AppContext, listing: JobsRequest, page: ListPage, nextCursor: string | null): Promise<JobPage> {
  const body: JobPage = {
    data: page.rows.map((row) => toJob(row, { includeDescription: listing.includeDescription, includeQuality: listing.scope.qualityAll })),
    has_more: nextCursor !== null,
    next_cursor: nextCursor,
  };
  const completeness = await completenessOf(ctx, listing.filter);
  if (completeness) body.completeness = completeness;
  return body;
}

function notFound(id: string): ApiError {
  return new ApiError('not_found', `No served job has the id or slug "${id}".`);
}

/** `/v1/jobs` and `/v1/jobs/{id}`; register inside the authenticated scope. */
export function keyedJobRoutes(ctx: AppContext) {
  return async (app: FastifyInstance) => {
    const r = app.withTypeProvider<TypeBoxTypeProvider>();

    r.get(
      '/jobs',
      {
        schema: {
          operationId: 'listJobs',
          tags: ['jobs'],
          summary: 'Live listings, newest first, keyset-paged',
          security: [{ bearerAuth: [] }],
          querystring: keyedListingQuery,
          response: { 200: JobPageSchema, ...errorResponses(400, 401, 402, 422, 429, 500, 503) },
        },
      },
      async (request): Promise<JobPage> => {
        const plan = request.apiKey!.plan;
        const listing = parseJobsQuery(request.query as RawQuery, {
          providers: await ctx.providerIds(),
          maxLimit: plan.max_page_size,
          keyless: false,
          countryLock: request.apiKey!.key.country_lock ?? undefined,
        });
        // The scope is part of the query: a cursor from status=live is no cursor for status=any.
        const fingerprint = queryFingerprint({ endpoint: '/v1/jobs', filter: listing.filter, scope: listing.scope });
        const after = listing.cursor ? decodeOr422(ctx.cursorSecret, fingerprint, listing.cursor, '/v1/jobs') : undefined;
        // A page is never served beyond the record allowance: it is cut to what the meter grants, and
        // next_cursor still points at the first row not served.
        const granted = await request.recordMeter.reserve(listing.limit);
        const page = await listJobs(ctx.db, listing.filter, listing.scope, { limit: granted, after, includeDescription: listing.includeDescription });
        await request.recordMeter.settle(page.rows.length);
        return pageBody(ctx, listing, page, page.next ? encodeCursor(ctx.cursorSecret, fingerprint, page.next) : null);
      },
    );

    r.get(
      '/jobs/:id',
      {
        schema: {
          operationId: 'getJob',
          tags: ['jobs'],
          summary: 'One listing by uuid or slug, description included',
          security: [{ bearerAuth: [] }],
          params: JobIdParams,
          querystring: Type.Object(
            { include_closed: Type.Optional(Type.String({ description: 'true returns a closed row too (status closed, closed_at and closed_reason set).' })) },
            { additionalProperties: true },
          ),
          response: { 200: JobEnvelopeSchema, ...errorResponses(401, 402, 404, 422, 429, 500, 503) },
        },
      },
      async (request) => {
        const query = request.query as RawQuery;
        const includeClosed = parseBoolean('include_closed', query.include_closed, false);
        await request.recordMeter.reserve(1);
        const found = await findJob(ctx.db, request.params.id, { includeClosed });
        // A country-locked key sees only its country (spec: Authentication item 9).
        const lock = request.apiKey!.key.country_lock;
        const row = found && (!lock || found.country === lock) ? found : undefined;
        await request.recordMeter.settle(row ? 1 : 0);
        if (!row) throw notFound(request.params.id);
        return { data: toJob(row, { includeDescription: true }) };
      },
    );
  };
}

/** `/public/jobs` and `/public/jobs/{id}`: same rows and provenance, no paging, CORS open, cached. */
export function keylessJobRoutes(ctx: AppContext) {
  return async (app: FastifyInstance) => {
    const r = app.withTypeProvider<TypeBoxTypeProvider>();

    r.get(
      '/jobs',
      {
        schema: {
          operationId: 'listPublicJobs',
          tags: ['public'],
          summary: 'Keyless listings: at most 50 rows, no paging',
          security: [],
          querystring: keylessListingQuery,
          response: { 200: JobPageSchema, ...errorResponses(400, 402, 403, 422, 429, 500, 503) },
        },
      },
      async (request): Promise<JobPage> => {
        const query = request.query as RawQuery;
        if (query.cursor !== undefined && query.cursor !== '') {
          throw new ApiError('key_required_to_page', 'Paging needs an API key: send the cursor to /v1/jobs with "Authorization: Bearer <API_KEY>".');
        }
        const listing = parseJobsQuery(query, { providers: await ctx.providerIds(), maxLimit: KEYLESS_MAX_LIMIT, keyless: true });
        const page = await listJobs(ctx.db, listing.filter, listing.scope, { limit: listing.limit, includeDescription: listing.includeDescription });
        // The keyless surface does not page: has_more is false and next_cursor null by definition.
        return pageBody(ctx, listing, page, null);
      },
    );

    r.get(
      '/jobs/:id',
      {
        schema: {
          operationId: 'getPublicJob',
          tags: ['public'],
          summary: 'One live listing by uuid or slug, description included',
          security: [],
          params: JobIdParams,
          response: { 200: JobEnvelopeSchema, ...errorResponses(404, 429, 500, 503) },
        },
      },
      async (request) => {
        const row = await findJob(ctx.db, request.params.id, { includeClosed: false });
        if (!row) throw notFound(request.params.id);
        return { data: toJob(row, { includeDescription: true }) };
      },
    );
  };
}
