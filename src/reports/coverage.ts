/**
 * The coverage reports (spec: Resources › Coverage report (shape); GET /public/coverage,
 * /public/coverage/countries, /public/coverage/employers). Populations as in `store/populations.ts`.
 */
import { sql, type Kysely } from 'kysely';
import { FIELD_SOURCE_KEYS } from '../domain/field-sources.ts';
import type { DB } from '../store/schema.ts';
import { CLOSED, LIVE, WITHHELD } from '../store/populations.ts';
import { pct } from './share.ts';

const DAY_MS = 86_400_000;

/** Fields whose presence on live rows the coverage report counts, with the SQL test of each. */
const COMPLETENESS_FIELDS = {
  country: sql`j.country IS NOT NULL`,
  city: sql`j.city IS NOT NULL`,
  location: sql`j.location IS NOT NULL`,
  remote: sql`j.remote IS NOT NULL`,
  employment_type: sql`j.employment_type IS NOT NULL`,
  seniority: sql`j.seniority IS NOT NULL`,
  category: sql`j.category IS NOT NULL`,
  posted_at: sql`j.posted_at IS NOT NULL`,
  apply_url: sql`j.apply_url IS NOT NULL`,
  description: sql`j.has_description`,
  salary: sql`j.salary_source IS NOT NULL`,
  salary_published: sql`j.salary_source = 'structured'`,
  salary_min_annual_eur: sql`j.salary_min_annual_eur IS NOT NULL`,
} as const;

export interface FieldCount {
  rows: number;
  pct: number;
}

export interface SourceCoverage {
  source: string;
  label: string;
  source_type: string;
  provider_type: string;
  live: number;
  withheld: number;
  closed: number;
  with_description: number;
  with_description_pct: number;
}

export interface ExcludedSource {
  source: string;
  label: string;
  reason: 'discovery_only' | 'not_redistributable';
  ledger_rows: number;
  live_unserved: number;
}

export interface CoverageSnapshot {
  measured_at: string;
  live_listings: number;
  live_employer_direct: number;
  withheld_listings: number;
  withheld_breakdown: { quality_removed: number; quality_gated: number; optout_hidden: number };
  closed_listings: number;
  ledger_rows: number;
  employers: number;
  countries: number;
  posted_last_7d: number;
  field_completeness: Record<string, FieldCount>;
  provenance: Record<string, { published: number; inferred: number; absent: number }>;
  sources: SourceCoverage[];
  excluded_sources: ExcludedSource[];
  note: string;
}

/**
 * Measure the coverage report at `now`: the three populations and their reconciliation, employers
 * (companies with a live row), countries (distinct countries of live rows), live rows posted in the 7
 * days before `now`, per-field completeness and provenance of live rows, per-source counts of
 * redistributed providers, and the sources that are fetched but never redistributed.
 */
export async function computeCoverage(db: Kysely<DB>, now: Date): Promise<CoverageSnapshot> {
  const fieldSelects = Object.entries(COMPLETENESS_FIELDS).map(([name, test]) => sql`count(*) FILTER (WHERE ${LIVE} AND ${test})::int AS ${sql.ref(`f_${name}`)}`);
  const provenanceSelects = FIELD_SOURCE_KEYS.flatMap((key) =>
    (['published', 'inferred', 'absent'] as const).map((p) => sql`count(*) FILTER (WHERE ${LIVE} AND j.field_sources->>${key} = ${p})::int AS ${sql.ref(`p_${key}_${p}`)}`),
  );
  const totals = (
    await sql<Record<string, number>>`
      SELECT
        count(*)::int AS ledger_rows,
        count(*) FILTER (WHERE ${LIVE})::int AS live,
        count(*) FILTER (WHERE j.served)::int AS served,
        count(*) FILTER (WHERE ${WITHHELD})::int AS withheld,
        count(*) FILTER (WHERE ${WITHHELD} AND j.withheld_kind = 'quality_removed')::int AS quality_removed,
        count(*) FILTER (WHERE ${WITHHELD} AND j.withheld_kind = 'quality_gated')::int AS quality_gated,
        count(*) FILTER (WHERE ${WITHHELD} AND j.withheld_kind = 'optout_hidden')::int AS optout_hidden,
        count(*) FILTER (WHERE ${CLOSED})::int AS closed,
        count(DISTINCT j.company_id) FILTER (WHERE ${LIVE})::int AS employers,
        count(DISTINCT j.country) FILTER (WHERE ${LIVE})::int AS countries,
        count(*) FILTER (WHERE ${LIVE} AND j.posted_at >= ${new Date(now.getTime() - 7 * DAY_MS)} AND j.posted_at <= ${now})::int AS posted_last_7d,
        ${sql.join(fieldSelects)},
        ${sql.join(provenanceSelects)}
      FROM jobs j`.execute(db)
  ).rows[0]!;
  const live = totals.live!;

  const field_completeness: Record<string, FieldCount> = {};
  for (const name of Object.keys(COMPLETENESS_FIELDS)) {
    const rows = totals[`f_${name}`]!;
    field_completeness[name] = { rows, pct: pct(rows, live) };
  }
  const provenance: CoverageSnapshot['provenance'] = {};
  for (const key of FIELD_SOURCE_KEYS) {
    provenance[key] = { published: totals[`p_${key}_published`]!, inferred: totals[`p_${key}_inferred`]!, absent: totals[`p_${key}_absent`]! };
  }

  const providers = (
    await sql<{
      id: string;
      label: string;
      source_type: string;
      provider_class: string;
      redistributable: boolean;
      discovery_only: boolean;
      rows: number;
      live: number;
      withheld: number;
      closed: number;
      with_description: number;
    }>`
      SELECT p.id, p.label, p.source_type, p.provider_class, p.redistributable, p.discovery_only,
        count(j.id)::int AS rows,
        count(j.id) FILTER (WHERE ${LIVE})::int AS live,
        count(j.id) FILTER (WHERE ${WITHHELD})::int AS withheld,
        count(j.id) FILTER (WHERE ${CLOSED})::int AS closed,
        count(j.id) FILTER (WHERE ${LIVE} AND j.has_description)::int AS with_description
      FROM providers p
      LEFT JOIN jobs j ON j.provider_id = p.id
      GROUP BY p.id
      ORDER BY p.id`.execute(db)
  ).rows;

  const sources: SourceCoverage[] = providers
    .filter((p) => p.redistributable && !p.discovery_only)
    .map((p) => ({
      source: p.id,
      label: p.label,
      source_type: p.source_type,
      provider_type: p.provider_class,
      live: p.live,
      withheld: p.withheld,
      closed: p.closed,
      with_description: p.with_description,
      with_description_pct: pct(p.with_description, p.live),
    }))
    .sort((a, b) => b.live - a.live || a.source.localeCompare(b.source));
  const excluded_sources: ExcludedSource[] = providers
    .filter((p) => !p.redistributable || p.discovery_only)
    .map((p) => ({
      source: p.id,
      label: p.label,
      reason: p.discovery_only ? ('discovery_only' as const) : ('not_redistributable' as const),
      ledger_rows: p.rows,
      live_unserved: p.withheld,
    }));

  return {
    measured_at: now.toISOString(),
    live_listings: live,
    live_employer_direct: totals.served!,
    withheld_listings: totals.withheld!,
    withheld_breakdown: { quality_removed: totals.quality_removed!, quality_gated: totals.quality_gated!, optout_hidden: totals.optout_hidden! },
    closed_listings: totals.closed!,
    ledger_rows: totals.ledger_rows!,
    employers: totals.employers!,
    countries: totals.countries!,
    posted_last_7d: totals.posted_last_7d!,
    field_completeness,
    provenance,
    sources,
    excluded_sources,
    note: 'ledger_rows = live_listings + withheld_listings + closed_listings exactly. live_listings includes rows posted by a staffing agency or a job board (served only with include_poster_type); live_employer_direct is what /v1/jobs serves by default. employers: companies with at least one live row. countries: distinct countries of live rows. posted_last_7d: live rows whose posted_at lies in the 7 days before measured_at. field_completeness and provenance count live rows. excluded_sources are fetched for discovery only and never redistributed; their rows are withheld as quality_removed.',
  };
}

export interface CountryCoverage {
  country: string;
  live: number;
  with_description: number;
  with_salary: number;
  employers: number;
}

export interface CountriesSnapshot {
  measured_at: string;
  live_listings: number;
  live_without_country: number;
  countries: CountryCoverage[];
  note: string;
}

/**
 * Per-country coverage of live rows: rows, rows with a description, rows with a source-published
 * salary (`salary_source = structured`), and distinct employers. Ordered by live rows, then code.
 */
export async function computeCountries(db: Kysely<DB>, now: Date): Promise<CountriesSnapshot> {
  const rows = (
    await sql<CountryCoverage & { country: string | null }>`
      SELECT j.country,
        count(*)::int AS live,
        count(*) FILTER (WHERE j.has_description)::int AS with_description,
        count(*) FILTER (WHERE j.salary_source = 'structured')::int AS with_salary,
        count(DISTINCT j.company_id)::int AS employers
      FROM jobs j
      WHERE ${LIVE}
      GROUP BY j.country
      ORDER BY count(*) DESC, j.country NULLS LAST`.execute(db)
  ).rows;
  const countries = rows.filter((r): r is CountryCoverage => r.country !== null);
  const without = rows.find((r) => r.country === null)?.live ?? 0;
  return {
    measured_at: now.toISOString(),
    live_listings: rows.reduce((sum, r) => sum + r.live, 0),
    live_without_country: without,
    countries,
    note: 'Live rows per ISO-3166 alpha-2 country. with_salary counts salaries the source published in structured form. Rows whose country is ambiguous carry none and are counted in live_without_country.',
  };
}

export interface EmployerCoverage {
  slug: string;
  name: string;
  live: number;
  with_description: number;
  with_salary: number;
  countries: number;
}

export interface EmployersSnapshot {
  measured_at: string;
  employer_count: number;
  live_listings: number;
  listed: number;
  truncated: boolean;
  employers: EmployerCoverage[];
  note: string;
}

/** Largest number of employers listed by the per-employer report (the biggest first). */
const EMPLOYERS_REPORT_MAX = 1000;

/**
 * Per-employer coverage of live rows, biggest employers first (ties by name, then slug), at most
 * {@link EMPLOYERS_REPORT_MAX} of them.
 */
export async function computeEmployers(db: Kysely<DB>, now: Date): Promise<EmployersSnapshot> {
  const rows = (
    await sql<EmployerCoverage & { total: number; total_live: number }>`
      SELECT c.slug, c.name,
        count(*)::int AS live,
        count(*) FILTER (WHERE j.has_description)::int AS with_description,
        count(*) FILTER (WHERE j.salary_source = 'structured')::int AS with_salary,
        count(DISTINCT j.country)::int AS countries,
        (count(*) OVER ())::int AS total,
        (sum(count(*)) OVER ())::int AS total_live
      FROM jobs j
      JOIN companies c ON c.id = j.company_id
      WHERE ${LIVE}
      GROUP BY c.id
      ORDER BY count(*) DESC, c.name, c.slug
      LIMIT ${EMPLOYERS_REPORT_MAX}`.execute(db)
  ).rows;
  const total = rows[0]?.total ?? 0;
  return {
    measured_at: now.toISOString(),
    employer_count: total,
    live_listings: rows[0]?.total_live ?? 0,
    listed: rows.length,
    truncated: total > rows.length,
    employers: rows.map(({ slug, name, live, with_description, with_salary, countries }) => ({ slug, name, live, with_description, with_salary, countries })),
    note: `Companies with at least one live row, biggest first, at most ${EMPLOYERS_REPORT_MAX}. with_salary counts salaries the source published in structured form; countries counts distinct countries of the employer's live rows. The full directory with filters is /v1/companies.`,
  };
}
