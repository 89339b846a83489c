import { describe, expect, it } from 'vitest';
import { AED_PER_USD, FX_CURRENCIES, SALARY_NORMALISATION_ASSUMPTIONS, loadFxRates, parseEcbCsv, toAnnualEur } from './fx.ts';

// The bundled fixtures/fx/eurofxref-hist.zip: its latest row (read by hand with `unzip -p ... | sed -n 2p`) is
// 2026-04-13 with USD 1.1684, JPY 186.75, GBP 0.87058, MYR 4.6444, PHP 70.356, CAD 1.6177 units per EUR.
describe('loadFxRates (bundled ECB file)', () => {
  const fx = loadFxRates();

  it('is as of the latest date in the file', () => {
    expect(fx.asOf).toBe('2026-04-13');
  });

  it('has exactly the 26 currencies of the freshness report, in alphabetical order', () => {
    expect(Object.keys(fx.eurPerUnit)).toEqual([...FX_CURRENCIES]);
    expect(FX_CURRENCIES).toHaveLength(26);
  });

  it('inverts the ECB units-per-EUR of the latest row', () => {
    expect(fx.eurPerUnit.EUR).toBe(1);
    expect(fx.eurPerUnit.USD).toBeCloseTo(1 / 1.1684, 12);
    expect(fx.eurPerUnit.JPY).toBeCloseTo(1 / 186.75, 12);
    expect(fx.eurPerUnit.GBP).toBeCloseTo(1 / 0.87058, 12);
    expect(fx.eurPerUnit.MYR).toBeCloseTo(1 / 4.6444, 12);
    expect(fx.eurPerUnit.PHP).toBeCloseTo(1 / 70.356, 12);
    expect(fx.eurPerUnit.CAD).toBeCloseTo(1 / 1.6177, 12);
  });

  it('derives AED from USD and the 3.6725 peg (the ECB has no AED rate)', () => {
    expect(AED_PER_USD).toBe(3.6725);
    expect(fx.eurPerUnit.AED).toBeCloseTo(1 / 1.1684 / 3.6725, 12);
  });

  it('caches the parsed file per path', () => {
    expect(loadFxRates()).toBe(fx);
  });
});

describe('toAnnualEur', () => {
  const fx = loadFxRates();

  it('converts a yearly USD salary (ramp.json "Customer Experience Agent", USD 48,000–70,000 / year)', () => {
    const expected = Math.round(70000 * fx.eurPerUnit.USD * 100) / 100;
    expect(toAnnualEur(70000, 'annual', 'USD', fx)).toBe(expected);
    expect(expected).toBe(59910.99); // 70000 / 1.1684
    expect(toAnnualEur(48000, 'annual', 'USD', fx)).toBe(Math.round(48000 * fx.eurPerUnit.USD * 100) / 100);
  });

  it('converts a monthly MYR salary (bjakcareer.json "Talent Acquisition Executive", MYR 3,500–6,000 / month)', () => {
    const expected = Math.round(3500 * 12 * fx.eurPerUnit.MYR * 100) / 100;
    expect(toAnnualEur(3500, 'monthly', 'MYR', fx)).toBe(expected);
    expect(expected).toBe(9043.15); // 3500 × 12 / 4.6444
  });

  it('converts an hourly USD wage with 2080 hours a year (Synergy%20Pet%20Group.json "Customer Care Specialist", USD 24–27 / hour)', () => {
    const expected = Math.round(24 * 2080 * fx.eurPerUnit.USD * 100) / 100;
    expect(toAnnualEur(24, 'hourly', 'USD', fx)).toBe(expected);
    expect(expected).toBe(42725.09); // 24 × 2080 / 1.1684
  });

  it('uses 52 weeks and 260 days a year', () => {
    expect(toAnnualEur(1000, 'weekly', 'EUR', fx)).toBe(52000);
    expect(toAnnualEur(100, 'daily', 'EUR', fx)).toBe(26000);
  });

  it('matches the currency case-insensitively', () => {
    expect(toAnnualEur(70000, 'annual', 'usd', fx)).toBe(59910.99);
  });

  it('is null for a currency without a published rate or an amount that is not finite', () => {
    expect(toAnnualEur(100000, 'annual', 'SAR', fx)).toBeNull();
    expect(toAnnualEur(100000, 'annual', 'CNY', fx)).toBeNull();
    expect(toAnnualEur(Number.NaN, 'annual', 'USD', fx)).toBeNull();
    expect(toAnnualEur(Number.POSITIVE_INFINITY, 'annual', 'USD', fx)).toBeNull();
  });
});

describe('parseEcbCsv', () => {
  const header = `Date,${['USD', 'JPY', 'BGN', 'CZK', 'DKK', 'GBP', 'HUF', 'PLN', 'RON', 'SEK', 'CHF', 'NOK', 'TRY', 'AUD', 'BRL', 'CAD', 'HKD', 'ILS', 'INR', 'MXN', 'MYR', 'NZD', 'PHP', 'SGD', 'ZAR'].join(',')},`;
  const row = (date: string, usd: string, bgn = 'N/A') => `${date},${usd},150,${bgn},25,7.45,0.85,390,4.3,5,11,0.95,11.5,40,1.6,6,1.5,9,4,95,20,4.9,1.8,64,1.45,20,`;

  it('takes each currency from the latest date that has it, whatever the row order', () => {
    const csv = [header, row('2026-01-02', '1.10'), row('2026-01-05', 'N/A'), row('2025-12-31', '1.20')].join('\n');
    const fx = parseEcbCsv(csv);
    expect(fx.asOf).toBe('2026-01-05');
    expect(fx.eurPerUnit.USD).toBeCloseTo(1 / 1.1, 12);
    expect(fx.eurPerUnit.AED).toBeCloseTo(1 / 1.1 / 3.6725, 12);
  });

  it('skips empty and non-numeric cells', () => {
    const csv = [header, row('2026-01-02', ''), row('2026-01-01', 'abc'), row('2025-12-30', '1.25')].join('\r\n');
    expect(parseEcbCsv(csv).eurPerUnit.USD).toBeCloseTo(0.8, 12);
  });

  it('refuses a file that lacks one of the currencies', () => {
    const csv = ['Date,USD,', '2026-01-02,1.1,'].join('\n');
    expect(() => parseEcbCsv(csv)).toThrow(/no rate for/);
  });

  it('refuses something that is not the ECB CSV', () => {
    expect(() => parseEcbCsv('<html></html>')).toThrow(/Date column/);
  });
});

describe('SALARY_NORMALISATION_ASSUMPTIONS', () => {
  it('states the spec assumptions for the freshness report', () => {
    expect(SALARY_NORMALISATION_ASSUMPTIONS).toEqual({
      days_per_year: 260,
      hours_per_year: 2080,
      weeks_per_year: 52,
      unknown_period_or_currency: 'salary_min_annual_eur is null',
    });
  });
});
