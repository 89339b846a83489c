/**
 * The served Job shape of a stored row (spec: Resources › Job, nullability table): every surface that
 * serves job rows (listings, single rows, the change feed, closures, the export) presents them here.
 */
import type { FieldSources, Provenance, ServedFieldSources } from '../../domain/field-sources.ts';
import type { Job, JobEnvelope } from '../../domain/job.ts';
import { firstSeenLagHours } from '../../domain/lifecycle.ts';
import type { JobViewRow } from '../../store/job-queries.ts';
import { omittedWhenEmpty } from './omitted.ts';

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

/** Options of the served shape. */
export interface JobViewOptions {
  includeDescription: boolean;
  /** Add the quality verdict, rule id and matched host (spec: quality=all). */
  includeQuality?: boolean;
}

/**
 * Map a stored row to the served Job: "always present" fields always set, "present, may be null"
 * set to null when empty, "omitted when empty" left undefined, which both serializers omit (the
 * response schema's and `JSON.stringify`; spec: nullability table).
 *
 * Every Job has every key, in the served order (the always-present ones first, then the optional ones
 * in the order store/job-lines.ts builds them): one object literal gives every row the same hidden class,
 * so the serializer's property reads stay monomorphic. Adding only the present optional keys one by one
 * gave each combination of them a shape of its own; presenting and serializing were 15% of a listing's
 * Node.js time (issue 22, bench/README.md).
 */
export function toJob(row: JobViewRow, options: JobViewOptions): Job {
  const lag = firstSeenLagHours(row.posted_at, row.first_seen_at);
  const quality = options.includeQuality === true;
  return {
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
    company_logo: omittedWhenEmpty(row.company_logo),
    company_domain: omittedWhenEmpty(row.company_domain),
    state: omittedWhenEmpty(row.state),
    expires_at: iso(row.upstream_closes_at),
    category: omittedWhenEmpty(row.category),
    country: omittedWhenEmpty(row.country),
    city: omittedWhenEmpty(row.city),
    location: omittedWhenEmpty(row.location),
    remote: omittedWhenEmpty(row.remote as Job['remote'] | null),
    employment_type: omittedWhenEmpty(row.employment_type),
    seniority: omittedWhenEmpty(row.seniority),
    posted_at: iso(row.posted_at),
    first_seen_at: iso(row.first_seen_at),
    first_seen_lag_hours: lag,
    upstream_expired_at: iso(row.upstream_expired_at),
    apply_url: omittedWhenEmpty(row.apply_url),
    description: options.includeDescription && row.has_description ? omittedWhenEmpty(row.description_html) : undefined,
    salary_min: row.salary_min ?? undefined,
    salary_max: row.salary_max ?? undefined,
    salary_currency: omittedWhenEmpty(row.salary_currency),
    salary_period: omittedWhenEmpty(row.salary_period),
    salary_source: omittedWhenEmpty(row.salary_source),
    attribution: omittedWhenEmpty(row.attribution),
    canonical_url: omittedWhenEmpty(row.canonical_url),
    quality_verdict: quality ? row.quality_verdict : undefined,
    quality_rule_id: quality ? omittedWhenEmpty(row.quality_rule_id) : undefined,
    quality_matched_host: quality ? omittedWhenEmpty(row.quality_matched_host) : undefined,
  };
}

/**
 * The single-row body of `/v1/jobs/{id}` and `/public/jobs/{id}`: the Job with its description, and the
 * description again at the top level for the original service's clients (issue 19, compatibility).
 */
export function toJobEnvelope(row: JobViewRow): JobEnvelope {
  const data = toJob(row, { includeDescription: true });
  return { data, description: data.description ?? null };
}
