/**
 * Indicative exchange rates and the annual-EUR conversion behind `salary_min_annual_eur`.
 *
 * Spec: Resources › Job.salary_min_annual_eur ("salary_min converted to annual EUR. Null when the
 * period or currency is unrecognised; never guessed. Uses the indicative rates from the freshness
 * report") and Freshness report › salary_normalisation (`assumptions`, `rates_as_of`,
 * `rates_eur_per_unit` keyed by the 26 codes below).
 *
 * Rates come from the bundled ECB reference-rate history (`fixtures/fx/eurofxref-hist.zip`, see its
 * NOTICE.md): a CSV of *units of currency per 1 EUR*, one row per business day, one column per
 * currency, `N/A` or empty where a currency has no rate. This is the only I/O in src/enrich.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { resolve } from 'node:path';
import { strFromU8, unzipSync } from 'fflate';
import { Parser } from 'htmlparser2';
import { PERIODS_PER_YEAR, type SalaryPeriod } from '../domain/vocabulary.ts';

/** The currencies the freshness report publishes rates for (spec: Freshness report, rates_eur_per_unit). */
export const FX_CURRENCIES = [
  'AED', 'AUD', 'BRL', 'CAD', 'CHF', 'CZK', 'DKK', 'EUR', 'GBP', 'HKD', 'HUF', 'ILS', 'INR', 'JPY', 'MXN', 'MYR',
  'NOK', 'NZD', 'PHP', 'PLN', 'RON', 'SEK', 'SGD', 'TRY', 'USD', 'ZAR',
] as const;
/** One of the 26 ISO 4217 codes with a published indicative rate. */
export type FxCurrency = (typeof FX_CURRENCIES)[number];

/**
 * UAE dirhams per US dollar: the dirham's fixed peg (Central Bank of the UAE). The ECB publishes no
 * AED rate, so EUR per AED = EUR per USD / 3.6725.
 */
export const AED_PER_USD = 3.6725;

/** Where a snapshot of rates came from: the bundled history file, or days fetched from the ECB. */
export type FxRatesSource = 'bundled' | 'ecb';

/** A snapshot of indicative rates. */
export interface FxRates {
  /** `YYYY-MM-DD`: the latest date in the source on which any of the currencies has a rate. */
  asOf: string;
  /** Where the rates came from; absent means the bundled file. */
  source?: FxRatesSource;
  /**
   * EUR per one unit of each currency (the inverse of the ECB's units per EUR), taken from the latest
   * date that has a rate for that currency; `EUR` is exactly 1. Full double precision, unrounded.
   */
  eurPerUnit: Readonly<Record<FxCurrency, number>>;
}

/** The bundled ECB file, resolved from this module so it works from any working directory. */
export const DEFAULT_FX_ZIP_PATH = fileURLToPath(new URL('../../fixtures/fx/eurofxref-hist.zip', import.meta.url));

/**
 * Salary normalisation assumptions exactly as the freshness report states them (spec: Freshness report
 * › salary_normalisation.assumptions). The multipliers themselves live in PERIODS_PER_YEAR.
 */
export const SALARY_NORMALISATION_ASSUMPTIONS = {
  days_per_year: PERIODS_PER_YEAR.daily,
  hours_per_year: PERIODS_PER_YEAR.hourly,
  weeks_per_year: PERIODS_PER_YEAR.weekly,
  unknown_period_or_currency: 'salary_min_annual_eur is null',
} as const;

const FX_SET: ReadonlySet<string> = new Set(FX_CURRENCIES);

/** True when `code` is one of the 26 currencies with a published rate. */
export function isFxCurrency(code: string): code is FxCurrency {
  return FX_SET.has(code);
}

const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/;

/**
 * Parse the ECB history CSV (header `Date,USD,JPY,...`, possibly a trailing comma) into rates.
 *
 * Rows are not assumed to be sorted: for each currency the row with the greatest date that has a
 * positive number wins. `N/A`, empty and non-numeric cells are skipped.
 *
 * @param csv the text of `eurofxref-hist.csv`.
 * @throws Error when the file has no dated rows or lacks any of the 25 ECB currencies (the bundled
 *         file is broken and no salary should be converted with it).
 */
export function parseEcbCsv(csv: string): FxRates {
  const lines = csv.split(/\r?\n/).filter((l) => l.trim().length > 0);
  const header = (lines[0] ?? '').split(',').map((h) => h.trim());
  if (header[0] !== 'Date') throw new Error('ECB rates: the CSV does not start with a Date column');
  const latest = new Map<string, { date: string; unitsPerEur: number }>();
  let asOf = '';
  for (const line of lines.slice(1)) {
    const cells = line.split(',');
    const date = (cells[0] ?? '').trim();
    if (!ISO_DATE.test(date)) continue;
    let dateHasData = false;
    for (let c = 1; c < header.length; c++) {
      const code = header[c];
      if (!code || !isFxCurrency(code)) continue;
      const cell = (cells[c] ?? '').trim();
      const value = Number(cell);
      if (!cell || !Number.isFinite(value) || value <= 0) continue;
      dateHasData = true;
      const known = latest.get(code);
      if (!known || date > known.date) latest.set(code, { date, unitsPerEur: value });
    }
    if (dateHasData && date > asOf) asOf = date;
  }
  if (!asOf) throw new Error('ECB rates: no dated rows with data');
  const fromEcb = (code: FxCurrency): number => {
    const rate = latest.get(code);
    if (!rate) throw new Error(`ECB rates: no rate for ${code}`);
    return 1 / rate.unitsPerEur;
  };
  // Built in FX_CURRENCIES order so the freshness report lists the codes alphabetically.
  const eurPerUnit = {} as Record<FxCurrency, number>;
  for (const code of FX_CURRENCIES) {
    eurPerUnit[code] = code === 'EUR' ? 1 : code === 'AED' ? fromEcb('USD') / AED_PER_USD : fromEcb(code);
  }
  return Object.freeze({ asOf, eurPerUnit: Object.freeze(eurPerUnit) });
}

const cache = new Map<string, FxRates>();

/**
 * Load the rates from an ECB history zip (the first `.csv` entry inside it).
 *
 * The parsed result is cached per resolved path for the life of the process, so callers may call this
 * per posting; a refreshed file needs a new process (or a different path).
 *
 * @param zipPath path to the zip; defaults to the bundled `fixtures/fx/eurofxref-hist.zip`.
 * @returns `{ asOf: 'YYYY-MM-DD', eurPerUnit }` for exactly the 26 {@link FX_CURRENCIES}.
 * @throws Error when the file cannot be read, holds no CSV, or lacks a currency.
 */
export function loadFxRates(zipPath: string = DEFAULT_FX_ZIP_PATH): FxRates {
  const path = resolve(zipPath);
  const cached = cache.get(path);
  if (cached) return cached;
  const entries = unzipSync(readFileSync(path), { filter: (file) => file.name.toLowerCase().endsWith('.csv') });
  const [csv] = Object.values(entries);
  if (!csv) throw new Error(`ECB rates: no CSV inside ${path}`);
  const rates = parseEcbCsv(strFromU8(csv));
  cache.set(path, rates);
  return rates;
}

/**
 * Convert an amount stated per `period` in `currency` to EUR per year.
 *
 * amount × PERIODS_PER_YEAR[period] (annual 1, monthly 12, weekly 52, daily 260, hourly 2080; spec:
 * salary_normalisation.assumptions) × EUR per unit, rounded to cents (2 decimals, half away from zero
 * on the binary value: `Math.round(x * 100) / 100`). Cents, because the figure is only ever compared
 * and filtered on, and more digits would suggest a precision the indicative rates do not have.
 *
 * @param amount  a finite number in the source's currency and period.
 * @param period  one of the stored salary periods.
 * @param currency ISO 4217 code, matched case-insensitively.
 * @returns EUR per year, or null when the currency has no published rate or the amount is not finite
 *          (spec: "never guessed").
 */
export function toAnnualEur(amount: number, period: SalaryPeriod, currency: string, fx: FxRates): number | null {
  const code = currency.trim().toUpperCase();
  const multiplier = PERIODS_PER_YEAR[period];
  if (!isFxCurrency(code) || !Number.isFinite(amount) || multiplier === undefined) return null;
  const eur = amount * multiplier * fx.eurPerUnit[code];
  if (!Number.isFinite(eur)) return null;
  return Math.sign(eur) * Math.round(Math.abs(eur) * 100) / 100;
}

/** One ECB reference-rate day: its date and units of each currency per 1 EUR (as the ECB states them). */
export interface EcbDay {
  /** `YYYY-MM-DD`. */
  date: string;
  unitsPerEur: Record<string, number>;
}

/**
 * Parse the ECB's euro reference-rate XML: `eurofxref-daily.xml` (one day) or `eurofxref-hist-90d.xml`
 * / `eurofxref-hist.xml` (many), all of the documented shape
 * `<gesmes:Envelope><Cube><Cube time="YYYY-MM-DD"><Cube currency="USD" rate="1.0876"/>…</Cube></Cube>`
 * (www.ecb.europa.eu/stats/policy_and_exchange_rates/euro_reference_exchange_rates). Read with
 * htmlparser2 in XML mode; currencies outside {@link FX_CURRENCIES} are kept (the history is the ECB's),
 * rates that are not positive numbers are skipped.
 *
 * @returns the days in ascending date order.
 * @throws Error when the document holds no dated Cube with a rate (an error page, a changed format).
 */
export function parseEcbXml(xml: string): EcbDay[] {
  const days = new Map<string, Record<string, number>>();
  let current: Record<string, number> | undefined;
  const parser = new Parser(
    {
      onopentag(name, attributes) {
        if (name.toLowerCase() !== 'cube') return;
        const time = attributes['time'];
        if (time !== undefined) {
          if (!ISO_DATE.test(time)) throw new Error(`ECB rates: a Cube has the date "${time.slice(0, 20)}", not YYYY-MM-DD`);
          current = days.get(time) ?? {};
          days.set(time, current);
          return;
        }
        const currency = attributes['currency']?.trim().toUpperCase();
        const rate = Number(attributes['rate']);
        if (current && currency && /^[A-Z]{3}$/.test(currency) && Number.isFinite(rate) && rate > 0) current[currency] = rate;
      },
    },
    { xmlMode: true, decodeEntities: true },
  );
  parser.write(xml);
  parser.end();
  const out = [...days.entries()].filter(([, rates]) => Object.keys(rates).length > 0).sort(([a], [b]) => a.localeCompare(b));
  if (out.length === 0) throw new Error('ECB rates: the document holds no dated rates');
  return out.map(([date, unitsPerEur]) => ({ date, unitsPerEur }));
}

/**
 * Build the current rates from ECB days, falling back to `fallback` for any currency the days lack.
 *
 * For each of the {@link FX_CURRENCIES} the latest day with a rate wins (AED through the dollar peg,
 * EUR exactly 1). `asOf` is the latest day that gave any rate; when no day gave one, `fallback` is
 * returned as it is.
 */
export function ratesFromEcbDays(days: readonly EcbDay[], fallback: FxRates): FxRates {
  const latest = new Map<string, { date: string; unitsPerEur: number }>();
  let asOf = '';
  for (const day of days) {
    for (const [code, value] of Object.entries(day.unitsPerEur)) {
      if (!isFxCurrency(code) || !(value > 0)) continue;
      const known = latest.get(code);
      if (!known || day.date > known.date) latest.set(code, { date: day.date, unitsPerEur: value });
      if (day.date > asOf) asOf = day.date;
    }
  }
  if (!asOf) return fallback;
  const eurPerUnit = {} as Record<FxCurrency, number>;
  const usd = latest.get('USD');
  for (const code of FX_CURRENCIES) {
    const rate = latest.get(code);
    eurPerUnit[code] =
      code === 'EUR' ? 1 : code === 'AED' ? (usd ? 1 / usd.unitsPerEur / AED_PER_USD : fallback.eurPerUnit.AED) : rate ? 1 / rate.unitsPerEur : fallback.eurPerUnit[code];
  }
  return Object.freeze({ asOf, source: 'ecb' as const, eurPerUnit: Object.freeze(eurPerUnit) });
}

/**
 * Whole days between `asOf` (`YYYY-MM-DD`, a publication day) and `now`, counted from the end of the
 * publication day in UTC: 0 on the day itself.
 */
export function ratesAgeDays(asOf: string, now: Date): number {
  const published = Date.parse(`${asOf}T00:00:00Z`);
  return Math.max(0, Math.floor((now.getTime() - published) / 86_400_000));
}
