/**
 * GET /v1/export: the corpus as NDJSON, one Job per line in `id` order (spec: GET /v1/export).
 * Needs the `bulk_export` entitlement. The body and its final control line are described in
 * `src/domain/export.ts` and docs/export.md.
 */
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { requireEntitlement } from '../../access/entitlements.ts';
import { ErrorSchema } from '../../domain/job.ts';
import { ExportLineSchema, NDJSON_CONTENT_TYPE, parseExportAfter, parseExportStatus } from '../../domain/export.ts';
import { parseListingQuery, type RawQuery } from '../../domain/listing-filter.ts';
import type { AppContext } from '../context.ts';
import { createExportStream, EXPORT_BATCH_SIZE } from '../export-stream.ts';
import { errorResponses, listingFilterParams } from '../schemas.ts';

const param = (description: string) => Type.Optional(Type.String({ description }));

const exportQuery = Type.Object(
  {
    ...listingFilterParams,
    include_description: param('true adds `description` (sanitized HTML) to every line that has one. No page-size limit applies.'),
    status: param('live (default), closed or any. Unknown: 422 bad_status.'),
    after: param('Resume after this id: the id of the last row already received (or the after of a final error line). Not a uuid: 422 bad_cursor.'),
  },
  { additionalProperties: true },
);

export function exportRoutes(ctx: AppContext) {
  return async (app: FastifyInstance) => {
    // No type provider here: the 200 body is a byte stream, not the line schema the contract shows.
    app.get(
      '/export',
      {
        schema: {
          operationId: 'exportJobs',
          tags: ['export'],
          summary: 'Stream the corpus as NDJSON in id order (needs bulk_export)',
          description:
            'Body: application/x-ndjson, one Job per line in ascending id order, then one final control line: {"complete":true,"count":N,"after":"<last id>"} on a complete export, or {"error":"record_quota_exhausted","message":...,"docs":...,"count":N,"after":"<last id>"} when the record allowance ran out mid-stream (the status stays 200). A body without a control line was cut: resume with after=<last id received>. One record per Job line.',
          security: [{ bearerAuth: [] }],
          querystring: exportQuery,
          response: {
            200: {
              description: 'NDJSON: each line is one JSON value matching this schema.',
              content: { 'application/x-ndjson': { schema: ExportLineSchema } },
            },
            403: Type.Object(ErrorSchema.properties, {
              description: 'upgrade_required: the plan lacks bulk_export.',
              headers: { 'X-SVC-Required-Feature': { type: 'string', description: 'The missing entitlement: bulk_export.' } },
            }),
            ...errorResponses(401, 402, 422, 429, 500, 503),
          },
        },
      },
      async (request, reply) => {
        requireEntitlement(request.apiKey, 'bulk_export');
        const query = request.query as RawQuery;
        const status = parseExportStatus(query.status);
        const after = parseExportAfter(query.after);
        // The export has no page size: limit and cursor are not export parameters and are ignored.
        const listing = parseListingQuery({ ...query, limit: undefined, cursor: undefined }, {
          providers: await ctx.providerIds(),
          maxLimit: Number.MAX_SAFE_INTEGER,
          keyless: false,
          // A country-locked key exports its country only (spec: Authentication item 9).
          countryLock: request.apiKey!.key.country_lock ?? undefined,
        });
        // The first batch is reserved before the 200 starts, so a spent allowance is a plain 402.
        const firstGrant = await request.recordMeter.reserve(EXPORT_BATCH_SIZE);
        const stream = createExportStream({
          db: ctx.db,
          filter: listing.filter,
          status,
          includeDescription: listing.includeDescription,
          after,
          meter: request.recordMeter,
          firstGrant,
          docsUrl: ctx.docsUrl,
          onError: (error) => request.log.error({ err: error }, 'export stream failed'),
        });
        return reply.header('Cache-Control', 'no-store').header('X-Content-Type-Options', 'nosniff').type(NDJSON_CONTENT_TYPE).send(stream);
      },
    );
  };
}
