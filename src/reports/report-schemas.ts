/**
 * Response shapes of the reports, as served and as the OpenAPI contract shows them (spec: Freshness
 * report (shape), Coverage report (shape), Coverage per country; the stats, status and per-employer
 * bodies are ours, see docs/reports.md). Every report is `{ data: {...} }` and carries `measured_at`,
 * `age_seconds` and `stale`.
 */
import { Type, type TSchema } from 'typebox';
import { FIELD_SOURCE_KEYS } from '../domain/field-sources.ts';
import { FX_CURRENCIES } from '../enrich/fx.ts';

const Int = (description?: string) => Type.Integer({ minimum: 0, ...(description ? { description } : {}) });
const Pct = (description?: string) => Type.Number({ minimum: 0, maximum: 100, ...(description ? { description } : {}) });
const Instant = (description: string) => Type.String({ format: 'date-time', description });
const NullableInstant = (description: string) => Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description });

/** The age fields every report carries. */
const age = {
  measured_at: Instant('When the numbers were measured.'),
  age_seconds: Int('Age of the snapshot when this response was generated, seconds.'),
  stale: Type.Boolean({ description: 'True when the snapshot is older than its refresh window (twice the refresh interval).' }),
};

function envelope(name: string, properties: Record<string, TSchema>, description: string) {
  return Type.Object({ data: Type.Object({ ...age, ...properties }, { description }) }, { title: name });
}

export const FreshnessReportSchema = envelope(
  'FreshnessReport',
  {
    generated_at: Instant('When this response was generated.'),
    ledger_rows: Int('live_listings + withheld_listings + closed_listings, exactly.'),
    live_listings: Int('Not closed and not withheld.'),
    withheld_listings: Int('Present but deliberately not served.'),
    closed_listings: Int('Rows that left their source.'),
    closures: Type.Object({
      last_24h: Int('Rows closed in the 24 hours before measured_at.'),
      last_7d: Int('Rows closed in the 7 days before measured_at.'),
      total: Int('All closed rows.'),
      reasons: Type.Array(Type.String(), { description: 'The closed_reason values.' }),
      by_reason: Type.Record(Type.String(), Type.Integer({ minimum: 0 }), { description: 'Closed rows per closed_reason.' }),
      retention: Type.String(),
      note: Type.String(),
    }),
    field_coverage: Type.Object({
      description: Int(),
      description_pct: Pct(),
      employment_type: Int(),
      employment_type_pct: Pct(),
      remote_inferred: Int(),
      remote_inferred_pct: Pct(),
      remote_published: Int(),
      remote_published_pct: Pct(),
      salary_published: Int(),
      salary_published_pct: Pct(),
      note: Type.String(),
    }),
    verification: Type.Object({
      newest_verification: NullableInstant('Most recent last_verified_at of a live row.'),
      oldest_verification: NullableInstant('Least recent last_verified_at of a live row.'),
      reverified_last_hour: Int(),
      reverified_last_hour_pct: Pct(),
      reverified_last_24h: Int(),
      reverified_last_24h_pct: Pct(),
      reverified_last_48h: Int(),
      reverified_last_48h_pct: Pct(),
      reverified_last_7d: Int(),
      reverified_last_7d_pct: Pct(),
      note: Type.String(),
    }),
    salary_normalisation: Type.Object({
      assumptions: Type.Object({
        days_per_year: Type.Integer(),
        hours_per_year: Type.Integer(),
        weeks_per_year: Type.Integer(),
        unknown_period_or_currency: Type.String(),
      }),
      note: Type.String(),
      rates_as_of: Type.String({ format: 'date', description: 'Date of the newest ECB reference rate used.' }),
      rates_eur_per_unit: Type.Object(
        Object.fromEntries(FX_CURRENCIES.map((c) => [c, Type.Number({ exclusiveMinimum: 0 })])),
        { description: 'EUR per one unit of each currency; indicative, not settlement rates.' },
      ),
    }),
    population_note: Type.String(),
    refresh_note: Type.String(),
  },
  'Freshness and coverage of the ledger.',
);

const FieldCount = Type.Object({ rows: Int(), pct: Pct() });

export const CoverageReportSchema = envelope(
  'CoverageReport',
  {
    live_listings: Int('Not closed and not withheld.'),
    live_employer_direct: Int('The part of live_listings /v1/jobs serves by default.'),
    withheld_listings: Int('Present but deliberately not served; the sum of withheld_breakdown.'),
    withheld_breakdown: Type.Object({ quality_removed: Int(), quality_gated: Int(), optout_hidden: Int() }),
    closed_listings: Int(),
    ledger_rows: Int('live_listings + withheld_listings + closed_listings, exactly.'),
    employers: Int('Companies with at least one live row.'),
    countries: Int('Distinct countries of live rows.'),
    posted_last_7d: Int('Live rows whose posted_at lies in the 7 days before measured_at.'),
    field_completeness: Type.Record(Type.String(), FieldCount, { description: 'Per field: live rows carrying it, and their percentage.' }),
    provenance: Type.Object(
      Object.fromEntries(FIELD_SOURCE_KEYS.map((k) => [k, Type.Object({ published: Int(), inferred: Int(), absent: Int() })])),
      { description: 'Per field_sources key: live rows by provenance.' },
    ),
    sources: Type.Array(
      Type.Object({
        source: Type.String(),
        label: Type.String(),
        source_type: Type.String(),
        provider_type: Type.String(),
        live: Int(),
        withheld: Int(),
        closed: Int(),
        with_description: Int(),
        with_description_pct: Pct(),
      }),
      { description: 'Redistributed providers.' },
    ),
    excluded_sources: Type.Array(
      Type.Object({
        source: Type.String(),
        label: Type.String(),
        reason: Type.String({ description: 'discovery_only or not_redistributable.' }),
        ledger_rows: Int(),
        live_unserved: Int(),
      }),
      { description: 'Sources fetched but never redistributed (also the discovery-only sources of include_discovered).' },
    ),
    note: Type.String(),
  },
  'The canonical coverage report.',
);

export const CountriesReportSchema = envelope(
  'CountriesReport',
  {
    live_listings: Int(),
    live_without_country: Int(),
    countries: Type.Array(
      Type.Object({
        country: Type.String({ description: 'ISO-3166 alpha-2.' }),
        live: Int(),
        with_description: Int(),
        with_salary: Int('Rows with a source-published salary.'),
        employers: Int(),
      }),
    ),
    note: Type.String(),
  },
  'Coverage per country.',
);

export const EmployersReportSchema = envelope(
  'EmployersReport',
  {
    employer_count: Int('Companies with at least one live row.'),
    live_listings: Int(),
    listed: Int('Entries in employers.'),
    truncated: Type.Boolean({ description: 'True when more employers exist than are listed.' }),
    employers: Type.Array(
      Type.Object({
        slug: Type.String(),
        name: Type.String(),
        live: Int(),
        with_description: Int(),
        with_salary: Int('Rows with a source-published salary.'),
        countries: Int('Distinct countries of its live rows.'),
      }),
    ),
    note: Type.String(),
  },
  'Coverage per employer, biggest first.',
);

export const StatsReportSchema = envelope(
  'StatsReport',
  {
    jobs: Int(),
    companies: Int(),
    countries: Int(),
    remote_jobs: Int(),
    remote_jobs_pct: Pct(),
    jobs_with_salary: Int(),
    jobs_with_salary_pct: Pct(),
    median_salary_min_annual_eur: Type.Union([Type.Number(), Type.Null()]),
    new_jobs_24h: Int(),
    new_jobs_7d: Int(),
    closed_24h: Int(),
    closed_7d: Int(),
    top_categories: Type.Array(Type.Object({ category: Type.String(), jobs: Int() })),
    top_countries: Type.Array(Type.Object({ country: Type.String(), jobs: Int() })),
    definitions: Type.Record(Type.String(), Type.String(), { description: 'What each number counts.' }),
  },
  'A summary of what /v1/jobs serves by default, with its own definitions.',
);
