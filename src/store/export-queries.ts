/**
 * The read side of the bulk export (spec: GET /v1/export): rows in `id` order, one keyset batch at a
 * time, so a stream of any length holds one batch in memory (ARCHITECTURE "Exports stream with
 * backpressure ... in batches by keyset").
 */
import { sql, type Expression, type Kysely, type SqlBool } from 'kysely';
import type { ExportStatus } from '../domain/export.ts';
import type { JobFilter } from '../domain/listing-filter.ts';
import { filterConditions, JOB_COLUMNS, type JobsEb, type JobViewRow } from './job-queries.ts';
import { CLOSED_SERVED } from './populations.ts';
import type { DB } from './schema.ts';

/**
 * Rows of a status (spec: GET /v1/jobs `status`; What the service does, item 4):
 * - live: what /v1/jobs serves (`served`: live, not withheld, employer-posted);
 * - closed: closed rows that were employer-posted and not withheld (`CLOSED_SERVED`) — removed or
 *   gated rows never reappear through a closure;
 * - any: both.
 */
function statusCondition(eb: JobsEb, status: ExportStatus): Expression<SqlBool> {
  if (status === 'live') return eb('j.served', '=', true);
  if (status === 'closed') return CLOSED_SERVED;
  return eb.or([eb('j.served', '=', true), CLOSED_SERVED]);
}

const WITHOUT_DESCRIPTION = JOB_COLUMNS.filter((c) => c !== 'j.description_html');

/**
 * The next `limit` rows of the export after `after` (an id), in ascending `id` order.
 * `description_html` is read only when the lines carry descriptions.
 */
export async function exportBatch(
  db: Kysely<DB>,
  filter: JobFilter,
  status: ExportStatus,
  page: { after?: string; limit: number; includeDescription: boolean },
): Promise<JobViewRow[]> {
  let query = db
    .selectFrom('jobs as j')
    .innerJoin('companies as c', 'c.id', 'j.company_id')
    .select(page.includeDescription ? JOB_COLUMNS : WITHOUT_DESCRIPTION)
    .select(['c.slug as company_slug', 'c.logo_url as company_logo', 'c.domain as company_domain', sql<string>`j.sort_key::text`.as('sort_key_text')])
    .where((eb) => statusCondition(eb, status))
    .where((eb) => eb.and(filterConditions(eb, filter)));
  if (page.after) query = query.where('j.id', '>', page.after);
  const rows = await query.orderBy('j.id').limit(page.limit).execute();
  return rows as unknown as JobViewRow[];
}
