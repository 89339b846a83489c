/**
 * Named components of the OpenAPI document (issue 19): the error body and the page envelopes are
 * documented once, under `components.schemas`, and every response that serves one refers to it by
 * `$ref`, instead of a copy inlined on every operation.
 *
 * Only the document changes: routes keep their TypeBox schemas as Fastify's response schemas, so the
 * serializer, and so every byte served, is what it was. @fastify/swagger inlines a route's top-level
 * response schema even when it has an `$id` (it names only nested ones, through `refResolver`), so
 * {@link referenceNamedResponses}, its per-route `transform`, swaps a named schema for a `$ref` to the
 * component of that name, which {@link NAMED_SCHEMAS} lists in `components.schemas`.
 */
import { STATUS_CODES } from 'node:http';
import type { FastifySchema } from 'fastify';
import type { TSchema } from 'typebox';
import { ERROR_STATUS, type ErrorCode } from '../domain/errors.ts';
import { CompanyEnvelopeSchema, CompanyPageSchema } from '../domain/company.ts';
import { JobEnvelopeSchema, JobPageSchema } from '../domain/job.ts';
import { ChangesPageSchema, ExpiredPageSchema } from './routes/sync.ts';
import { ErrorSchema } from './schemas/errors.ts';

/**
 * The named response schemas, by component name (each schema's `$id` is its name). A route may serve
 * its own copy of one (same `$id`, its properties, a description or `headers` of its own): it is
 * documented by the same `$ref`.
 */
export const NAMED_SCHEMAS: Readonly<Record<string, TSchema>> = Object.fromEntries(
  [ErrorSchema, JobPageSchema, JobEnvelopeSchema, CompanyPageSchema, CompanyEnvelopeSchema, ChangesPageSchema, ExpiredPageSchema].map((s) => [(s as { $id?: string }).$id!, s]),
);

/**
 * An error response's description: the status's reason phrase and the catalogue's codes with that
 * status (src/domain/errors.ts; docs/errors.md says when each is given).
 */
function errorResponseDescription(status: string): string {
  const codes = (Object.keys(ERROR_STATUS) as ErrorCode[]).filter((code) => String(ERROR_STATUS[code]) === status);
  return `${STATUS_CODES[status] ?? 'Error'}: the error body, with a code of this status (${codes.map((c) => `\`${c}\``).join(', ')}).`;
}


/**
 * @fastify/swagger's `transform`: the route's response schemas that are named components become
 * `$ref`s to them (the `description` beside the `$ref` is the response's description; the plugin
 * keeps it off the schema). Other schemas are left to the plugin.
 */
export function referenceNamedResponses({ schema, url }: { schema: FastifySchema; url: string }): { schema: FastifySchema; url: string } {
  if (!schema?.response) return { schema, url };
  const response = Object.fromEntries(
    Object.entries(schema.response as Record<string, unknown>).map(([status, s]) => {
      const { $id: id, description: own, headers } = s as { $id?: unknown; description?: string; headers?: unknown };
      if (typeof id !== 'string' || !NAMED_SCHEMAS[id]) return [status, s];
      // A route's own copy of a named schema (the export's 403, which adds a header) keeps its own description.
      const named = NAMED_SCHEMAS[id] === s;
      const description = named && id === 'Error' ? errorResponseDescription(status) : own;
      return [status, { $ref: `#/components/schemas/${id}`, ...(description ? { description } : {}), ...(headers ? { headers } : {}) }];
    }),
  );
  return { schema: { ...schema, response }, url };
}

/**
 * `components.schemas` for @fastify/swagger: fresh deep copies of {@link NAMED_SCHEMAS} per call,
 * because the plugin's resolver rewrites nested named schemas into `$ref`s in place: the originals are
 * the routes' serialization schemas (an app built after a rewritten original would fail to compile
 * them), and a second rendering (the YAML) of rewritten copies would lose the nested components.
 */
export function namedSchemaComponents(): Record<string, TSchema> {
  return structuredClone({ ...NAMED_SCHEMAS });
}
