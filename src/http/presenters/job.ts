/**
 * The served Job shape of a stored row (spec: Resources › Job, nullability table): every surface that
 * serves job rows (listings, single rows, the change feed, closures, the export) presents them here.
 */
import type { FieldSources, Provenance, ServedFieldSources } from '../../domain/field-sources.ts';
import type { Job, JobEnvelope } from '../../domain/job.ts';
import { firstSeenLagHours } from '../../domain/lifecycle.ts';
import type { JobViewRow } from '../../store/job-queries.ts';

function iso(value: Date | null | undefined): string | undefined {
  return value ? value.toISOString() : undefined;
}

/** The stored nine provenance keys, and those of company_domain, state, expires_at and the reality signals (field-sources.ts). */
function servedFieldSources(row: JobViewRow, lag: number | undefined): ServedFieldSources {
  const stored = row.field_sources as FieldSources;
  const known = (value: unknown, provenance: Provenance): Provenance => (value === null || value === undefined || value === '' ? 'absent' : provenance);
  return {
    ...stored,
    company_domain: known(row.company_domain, 'inferred'),
    state: known(row.state, stored.location === 'absent' ? 'inferred' : stored.location),
    expires_at: known(row.upstream_closes_at, 'published'),
    repost_count: 'inferred',
    first_seen_lag_hours: known(lag, 'inferred'),
  };
}

/** Set an "omitted when empty" field: left out when undefined, null or the empty string. */
function put(job: Job, key: keyof Job, value: unknown): void {
  if (value !== undefined && value !== null && value !== '') (job as unknown as Record<string, unknown>)[key] = value;
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
  const lag = firstSeenLagHours(row.posted_at, row.first_seen_at);
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
    salary_max_annual_eur: row.salary_max_annual_eur,
    repost_count: row.repost_count,
    field_sources: servedFieldSources(row, lag),
  };
  // Set one by one rather than through an object of candidates and Object.entries: this runs for
  // every row of every page (issue 22). The insertion order is the export line's key order
  // (store/job-lines.ts, held to it by test/job-lines.test.ts).
  put(job, 'company_logo', row.company_logo);
  put(job, 'company_domain', row.company_domain);
  put(job, 'state', row.state);
  put(job, 'expires_at', iso(row.upstream_closes_at));
  put(job, 'category', row.category);
  put(job, 'country', row.country);
  put(job, 'city', row.city);
  put(job, 'location', row.location);
  put(job, 'remote', row.remote);
  put(job, 'employment_type', row.employment_type);
  put(job, 'seniority', row.seniority);
  put(job, 'posted_at', iso(row.posted_at));
  put(job, 'first_seen_at', iso(row.first_seen_at));
  put(job, 'first_seen_lag_hours', lag);
  put(job, 'upstream_expired_at', iso(row.upstream_expired_at));
  put(job, 'apply_url', row.apply_url);
  if (options.includeDescription && row.has_description) put(job, 'description', row.description_html);
  put(job, 'salary_min', row.salary_min);
  put(job, 'salary_max', row.salary_max);
  put(job, 'salary_currency', row.salary_currency);
  put(job, 'salary_period', row.salary_period);
  put(job, 'salary_source', row.salary_source);
  put(job, 'attribution', row.attribution);
  put(job, 'canonical_url', row.canonical_url);
  if (options.includeQuality) {
    put(job, 'quality_verdict', row.quality_verdict);
    put(job, 'quality_rule_id', row.quality_rule_id);
    put(job, 'quality_matched_host', row.quality_matched_host);
  }
  return job;
}

/**
 * The single-row body of `/v1/jobs/{id}` and `/public/jobs/{id}`: the Job with its description, and the
 * description again at the top level for the original service's clients (issue 19, compatibility).
 */
export function toJobEnvelope(row: JobViewRow): JobEnvelope {
  const data = toJob(row, { includeDescription: true });
  return { data, description: data.description ?? null };
}
