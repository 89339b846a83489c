/**
 * The bulk export's line shapes (spec: GET /v1/export; Errors, "Export
 * exception"). The body is NDJSON: one Job per line in `id` order, then exactly one final control line
 * that tells a complete export from an interrupted one:
 * - `{"complete": true, "count": N, "after": "<last id>"|null, "since": "<watermark>"}`: every matching row was written;
 * - `{"error": "record_quota_exhausted" | "query_failed" | "timeout" | "unavailable", "message", "docs",
 *   "count": N, "after": "<last id>"|null, "since": "<watermark>"}`: the export stopped early; resume with `after`.
 * `since` is the change feed's watermark taken before the first row was read (issue 20): /v1/changes
 * from it delivers every change the snapshot may have missed.
 * A body without a final control line was cut in transit; resume after the last Job's `id`.
 * Control lines never carry an `id`, Job lines always do.
 */
import { Type, type Static } from 'typebox';
import { JobSchema } from './job.ts';

/** Media type of the export body: newline-delimited JSON, UTF-8. */
export const NDJSON_CONTENT_TYPE = 'application/x-ndjson; charset=utf-8';

/** Which rows an export walks (spec: GET /v1/jobs `status`: live default, closed, any). */
export type ExportStatus = 'live' | 'closed' | 'any';
/** Every {@link ExportStatus}; the export's `status` parameter is parsed by `src/http/schemas/export.ts`. */
export const EXPORT_STATUSES: readonly ExportStatus[] = ['live', 'closed', 'any'];

/**
 * What both final lines carry: the job lines written, where the export ends (`after`, described as the
 * line means it) and the change-feed watermark.
 */
function finalLinePosition(after: string) {
  return {
    count: Type.Integer({ minimum: 0, description: 'Job lines written in this response.' }),
    after: Type.Union([Type.String({ format: 'uuid' }), Type.Null()], { description: after }),
    since: Type.String({
      description:
        'The change-feed watermark: pass it as since to /v1/changes to receive every change committed after this export began reading (none lost, none already older than the snapshot). After a resumed export, use the since of the first response.',
    }),
  };
}

/** The final line of a complete export. */
export const ExportCompleteSchema = Type.Object(
  {
    complete: Type.Literal(true, { description: 'Every matching row was written.' }),
    ...finalLinePosition("Where this export ends: the id of the last row written, or the request's after when none was (null when neither)."),
  },
  { description: 'Final line of a complete export.' },
);
export type ExportComplete = Static<typeof ExportCompleteSchema>;

/** The final line of an export that stopped early (spec: "a final line carrying error: record_quota_exhausted and the after cursor"). */
export const ExportErrorLineSchema = Type.Object(
  {
    error: Type.String({ description: 'record_quota_exhausted, or query_failed, timeout, unavailable.' }),
    message: Type.String(),
    docs: Type.String(),
    ...finalLinePosition("Resume with after=<this>: the id of the last row written, or the request's after when none was (null when neither)."),
  },
  { description: 'Final line of an export that stopped early; resume with after.' },
);
export type ExportErrorLine = Static<typeof ExportErrorLineSchema>;

/** One NDJSON line of the export body: a Job, or the final control line. */
export const ExportLineSchema = Type.Union([JobSchema, ExportCompleteSchema, ExportErrorLineSchema], {
  description:
    'One line of the NDJSON body. Job lines (they have an id) come in id order; the last line is a control line: {complete: true, count, after, since} or {error, message, docs, count, after, since}. No control line means the connection was cut.',
});
