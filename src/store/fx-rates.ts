/**
 * The history of fetched ECB euro reference rates (table `fx_rates`, migration 017): one row per day
 * and currency, units of the currency per 1 EUR, as the ECB publishes them.
 */
import type { Kysely } from 'kysely';
import type { DB } from './schema.ts';

/** One ECB day: its date (`YYYY-MM-DD`) and units of each currency per 1 EUR. */
export interface FxDayRow {
  date: string;
  unitsPerEur: Record<string, number>;
}

/**
 * Store fetched days. A day already stored keeps its first figures (the ECB does not revise them);
 * new days and currencies are added.
 * @returns rows inserted.
 * @throws the database's error.
 */
export async function saveFxDays(db: Kysely<DB>, days: readonly FxDayRow[], sourceUrl: string, fetchedAt: Date): Promise<number> {
  const values = days.flatMap((day) =>
    Object.entries(day.unitsPerEur).map(([currency, rate]) => ({ rate_date: day.date, currency, units_per_eur: String(rate), source_url: sourceUrl, fetched_at: fetchedAt })),
  );
  if (values.length === 0) return 0;
  const result = await db.insertInto('fx_rates').values(values).onConflict((oc) => oc.columns(['currency', 'rate_date']).doNothing()).executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0);
}

/**
 * The latest stored rate of every currency, grouped by date: what the current rates are built from.
 * @returns days in ascending date order (each day holding the currencies whose latest rate it is);
 *          empty when nothing was ever fetched.
 */
export async function latestFxDays(db: Kysely<DB>): Promise<FxDayRow[]> {
  const rows = await db
    .selectFrom('fx_rates')
    .select(['currency', 'units_per_eur'])
    .select((eb) => eb.fn<string>('to_char', [eb.ref('rate_date'), eb.val('YYYY-MM-DD')]).as('date'))
    .distinctOn('currency')
    .orderBy('currency')
    .orderBy('rate_date', 'desc')
    .execute();
  const byDate = new Map<string, Record<string, number>>();
  for (const row of rows) {
    const day = byDate.get(row.date) ?? {};
    day[row.currency] = Number(row.units_per_eur);
    byDate.set(row.date, day);
  }
  return [...byDate.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([date, unitsPerEur]) => ({ date, unitsPerEur }));
}
