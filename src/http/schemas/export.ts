/**
 * The bulk export's query (spec: GET /v1/export): the shared filters, `include_description`, `status`
 * and `after`. The export has no page size: `limit` and `cursor` are not export parameters, so they
 * are ignored like any unknown name.
 */
import { Type } from 'typebox';
import { ApiError, quoteValue } from '../../domain/errors.ts';
import { EXPORT_STATUSES, type ExportStatus } from '../../domain/export.ts';
import type { JobFilter } from '../../domain/listing-filter.ts';
import { paramsOf, queryContract } from '../query-table.ts';
import { isUuid } from '../query-values.ts';
import { jobFilterOf } from './jobs.ts';
import { FILTER_ORDER, LISTING_FILTER_PARAMS, type ListingContext } from './listing-filters.ts';

/** What parsing the export's query needs to know about the caller (no page size). */
export type ExportContext = Omit<ListingContext, 'maxLimit'>;

/** An export request, parsed. */
export interface ExportRequest {
  filter: JobFilter;
  includeDescription: boolean;
  status: ExportStatus;
  /** Lower-case id of the last row already received; undefined: from the start. */
  after?: string;
}

const { param } = paramsOf<ExportContext>();

/** `GET /v1/export`. */
export const exportQuery = queryContract({
  params: {
    ...LISTING_FILTER_PARAMS,
    include_description: {
      ...LISTING_FILTER_PARAMS.include_description,
      description: 'true adds `description` (sanitized HTML) to every line that has one. No page-size limit applies.',
    },
    status: param<ExportStatus>({
      type: Type.Unsafe({ type: 'string', enum: [...EXPORT_STATUSES], default: 'live' }),
      description: 'live (default), closed or any. Unknown: 422 bad_status.',
      example: 'any',
      errors: ['bad_status'],
      parse: (value) => {
        const v = value?.trim().toLowerCase();
        if (!v) return 'live';
        const hit = EXPORT_STATUSES.find((s) => s === v);
        if (!hit) throw new ApiError('bad_status', `The value ${quoteValue(value ?? '')} is not a legal status; send live, closed or any.`);
        return hit;
      },
    }),
    after: param<string | undefined>({
      type: Type.String({ format: 'uuid' }),
      description: 'Resume after this id: the id of the last row already received (or the after of a final error line). Not a uuid: 422 bad_cursor.',
      example: '0190b7a4-3c2e-7d1a-9f00-2b7c5e8d4a10',
      errors: ['bad_cursor'],
      parse: (value) => {
        const v = value?.trim();
        if (!v) return undefined;
        if (!isUuid(v)) throw new ApiError('bad_cursor', `The value ${quoteValue(value ?? '')} of after is not a row id; send the id (uuid) of the last row received.`);
        return v.toLowerCase();
      },
    }),
  },
  // status and after first, then the filters, as the export always read them.
  order: ['status', 'after', ...FILTER_ORDER],
  build: (values, ctx: ExportContext): ExportRequest => ({
    filter: jobFilterOf(values, ctx),
    includeDescription: values.include_description,
    status: values.status,
    after: values.after,
  }),
});
