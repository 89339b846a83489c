/**
 * The freshness report (spec: Resources › Freshness report (shape)): populations, closures, field
 * coverage of live rows, re-verification at source, and the salary normalisation with its indicative
 * ECB rates. Computed from the ledger by {@link computeFreshness}; served from a snapshot.
 */
import { sql, type Kysely } from 'kysely';
import { FX_CURRENCIES, SALARY_NORMALISATION_ASSUMPTIONS, type FxRates } from '../enrich/fx.ts';
import { CLOSED_REASONS } from '../domain/vocabulary.ts';
import type { DB } from '../store/schema.ts';
import { CLOSED, LIVE, WITHHELD } from '../store/populations.ts';
import { pct } from './share.ts';

const HOUR_MS = 3_600_000;

/** The snapshot body (everything but the per-request `age_seconds`, `stale` and `generated_at`). */
export interface FreshnessSnapshot {
  measured_at: string;
  ledger_rows: number;
  live_listings: number;
  withheld_listings: number;
  closed_listings: number;
  closures: {
    last_24h: number;
    last_7d: number;
    total: number;
    reasons: string[];
    by_reason: Record<string, number>;
    retention: string;
    note: string;
  };
  field_coverage: Record<string, number | string>;
  verification: {
    newest_verification: string | null;
    oldest_verification: string | null;
    reverified_last_hour: number;
    reverified_last_hour_pct: number;
    reverified_last_24h: number;
    reverified_last_24h_pct: number;
    reverified_last_48h: number;
    reverified_last_48h_pct: number;
    reverified_last_7d: number;
    reverified_last_7d_pct: number;
    note: string;
  };
  salary_normalisation: {
    assumptions: typeof SALARY_NORMALISATION_ASSUMPTIONS;
    note: string;
    rates_as_of: string;
    rates_eur_per_unit: Record<string, number>;
  };
  population_note: string;
  refresh_note: string;
}

/** `YYYY-MM-DDTHH:MM:SS.sssZ` or null. */
function isoOrNull(value: Date | string | null | undefined): string | null {
  if (value === null || value === undefined) return null;
  return new Date(value).toISOString();
}

interface Counts {
  ledger_rows: number;
  live: number;
  withheld: number;
  closed: number;
  closed_24h: number;
  closed_7d: number;
  closed_expired_upstream: number;
  closed_not_seen: number;
  description: number;
  employment_type: number;
  remote_inferred: number;
  remote_published: number;
  salary_published: number;
  newest: Date | null;
  oldest: Date | null;
  verified_1h: number;
  verified_24h: number;
  verified_48h: number;
  verified_7d: number;
}

/**
 * Measure the freshness report at `now`.
 * - closures: closed rows by `closed_at` within 24 h and 7 d of `now`, all closed rows, and per reason;
 * - field_coverage: live rows carrying a description, an employment type, a remote value whose
 *   `field_sources.remote` is inferred or published, and a source-published salary
 *   (`field_sources.salary = published`), each with a percentage of live rows (one decimal);
 * - verification: newest and oldest `last_verified_at` of live rows, and live rows re-confirmed at
 *   their source (`last_verified_at`) within 1 h, 24 h, 48 h and 7 d of `now`, with percentages.
 */
export async function computeFreshness(db: Kysely<DB>, now: Date, fx: FxRates, refreshSeconds: number): Promise<FreshnessSnapshot> {
  const at = (msAgo: number) => new Date(now.getTime() - msAgo);
  const result = await sql<Counts>`
    SELECT
      count(*)::int AS ledger_rows,
      count(*) FILTER (WHERE ${LIVE})::int AS live,
      count(*) FILTER (WHERE ${WITHHELD})::int AS withheld,
      count(*) FILTER (WHERE ${CLOSED})::int AS closed,
      count(*) FILTER (WHERE ${CLOSED} AND j.closed_at >= ${at(24 * HOUR_MS)})::int AS closed_24h,
      count(*) FILTER (WHERE ${CLOSED} AND j.closed_at >= ${at(7 * 24 * HOUR_MS)})::int AS closed_7d,
      count(*) FILTER (WHERE ${CLOSED} AND j.closed_reason = 'expired_upstream')::int AS closed_expired_upstream,
      count(*) FILTER (WHERE ${CLOSED} AND j.closed_reason = 'not_seen')::int AS closed_not_seen,
      count(*) FILTER (WHERE ${LIVE} AND j.has_description)::int AS description,
      count(*) FILTER (WHERE ${LIVE} AND j.employment_type IS NOT NULL)::int AS employment_type,
      count(*) FILTER (WHERE ${LIVE} AND j.remote IS NOT NULL AND j.field_sources->>'remote' = 'inferred')::int AS remote_inferred,
      count(*) FILTER (WHERE ${LIVE} AND j.remote IS NOT NULL AND j.field_sources->>'remote' = 'published')::int AS remote_published,
      count(*) FILTER (WHERE ${LIVE} AND j.field_sources->>'salary' = 'published')::int AS salary_published,
      max(j.last_verified_at) FILTER (WHERE ${LIVE}) AS newest,
      min(j.last_verified_at) FILTER (WHERE ${LIVE}) AS oldest,
      count(*) FILTER (WHERE ${LIVE} AND j.last_verified_at >= ${at(HOUR_MS)})::int AS verified_1h,
      count(*) FILTER (WHERE ${LIVE} AND j.last_verified_at >= ${at(24 * HOUR_MS)})::int AS verified_24h,
      count(*) FILTER (WHERE ${LIVE} AND j.last_verified_at >= ${at(48 * HOUR_MS)})::int AS verified_48h,
      count(*) FILTER (WHERE ${LIVE} AND j.last_verified_at >= ${at(7 * 24 * HOUR_MS)})::int AS verified_7d
    FROM jobs j`.execute(db);
  const c = result.rows[0]!;
  const live = c.live;
  const rates: Record<string, number> = {};
  for (const code of FX_CURRENCIES) rates[code] = fx.eurPerUnit[code];
  return {
    measured_at: now.toISOString(),
    ledger_rows: c.ledger_rows,
    live_listings: live,
    withheld_listings: c.withheld,
    closed_listings: c.closed,
    closures: {
      last_24h: c.closed_24h,
      last_7d: c.closed_7d,
      total: c.closed,
      reasons: [...CLOSED_REASONS],
      by_reason: { expired_upstream: c.closed_expired_upstream, not_seen: c.closed_not_seen },
      retention: 'Closed rows are kept indefinitely with closed_at and closed_reason; they are served by /v1/jobs/closed, /v1/jobs/expired and status=closed|any.',
      note: 'expired_upstream: the source proved the vacancy dead (an expiry date passed or the posting page is gone); not_seen: consecutive good crawls of its board no longer listed it. A failed or empty crawl never closes a row.',
    },
    field_coverage: {
      description: c.description,
      description_pct: pct(c.description, live),
      employment_type: c.employment_type,
      employment_type_pct: pct(c.employment_type, live),
      remote_inferred: c.remote_inferred,
      remote_inferred_pct: pct(c.remote_inferred, live),
      remote_published: c.remote_published,
      remote_published_pct: pct(c.remote_published, live),
      salary_published: c.salary_published,
      salary_published_pct: pct(c.salary_published, live),
      note: 'Counts of live rows carrying each field; percentages of live_listings, one decimal. remote_* split a known remote value by provenance; salary_published counts salaries the source stated in structured form (salaries read from the advert text are labelled inferred and not counted here).',
    },
    verification: {
      newest_verification: isoOrNull(c.newest),
      oldest_verification: isoOrNull(c.oldest),
      reverified_last_hour: c.verified_1h,
      reverified_last_hour_pct: pct(c.verified_1h, live),
      reverified_last_24h: c.verified_24h,
      reverified_last_24h_pct: pct(c.verified_24h, live),
      reverified_last_48h: c.verified_48h,
      reverified_last_48h_pct: pct(c.verified_48h, live),
      reverified_last_7d: c.verified_7d,
      reverified_last_7d_pct: pct(c.verified_7d, live),
      note: 'Live rows whose last_verified_at (the last successful sighting at the source, including an unchanged 304 answer for the whole board) falls within each window before measured_at; percentages of live_listings.',
    },
    salary_normalisation: {
      assumptions: SALARY_NORMALISATION_ASSUMPTIONS,
      note: 'salary_min_annual_eur = salary_min x periods per year x EUR per unit, rounded to cents. Rates are indicative ECB euro reference rates (AED through its US dollar peg of 3.6725), for filtering and comparison only, not settlement rates. A period or currency outside these is never guessed: the result is null.',
      rates_as_of: fx.asOf,
      rates_eur_per_unit: rates,
    },
    population_note:
      'ledger_rows = live_listings + withheld_listings + closed_listings exactly. live_listings: not closed and not withheld (it includes rows posted by a staffing agency or a job board, which /v1/jobs serves only with include_poster_type). withheld_listings: present but not served (quality_removed, quality_gated, optout_hidden).',
    refresh_note: `Measured by a background refresh every ${refreshSeconds} s; age_seconds is the snapshot's age when this response was generated, and stale is true once it is older than ${refreshSeconds * 2} s (a refresh was missed).`,
  };
}
