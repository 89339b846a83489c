/**
 * The scheduled fetch of the ECB euro reference rates (issue 15 class 5: the bundled rates alone
 * froze `salary_*_annual_eur` and the freshness report months in the past).
 *
 * Every `JOBLEDGER_FX_REFRESH_SECONDS` one process of the cluster (the `fx-refresh` chore,
 * src/chores/chores.ts) GETs `JOBLEDGER_FX_URL` (the ECB's `eurofxref-daily.xml`) through the guarded
 * fetcher and stores the days in `fx_rates` (history, never overwritten); every crawl worker rebuilds
 * its current rates from the newest stored day of each currency over the bundled history
 * ({@link currentFxRates}, {@link followFxRates}). A failed fetch or a document that is not the ECB's
 * shape changes nothing: the previous rates stay in use and one `warn` line says why.
 */
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import { loadFxRates, parseEcbXml, ratesFromEcbDays, type FxRates } from '../enrich/fx.ts';
import { latestFxDays, saveFxDays } from '../store/fx-rates.ts';
import type { DB } from '../store/schema.ts';
import { FetchError, type Fetcher } from './fetcher.ts';

/**
 * The rates to use now: the newest stored ECB rate of each currency, the bundled history's for any
 * currency never fetched; exactly the bundled rates while `fx_rates` is empty.
 * @param fallback the bundled rates (default {@link loadFxRates}).
 * @throws the database's error.
 */
export async function currentFxRates(db: Kysely<DB>, fallback: FxRates = loadFxRates()): Promise<FxRates> {
  return ratesFromEcbDays(await latestFxDays(db), fallback);
}

/** What one fetch did. */
export type FxRefreshOutcome =
  | { ok: true; rates: FxRates; days: number; inserted: number }
  | { ok: false; reason: string };

/**
 * Fetch `url` once, store its days and return the current rates.
 *
 * Never throws for an upstream failure (blocked, timeout, HTTP status, not ECB XML): that is
 * `{ ok: false, reason }`, logged at `warn`, with nothing stored. A database error is thrown.
 */
export async function refreshFxRates(
  db: Kysely<DB>,
  fetcher: Fetcher,
  url: string,
  log: Logger,
  now: Date = new Date(),
  fallback: FxRates = loadFxRates(),
): Promise<FxRefreshOutcome> {
  let days;
  try {
    const response = await fetcher.get(url);
    days = parseEcbXml(response.body.toString('utf8'));
  } catch (error) {
    const reason = error instanceof FetchError ? `${error.kind}${error.status ? ` ${error.status}` : ''}: ${error.message}` : (error as Error).message;
    log.warn({ url, reason }, 'ECB rate fetch failed; the rates in use are unchanged');
    return { ok: false, reason };
  }
  const inserted = await saveFxDays(db, days, url, now);
  const rates = await currentFxRates(db, fallback);
  log.info({ url, days: days.length, inserted, rates_as_of: rates.asOf }, 'ECB rates fetched');
  return { ok: true, rates, days: days.length, inserted };
}

/** A running follower; `stop` waits for a read in flight. */
export interface FxFollower {
  stop(): Promise<void>;
}

/**
 * Read the current rates from the database now and every `everySeconds`, calling `onRates` whenever
 * they differ from the last ones handed over (`asOf` or `source` changed). The fetch itself is the
 * cluster's `fx-refresh` chore; this only follows what it stored, so twenty workers read one row set
 * instead of fetching the ECB twenty times. Errors are logged, never thrown; the rates in use stay.
 */
export function followFxRates(options: { db: Kysely<DB>; everySeconds: number; log: Logger; current: FxRates; onRates: (rates: FxRates) => void }): FxFollower {
  const { db, everySeconds, log, onRates } = options;
  let last = options.current;
  let running: Promise<void> | undefined;
  let stopped = false;
  const tick = (): void => {
    if (running || stopped) return;
    running = currentFxRates(db)
      .then((rates) => {
        if (stopped || (rates.asOf === last.asOf && rates.source === last.source)) return;
        last = rates;
        log.info({ rates_as_of: rates.asOf }, 'exchange rates updated from the stored ECB days');
        onRates(rates);
      })
      .catch((err: unknown) => log.warn({ err }, 'reading the stored exchange rates failed; the rates in use are unchanged'))
      .finally(() => {
        running = undefined;
      });
  };
  const timer = setInterval(tick, everySeconds * 1000);
  timer.unref();
  return {
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running;
    },
  };
}
