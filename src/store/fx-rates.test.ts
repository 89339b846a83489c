import { describe, expect, it } from 'vitest';
import { useTestDatabase } from '../../test/helpers/database.ts';
import { latestFxDays, saveFxDays } from './fx-rates.ts';

const URL_ = 'https://www.ecb.europa.eu/stats/eurofxref/eurofxref-daily.xml';

describe('fx_rates repository', () => {
  const t = useTestDatabase();

  it('is empty before any fetch', async () => {
    expect(await latestFxDays(t.db)).toEqual([]);
  });

  it('keeps every day as history, the first figures of a day, and serves the newest rate of each currency', async () => {
    const at = new Date('2026-11-24T15:30:00Z');
    expect(await saveFxDays(t.db, [{ date: '2026-11-23', unitsPerEur: { USD: 1.04, JPY: 160.5 } }], URL_, at)).toBe(2);
    // The same day again (a re-fetch) inserts nothing and changes nothing; a new day and currency are added.
    expect(
      await saveFxDays(
        t.db,
        [
          { date: '2026-11-23', unitsPerEur: { USD: 9.99 } },
          { date: '2026-11-24', unitsPerEur: { USD: 1.05, GBP: 0.8412 } },
        ],
        URL_,
        at,
      ),
    ).toBe(2);
    expect(await saveFxDays(t.db, [], URL_, at)).toBe(0);
    expect(await latestFxDays(t.db)).toEqual([
      { date: '2026-11-23', unitsPerEur: { JPY: 160.5 } },
      { date: '2026-11-24', unitsPerEur: { GBP: 0.8412, USD: 1.05 } },
    ]);
    const history = await t.db.selectFrom('fx_rates').select(['currency', 'units_per_eur', 'source_url']).where('currency', '=', 'USD').orderBy('rate_date').execute();
    expect(history).toEqual([
      { currency: 'USD', units_per_eur: 1.04, source_url: URL_ },
      { currency: 'USD', units_per_eur: 1.05, source_url: URL_ },
    ]);
  });
});
