/**
 * Report snapshots (ARCHITECTURE: the worker "refreshes report snapshots"): each report is computed
 * from the ledger by {@link refreshReports} and stored in `report_snapshots`; the API serves the stored
 * body with its age. A report that has never been measured is measured on first request.
 */
import type { Kysely } from 'kysely';
import { loadFxRates, ratesAgeDays, ratesFromEcbDays, type FxRates } from '../enrich/fx.ts';
import { latestFxDays } from '../store/fx-rates.ts';
import { readReportSnapshot, saveReportSnapshot } from '../store/report-snapshots.ts';
import type { DB } from '../store/schema.ts';
import { computeCountries, computeCoverage, computeEmployers } from './coverage.ts';
import { computeFreshness } from './freshness.ts';
import { computeStats } from './stats.ts';

/** Every report kept as a snapshot. */
export const REPORT_NAMES = ['freshness', 'coverage', 'coverage_countries', 'coverage_employers', 'stats'] as const;
export type ReportName = (typeof REPORT_NAMES)[number];

/** Default seconds between refreshes (config JOBLEDGER_REPORT_REFRESH_SECONDS). */
const DEFAULT_REFRESH_SECONDS = 900;

export interface ReportSettings {
  /**
   * The bundled indicative rates: the freshness report publishes the newest fetched ECB rate of each
   * currency (`fx_rates`) over these.
   */
  fx: FxRates;
  /**
   * Set while the ECB rates are fetched (config JOBLEDGER_FX_MAX_AGE_DAYS): the freshness report is
   * also stale once its `rates_as_of` is more than this many days old. Unset: rates never make it stale
   * (the demo serves the bundled history on purpose).
   */
  fxMaxAgeDays?: number;
  /** Seconds between refreshes; a snapshot older than twice this is stale. */
  refreshSeconds: number;
}

export function defaultReportSettings(refreshSeconds = DEFAULT_REFRESH_SECONDS, fxMaxAgeDays?: number): ReportSettings {
  return fxMaxAgeDays === undefined ? { fx: loadFxRates(), refreshSeconds } : { fx: loadFxRates(), refreshSeconds, fxMaxAgeDays };
}

/**
 * True when `settings.fxMaxAgeDays` is set and the freshness body's `salary_normalisation.rates_as_of`
 * is more than that many days before `now` (whole UTC days, {@link ratesAgeDays}).
 */
export function ratesAreStale(data: Record<string, unknown>, now: Date, settings: ReportSettings): boolean {
  if (settings.fxMaxAgeDays === undefined) return false;
  const asOf = (data['salary_normalisation'] as { rates_as_of?: unknown } | undefined)?.rates_as_of;
  return typeof asOf === 'string' && ratesAgeDays(asOf, now) > settings.fxMaxAgeDays;
}

/** Measure one report at `now`. */
async function computeReport(db: Kysely<DB>, name: ReportName, now: Date, settings: ReportSettings): Promise<{ measured_at: string }> {
  switch (name) {
    case 'freshness':
      return computeFreshness(db, now, ratesFromEcbDays(await latestFxDays(db), settings.fx), settings.refreshSeconds);
    case 'coverage':
      return computeCoverage(db, now);
    case 'coverage_countries':
      return computeCountries(db, now);
    case 'coverage_employers':
      return computeEmployers(db, now);
    case 'stats':
      return computeStats(db, now);
  }
}

async function measureAndStore(db: Kysely<DB>, name: ReportName, now: Date, settings: ReportSettings): Promise<StoredReport> {
  const started = performance.now();
  const data = await computeReport(db, name, now, settings);
  const duration_ms = Math.round(performance.now() - started);
  await saveReportSnapshot(db, { name, data: JSON.stringify(data), measuredAt: now, durationMs: duration_ms });
  return { data: data as Record<string, unknown>, measuredAt: now };
}

/**
 * Measure every report at `now` and replace its snapshot. The entry point of the periodic refresh
 * (the worker's job; `serve` runs it on a timer while no separate worker exists).
 * @returns milliseconds each report took.
 */
export async function refreshReports(db: Kysely<DB>, now: Date, settings: ReportSettings = defaultReportSettings()): Promise<Record<ReportName, number>> {
  const took = {} as Record<ReportName, number>;
  for (const name of REPORT_NAMES) {
    const started = performance.now();
    await measureAndStore(db, name, now, settings);
    took[name] = Math.round(performance.now() - started);
  }
  return took;
}

export interface StoredReport {
  data: Record<string, unknown>;
  measuredAt: Date;
}

/** A report as served: the snapshot plus its age at `now` (spec: measured_at, age_seconds, stale). */
export interface ServedReport {
  data: Record<string, unknown>;
  measuredAt: Date;
  ageSeconds: number;
  stale: boolean;
}

/** Reads snapshots for the API; measures a report on demand when it has no snapshot yet. */
export interface ReportReader {
  read(name: ReportName, now?: Date): Promise<ServedReport>;
  settings: ReportSettings;
}

/**
 * The report reader over `db`. Snapshot rows are read from `reader` (a read replica when there is one);
 * a report with no snapshot yet is measured and stored on `db`, the primary.
 */
export function createReportReader(db: Kysely<DB>, settings: ReportSettings, reader: Kysely<DB> = db): ReportReader {
  // One on-demand measurement per report at a time, however many requests arrive together.
  const pending = new Map<ReportName, Promise<StoredReport>>();
  const onDemand = (name: ReportName): Promise<StoredReport> => {
    let p = pending.get(name);
    if (!p) {
      p = measureAndStore(db, name, new Date(), settings).finally(() => pending.delete(name));
      pending.set(name, p);
    }
    return p;
  };
  return {
    settings,
    async read(name, now = new Date()) {
      const row = await readReportSnapshot(reader, name);
      const stored: StoredReport = row ? { data: row.data as Record<string, unknown>, measuredAt: row.measured_at } : await onDemand(name);
      const ageSeconds = Math.max(0, Math.floor((now.getTime() - stored.measuredAt.getTime()) / 1000));
      const stale = ageSeconds > 2 * settings.refreshSeconds || (name === 'freshness' && ratesAreStale(stored.data, now, settings));
      return { data: stored.data, measuredAt: stored.measuredAt, ageSeconds, stale };
    },
  };
}
