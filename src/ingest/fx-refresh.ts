/**
 * The scheduled fetch of the ECB euro reference rates (issue 15 class 5: the bundled rates alone
 * froze `salary_*_annual_eur` and the freshness report months in the past).
 *
 * Every `JOBLEDGER_FX_REFRESH_SECONDS` the worker GETs `JOBLEDGER_FX_URL` (the ECB's
 * `eurofxref-daily.xml`) through the guarded fetcher, stores the days in `fx_rates` (history, never
 * overwritten) and rebuilds the current rates from the newest stored day of each currency over the
 * bundled history ({@link currentFxRates}). A failed fetch or a document that is not the ECB's shape
 * changes nothing: the previous rates stay in use and one `warn` line says why.
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

/** A running schedule; `stop` waits for a fetch in flight. */
export interface FxRefresher {
  stop(): Promise<void>;
}

/**
 * Fetch now, then every `refreshSeconds`, calling `onRates` with the current rates after each
 * successful fetch. One fetch at a time; errors (the database's included) are logged, never thrown.
 */
export function startFxRefresh(options: {
  db: Kysely<DB>;
  fetcher: Fetcher;
  url: string;
  refreshSeconds: number;
  log: Logger;
  onRates: (rates: FxRates) => void;
}): FxRefresher {
  const { db, fetcher, url, refreshSeconds, log, onRates } = options;
  let running: Promise<void> | undefined;
  let stopped = false;
  const tick = (): void => {
    if (running || stopped) return;
    running = refreshFxRates(db, fetcher, url, log)
      .then((outcome) => {
        if (outcome.ok && !stopped) onRates(outcome.rates);
      })
      .catch((err: unknown) => log.error({ err }, 'storing the ECB rates failed; the rates in use are unchanged'))
      .finally(() => {
        running = undefined;
      });
  };
  tick();
  const timer = setInterval(tick, refreshSeconds * 1000);
  timer.unref();
  log.info({ url, refreshSeconds }, 'ECB rate refresh scheduled');
  return {
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running;
    },
  };
}
