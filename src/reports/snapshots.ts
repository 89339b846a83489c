/**
 * Report snapshots (ARCHITECTURE: the worker "refreshes report snapshots"): each report is computed
 * from the ledger by {@link refreshReports} and stored in `report_snapshots`; the API serves the stored
 * body with its age. A report that has never been measured is measured on first request.
 */
import type { Kysely } from 'kysely';
import { loadFxRates, type FxRates } from '../enrich/fx.ts';
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
  /** Indicative rates published by the freshness report. */
  fx: FxRates;
  /** Seconds between refreshes; a snapshot older than twice this is stale. */
  refreshSeconds: number;
}

export function defaultReportSettings(refreshSeconds = DEFAULT_REFRESH_SECONDS): ReportSettings {
  return { fx: loadFxRates(), refreshSeconds };
}

/** Measure one report at `now`. */
async function computeReport(db: Kysely<DB>, name: ReportName, now: Date, settings: ReportSettings): Promise<{ measured_at: string }> {
  switch (name) {
    case 'freshness':
      return computeFreshness(db, now, settings.fx, settings.refreshSeconds);
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

export function createReportReader(db: Kysely<DB>, settings: ReportSettings): ReportReader {
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
      const row = await readReportSnapshot(db, name);
      const stored: StoredReport = row ? { data: row.data as Record<string, unknown>, measuredAt: row.measured_at } : await onDemand(name);
      const ageSeconds = Math.max(0, Math.floor((now.getTime() - stored.measuredAt.getTime()) / 1000));
      return { data: stored.data, measuredAt: stored.measuredAt, ageSeconds, stale: ageSeconds > 2 * settings.refreshSeconds };
    },
  };
}
