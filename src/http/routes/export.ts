/**
 * GET /v1/export: the corpus as NDJSON, one Job per line in `id` order (spec: GET /v1/export).
 * Needs the `bulk_export` entitlement. The body and its final control line are described in
 * `src/domain/export.ts` and docs/export.md.
 */
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { NDJSON_CONTENT_TYPE, ExportLineSchema } from '../../domain/export.ts';
import type { AppContext } from '../context.ts';
import { EXPORT_BATCH_SIZE, openExportStream } from '../export-stream.ts';
import { createRoute, serveRoute } from '../route.ts';
import { ErrorSchema, errorResponses } from '../schemas/errors.ts';
import { exportQuery } from '../schemas/export.ts';

export function exportRoutes(ctx: AppContext) {
  const route = createRoute({
    url: '/export',
    operationId: 'exportJobs',
    tags: ['export'],
    summary: 'Stream the corpus as NDJSON in id order (needs bulk_export)',
    description:
      'Body: application/x-ndjson, one Job per line in ascending id order, then one final control line: {"complete":true,"count":N,"after":"<last id>"} on a complete export, or {"error":"record_quota_exhausted","message":...,"docs":...,"count":N,"after":"<last id>"} when the record allowance ran out mid-stream (the status stays 200). A body without a control line was cut: resume with after=<last id received>. One record per Job line.',
    security: [{ bearerAuth: [] }],
    entitlement: 'bulk_export',
    query: exportQuery,
    context: async (request) => ({
      surface: 'keyed' as const,
      providers: await ctx.providerIds(),
      // A country-locked key exports its country only (spec: Authentication item 9).
      countryLock: request.apiKey!.key.country_lock ?? undefined,
    }),
    response: {
      200: {
        description: 'NDJSON: each line is one JSON value matching this schema.',
        content: { 'application/x-ndjson': { schema: ExportLineSchema } },
      },
      403: Type.Object(ErrorSchema.properties, {
        $id: 'Error',
        description: 'upgrade_required: the plan lacks bulk_export.',
        headers: { 'X-SVC-Required-Feature': { type: 'string', description: 'The missing entitlement: bulk_export.' } },
      }),
      ...errorResponses(400, 401, 402, 422, 429, 500, 503),
    },
  });

  return async (app: FastifyInstance) => {
    // The 200 body is a byte stream, not the line schema the contract shows.
    serveRoute(app, route, async ({ request, reply, query }) => {
      // The first batch is reserved before the 200 starts, so a spent allowance is a plain 402.
      const firstGrant = await request.recordMeter.reserve(EXPORT_BATCH_SIZE);
      const stream = await openExportStream({
        db: ctx.db,
        filter: query.filter,
        status: query.status,
        includeDescription: query.includeDescription,
        after: query.after,
        meter: request.recordMeter,
        firstGrant,
        docsUrl: ctx.docsUrl,
        onError: (error) => request.log.error({ err: error }, 'export stream failed'),
      });
      return reply.header('Cache-Control', 'no-store').header('X-Content-Type-Options', 'nosniff').type(NDJSON_CONTENT_TYPE).send(stream);
    });
  };
}
