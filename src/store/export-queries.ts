/**
 * The read side of the bulk export (spec: GET /v1/export): rows in `id` order, one keyset batch at a
 * time, so a stream of any length holds one batch in memory (ARCHITECTURE "Exports stream with
 * backpressure ... in batches by keyset").
 */
import { sql, type Expression, type Kysely, type SqlBool } from 'kysely';
import type { ExportStatus } from '../domain/export.ts';
import type { JobFilter } from '../domain/listing-filter.ts';
import { filterConditions, JOB_COLUMNS, type JobsEb, type JobViewRow } from './job-queries.ts';
import { servedJobSql } from './job-lines.ts';
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

/** Where the export stands and how much it reads next. */
export interface ExportPage {
  /** Resume after this id (exclusive). */
  after?: string;
  limit: number;
  includeDescription: boolean;
}

/**
 * The export's selection without its columns: the rows of a status and filter after `page.after`,
 * in ascending `id` order, `page.limit` of them. {@link exportRowsQuery} and {@link exportLineBatch}
 * select from it, so the rows and their order are the same for both.
 */
function exportSelection(db: Kysely<DB>, filter: JobFilter, status: ExportStatus, page: ExportPage) {
  let query = db
    .selectFrom('jobs as j')
    .innerJoin('companies as c', 'c.id', 'j.company_id')
    .where((eb) => statusCondition(eb, status))
    .where((eb) => eb.and(filterConditions(eb, filter)));
  if (page.after) query = query.where('j.id', '>', page.after);
  return query.orderBy('j.id').limit(page.limit);
}

/**
 * The query of {@link exportBatch}, uncompiled: the bench compiles it for its `COPY row_to_json`
 * floor (the export's rows, columns and order, as a row-by-row serializer would read them).
 */
export function exportRowsQuery(db: Kysely<DB>, filter: JobFilter, status: ExportStatus, page: ExportPage) {
  return exportSelection(db, filter, status, page)
    .select(page.includeDescription ? JOB_COLUMNS : WITHOUT_DESCRIPTION)
    .select(['c.slug as company_slug', 'c.logo_url as company_logo', 'c.domain as company_domain', sql<string>`j.sort_key::text`.as('sort_key_text')]);
}

/**
 * The next `limit` rows of the export after `after` (an id), in ascending `id` order, as rows for
 * the presenter. `description_html` is read only when the lines carry descriptions. The export itself
 * reads {@link exportLineBatch}; `test/job-lines.test.ts` holds its lines to the serializer's bytes of these rows.
 */
export async function exportBatch(db: Kysely<DB>, filter: JobFilter, status: ExportStatus, page: ExportPage): Promise<JobViewRow[]> {
  return (await exportRowsQuery(db, filter, status, page).execute()) as unknown as JobViewRow[];
}

/** One export line as PostgreSQL built it: the row's id and its served Job JSON text. */
export interface ExportLine {
  id: string;
  /**
   * The row's Job as the JSON answers write it (fast-json-stringify over JobSchema: the same bytes as
   * the row's item in a /v1/jobs page), without a newline (store/job-lines.ts).
   */
  line: string;
}

/**
 * The rows of {@link exportBatch} as served JSON text (issue 22): without descriptions each row's
 * stored line (`jobs.served_json`, migration 033), which PostgreSQL only reads; with them the same
 * Job with its description, built in SQL (store/job-lines.ts jobObjectSql). Node.js decodes one
 * string per row instead of some 40 columns, and neither presents nor serializes them.
 */
export async function exportLineBatch(db: Kysely<DB>, filter: JobFilter, status: ExportStatus, page: ExportPage): Promise<ExportLine[]> {
  return exportSelection(db, filter, status, page)
    .select(['j.id', sql.raw<string>(servedJobSql(page.includeDescription)).as('line')])
    .execute();
}
