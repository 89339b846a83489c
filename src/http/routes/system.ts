/**
 * Liveness, readiness, service status, the machine contract and the integration brief (spec: GET
 * /health; GET /v1/openapi.json and /public/openapi.json, "keyless to read", rendered live from the
 * route schemas; GET /public/status; GET /public/ai-prompt).
 */
import type { FastifyInstance, FastifyReply } from 'fastify';
import { Type } from 'typebox';
import { ApiError, FIXED_MESSAGES } from '../../domain/errors.ts';
import { REPORT_NAMES } from '../../reports/snapshots.ts';
import { ingestionHealth } from '../../store/crawl-targets.ts';
import { ping } from '../../store/database.ts';
import { reportSnapshotTimes } from '../../store/report-snapshots.ts';
import type { AppContext } from '../context.ts';
import { TIMEOUT_RETRY_AFTER_SECONDS } from '../errors.ts';
import { errorResponses } from '../schemas/errors.ts';
import { integrationBrief } from '../integration-brief.ts';

/** A crawl target failing this many times in a row makes the service status `degraded`. */
export const FAILING_TARGET_THRESHOLD = 3;

function unavailable(): ApiError {
  return new ApiError('unavailable', FIXED_MESSAGES.unavailable, { headers: { 'Retry-After': String(TIMEOUT_RETRY_AFTER_SECONDS) } });
}

const StatusSchema = Type.Object({
  data: Type.Object({
    status: Type.String({ description: 'ok, or degraded when a report snapshot is stale or a crawl target keeps failing.' }),
    time: Type.String({ format: 'date-time' }),
    version: Type.String({ description: 'The contract date (info.version of the OpenAPI document).' }),
    database: Type.Literal('ok'),
    reports: Type.Array(
      Type.Object({
        name: Type.String(),
        measured_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
        age_seconds: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()]),
        stale: Type.Boolean({ description: 'True when older than twice the refresh interval, or never measured.' }),
      }),
    ),
    ingestion: Type.Object({
      targets: Type.Integer({ minimum: 0, description: 'Enabled crawl targets.' }),
      failing: Type.Integer({ minimum: 0, description: `Enabled targets whose last ${FAILING_TARGET_THRESHOLD} or more crawls failed.` }),
      last_success_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description: 'Most recent successful crawl of any target.' }),
    }),
  }),
});

export function systemRoutes(ctx: AppContext, contractVersion: string) {
  return async (app: FastifyInstance) => {
    app.get(
      '/health',
      {
        schema: {
          operationId: 'health',
          tags: ['system'],
          summary: 'Liveness: the process answers (does not touch the database)',
          description: 'Answers 200 while the process serves HTTP, whatever the database does: for a liveness probe. Not limited, not cached.',
          security: [],
          // 400: the one refusal every route shares (an HTTP/1.1 request without Host).
          response: { 200: Type.Object({ status: Type.Literal('ok') }), ...errorResponses(400) },
        },
      },
      async (_request, reply) => {
        reply.header('Cache-Control', 'no-store');
        return { status: 'ok' as const };
      },
    );

    app.get(
      '/health/ready',
      {
        schema: {
          operationId: 'ready',
          tags: ['system'],
          summary: 'Readiness: the database (and its read replica, if one is set) answers; 503 unavailable when it does not',
          description: 'Answers 200 once the database (and the read replica, when one is configured) answers a query in every pool the API reads through, 503 unavailable when one does not: for a readiness probe or a load balancer.',
          security: [],
          response: { 200: Type.Object({ status: Type.Literal('ready') }), ...errorResponses(400, 503) },
        },
      },
      async (_request, reply) => {
        reply.header('Cache-Control', 'no-store');
        try {
          await ping(ctx.db);
          // With a read replica, listings are read there: not ready while it does not answer.
          if (ctx.reader !== ctx.db) await ping(ctx.reader);
          // Cursor pages and single jobs are read in the generic-plan sessions: a pooler or server
          // that refuses their startup settings would fail those requests only.
          if (ctx.genericReader !== ctx.reader) await ping(ctx.genericReader);
        } catch {
          throw unavailable();
        }
        return { status: 'ready' as const };
      },
    );

    app.get(
      '/public/status',
      {
        schema: {
          operationId: 'getStatus',
          tags: ['public'],
          summary: 'Service status: database, report snapshots, ingestion',
          description: 'Whether the database answers, how old the report snapshots are and how ingestion is doing (the last crawls), for a status page. Keyless and never cached.',
          security: [],
          response: { 200: StatusSchema, ...errorResponses(429, 500, 503) },
        },
      },
      async (_request, reply) => {
        reply.header('Cache-Control', 'no-store');
        const now = new Date();
        let snapshots;
        let targets;
        try {
          snapshots = await reportSnapshotTimes(ctx.db);
          targets = await ingestionHealth(ctx.db, FAILING_TARGET_THRESHOLD);
        } catch {
          throw unavailable();
        }
        const window = 2 * ctx.reports.settings.refreshSeconds;
        const reports = REPORT_NAMES.map((name) => {
          const snap = snapshots.find((s) => s.name === name);
          const age = snap ? Math.max(0, Math.floor((now.getTime() - snap.measured_at.getTime()) / 1000)) : null;
          return { name, measured_at: snap ? snap.measured_at.toISOString() : null, age_seconds: age, stale: age === null || age > window };
        });
        return {
          data: {
            status: reports.some((r) => r.stale) || targets.failing > 0 ? 'degraded' : 'ok',
            time: now.toISOString(),
            version: contractVersion,
            database: 'ok' as const,
            reports,
            ingestion: { targets: targets.targets, failing: targets.failing, last_success_at: targets.lastSuccessAt?.toISOString() ?? null },
          },
        };
      },
    );

    app.get(
      '/public/ai-prompt',
      {
        schema: {
          operationId: 'getAiPrompt',
          tags: ['public'],
          summary: 'Plain-text integration brief generated from the live contract and counts',
          description: 'A plain-text brief for an AI assistant or a developer integrating the API: every operation with its method, the filters and their legal values, the limits, written from this live contract and the current counts.',
          security: [],
          response: {
            200: { description: 'A plain-text brief for a developer or an AI assistant.', content: { 'text/plain': { schema: Type.String() } } },
            ...errorResponses(429, 500, 503),
          },
        },
      },
      async (_request, reply) => {
        const coverage = await ctx.reports.read('coverage');
        reply.type('text/plain; charset=utf-8');
        return integrationBrief(app.swagger() as unknown as Parameters<typeof integrationBrief>[0], coverage.data, coverage.measuredAt);
      },
    );

    // The document in its two formats: the same route on each surface, with its own media type and rendering.
    const formats = [
      {
        extension: 'json',
        operation: 'OpenApiJson',
        summary: 'This OpenAPI 3.1 document as JSON (keyless)',
        description: 'The machine contract of this API (OpenAPI 3.1, info.version a date), as JSON. Keyless on both surfaces, cached for an hour, with an ETag.',
        mediaType: 'application/json',
        schema: Type.Object({}, { additionalProperties: true }),
        render: () => JSON.stringify(app.swagger()),
      },
      {
        extension: 'yaml',
        operation: 'OpenApiYaml',
        summary: 'This OpenAPI 3.1 document as YAML (keyless)',
        description: 'The same document as YAML. Keyless on both surfaces, cached for an hour, with an ETag.',
        mediaType: 'application/yaml',
        schema: Type.String(),
        render: () => app.swagger({ yaml: true }),
      },
    ];
    for (const prefix of ['/v1', '/public']) {
      // The /public copies are cached per the keyless table (plugins/keyless-access.ts).
      const cache = (reply: FastifyReply) => (prefix === '/v1' ? reply.header('Cache-Control', 'no-cache') : reply);
      const surface = prefix === '/public' ? 'Public' : '';
      // A request without Host (400) anywhere; the keyless limit (429) on the /public copies.
      const refusals = prefix === '/public' ? [400, 429] : [400];
      for (const format of formats) {
        app.get(
          `${prefix}/openapi.${format.extension}`,
          {
            schema: {
              operationId: `get${surface}${format.operation}`,
              tags: ['system'],
              summary: format.summary,
              description: format.description,
              security: [],
              response: { 200: { description: 'The OpenAPI 3.1 document.', content: { [format.mediaType]: { schema: format.schema } } }, ...errorResponses(...refusals) },
            },
          },
          async (_request, reply) => {
            cache(reply).type(`${format.mediaType}; charset=utf-8`);
            return format.render();
          },
        );
      }
    }
  };
}
