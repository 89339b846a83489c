/**
 * The ledger's read side for job rows: keyset-paged listings and single-row lookups, and the mapping of
 * a stored row to the served Job shape (spec: Resources › Job, nullability table).
 */
import { sql, type Expression, type ExpressionBuilder, type Kysely, type SqlBool } from 'kysely';
import type { CursorPosition } from '../domain/cursor.ts';
import type { FieldSources } from '../domain/field-sources.ts';
import type { Job } from '../domain/job.ts';
import type { JobFilter } from '../domain/listing-filter.ts';
import { NOT_STATED } from '../domain/vocabulary.ts';
import type { DB, JobRow } from './schema.ts';

/** A job row joined with its company's current slug and logo. */
export type JobViewRow = Omit<JobRow, 'title_tsv' | 'search_tsv' | 'description_tsv' | 'description_text'> & {
  company_slug: string;
  company_logo: string | null;
  sort_key_text: string;
};

/** Every served column of a job row, under the alias `j` (shared by the listing and feed queries). */
export const JOB_COLUMNS = [
  'j.id',
  'j.slug',
  'j.provider_id',
  'j.target_id',
  'j.source_posting_id',
  'j.company_id',
  'j.company_name',
  'j.title',
  'j.location',
  'j.country',
  'j.city',
  'j.state',
  'j.remote',
  'j.remote_inferred',
  'j.employment_type',
  'j.seniority',
  'j.category',
  'j.category_confidence',
  'j.posted_at',
  'j.sort_key',
  'j.first_seen_at',
  'j.last_verified_at',
  'j.content_changed_at',
  'j.status',
  'j.closed_at',
  'j.closed_reason',
  'j.upstream_expired_at',
  'j.upstream_closes_at',
  'j.withheld_kind',
  'j.quality_verdict',
  'j.quality_rule_id',
  'j.quality_matched_host',
  'j.poster_type',
  'j.apply_url',
  'j.posting_url',
  'j.source_type',
  'j.provider_type',
  'j.has_description',
  'j.description_html',
  'j.salary_min',
  'j.salary_max',
  'j.salary_currency',
  'j.salary_period',
  'j.salary_source',
  'j.salary_min_annual_eur',
  'j.field_sources',
  'j.attribution',
  'j.canonical_url',
  'j.content_hash',
  'j.missed_crawls',
  'j.served',
  'j.created_at',
  'j.updated_at',
] as const;

export type JobsEb = ExpressionBuilder<DB & { j: DB['jobs'] } & { c: DB['companies'] }, 'j' | 'c'>;

/** SQL conditions for the shared filters. Every value is bound as a parameter. */
export function filterConditions(eb: JobsEb, filter: JobFilter): Expression<SqlBool>[] {
  const where: Expression<SqlBool>[] = [];
  if (filter.country) where.push(eb('j.country', 'in', filter.country));
  if (filter.remote) {
    const values = filter.remote.filter((v) => v !== NOT_STATED);
    const ors: Expression<SqlBool>[] = [];
    if (values.length > 0) ors.push(eb('j.remote', 'in', values));
    if (filter.remote.includes(NOT_STATED)) ors.push(eb('j.remote', 'is', null));
    where.push(eb.or(ors));
  }
  if (filter.employmentType) {
    const values = filter.employmentType.filter((v) => v !== NOT_STATED);
    const ors: Expression<SqlBool>[] = [];
    if (values.length > 0) ors.push(eb('j.employment_type', 'in', values));
    if (filter.employmentType.includes(NOT_STATED)) ors.push(eb('j.employment_type', 'is', null));
    where.push(eb.or(ors));
  }
  if (filter.company) where.push(eb('c.slug', 'in', filter.company));
  if (filter.provider) where.push(eb('j.provider_id', 'in', filter.provider));
  if (filter.q) where.push(sql<SqlBool>`j.search_tsv @@ websearch_to_tsquery('simple', ${filter.q})`);
  if (filter.postedAfter) where.push(eb('j.posted_at', '>', filter.postedAfter));
  if (filter.countryLock) where.push(eb('j.country', '=', filter.countryLock));
  return where;
}

export interface ListPage {
  rows: JobViewRow[];
  hasMore: boolean;
  /** Position of the last row, for the next cursor; undefined when there is no next page. */
  next?: CursorPosition;
}

/**
 * One page of served rows in the listing order `posted_at DESC NULLS LAST, id DESC` (spec: GET /v1/jobs),
 * after `after` when given.
 */
export async function listServedJobs(
  db: Kysely<DB>,
  filter: JobFilter,
  page: { limit: number; after?: CursorPosition; includeDescription: boolean },
): Promise<ListPage> {
  let query = db
    .selectFrom('jobs as j')
    .innerJoin('companies as c', 'c.id', 'j.company_id')
    .select(JOB_COLUMNS)
    .select(['c.slug as company_slug', 'c.logo_url as company_logo', sql<string>`j.sort_key::text`.as('sort_key_text')])
    .where('j.served', '=', true)
    .where((eb) => eb.and(filterConditions(eb, filter)));
  if (page.after) {
    const after = page.after;
    query = query.where((eb) => eb(eb.refTuple('j.sort_key', 'j.id'), '<', eb.tuple(sql<Date>`${after.key}::timestamptz`, sql<string>`${after.id}::uuid`)));
  }
  const rows = (await query
    .orderBy('j.sort_key', 'desc')
    .orderBy('j.id', 'desc')
    .limit(page.limit + 1)
    .execute()) as unknown as JobViewRow[];
  const hasMore = rows.length > page.limit;
  const pageRows = hasMore ? rows.slice(0, page.limit) : rows;
  const last = pageRows[pageRows.length - 1];
  return { rows: pageRows, hasMore, next: hasMore && last ? { key: last.sort_key_text, id: last.id } : undefined };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * One row by uuid or slug (spec: GET /v1/jobs/{id}). Only served rows, plus closed rows when
 * `includeClosed` (those that were not withheld when they closed, as in /v1/jobs/closed); withheld
 * rows are never returned.
 */
export async function findJob(db: Kysely<DB>, idOrSlug: string, options: { includeClosed: boolean }): Promise<JobViewRow | undefined> {
  const key = idOrSlug.trim().toLowerCase();
  const row = await db
    .selectFrom('jobs as j')
    .innerJoin('companies as c', 'c.id', 'j.company_id')
    .select(JOB_COLUMNS)
    .select(['c.slug as company_slug', 'c.logo_url as company_logo', sql<string>`j.sort_key::text`.as('sort_key_text')])
    .where(UUID.test(key) ? 'j.id' : 'j.slug', '=', key)
    .where((eb) =>
      options.includeClosed
        ? eb.or([eb('j.served', '=', true), eb.and([eb('j.status', '=', 'closed'), eb('j.withheld_kind', 'is', null), eb('j.poster_type', 'is', null)])])
        : eb('j.served', '=', true),
    )
    .executeTakeFirst();
  return row as unknown as JobViewRow | undefined;
}

function iso(value: Date | null | undefined): string | undefined {
  return value ? value.toISOString() : undefined;
}

/** Options of the served shape. */
export interface JobViewOptions {
  includeDescription: boolean;
  /** Add the quality verdict, rule id and matched host (spec: quality=all). */
  includeQuality?: boolean;
}

/**
 * Map a stored row to the served Job: "always present" fields always set, "present, may be null"
 * set to null when empty, "omitted when empty" left out (spec: nullability table).
 */
export function toJob(row: JobViewRow, options: JobViewOptions): Job {
  const job: Job = {
    id: row.id,
    slug: row.slug,
    title: row.title,
    company: row.company_name,
    company_slug: row.company_slug,
    category_confidence: row.category_confidence === null ? null : Math.round(row.category_confidence * 1000) / 1000,
    remote_inferred: row.remote_inferred,
    last_verified_at: row.last_verified_at.toISOString(),
    status: row.status,
    closed_at: row.closed_at ? row.closed_at.toISOString() : null,
    closed_reason: row.closed_reason,
    source: row.provider_id,
    source_type: row.source_type as Job['source_type'],
    provider_type: row.provider_type as Job['provider_type'],
    has_description: row.has_description,
    salary_min_annual_eur: row.salary_min_annual_eur,
    field_sources: row.field_sources as FieldSources,
  };
  const optional: Partial<Job> = {
    company_logo: row.company_logo ?? undefined,
    category: row.category ?? undefined,
    country: row.country ?? undefined,
    city: row.city ?? undefined,
    location: row.location ?? undefined,
    remote: (row.remote as Job['remote']) ?? undefined,
    employment_type: row.employment_type ?? undefined,
    seniority: row.seniority ?? undefined,
    posted_at: iso(row.posted_at),
    first_seen_at: iso(row.first_seen_at),
    upstream_expired_at: iso(row.upstream_expired_at),
    apply_url: row.apply_url ?? undefined,
    description: options.includeDescription && row.has_description ? (row.description_html ?? undefined) : undefined,
    salary_min: row.salary_min ?? undefined,
    salary_max: row.salary_max ?? undefined,
    salary_currency: row.salary_currency ?? undefined,
    salary_period: row.salary_period ?? undefined,
    salary_source: row.salary_source ?? undefined,
    attribution: row.attribution ?? undefined,
    canonical_url: row.canonical_url ?? undefined,
  };
  if (options.includeQuality) {
    optional.quality_verdict = row.quality_verdict;
    optional.quality_rule_id = row.quality_rule_id ?? undefined;
    optional.quality_matched_host = row.quality_matched_host ?? undefined;
  }
  for (const [key, value] of Object.entries(optional)) {
    if (value !== undefined && value !== '') (job as Record<string, unknown>)[key] = value;
  }
  return job;
}
