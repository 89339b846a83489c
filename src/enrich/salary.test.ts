import { describe, expect, it } from 'vitest';
import { loadFxRates } from './fx.ts';
import { normalizeSalary, normalizeStructuredSalary, salaryProvenance } from './salary.ts';

const fx = loadFxRates();

describe('normalizeStructuredSalary', () => {
  it('keeps a yearly USD range and converts its minimum (ramp.json "Customer Experience Agent")', () => {
    expect(normalizeStructuredSalary({ min: 48000, max: 70000, currency: 'USD', period: 'annual' }, fx)).toEqual({
      min: 48000,
      max: 70000,
      currency: 'USD',
      period: 'annual',
      source: 'structured',
      minAnnualEur: Math.round(48000 * fx.eurPerUnit.USD * 100) / 100,
      maxAnnualEur: Math.round(70000 * fx.eurPerUnit.USD * 100) / 100,
    });
  });

  it('converts a monthly MYR range (bjakcareer.json) and an hourly USD range (Synergy%20Pet%20Group.json)', () => {
    expect(normalizeStructuredSalary({ min: 3500, max: 6000, currency: 'MYR', period: 'monthly' }, fx)?.minAnnualEur).toBe(9043.15);
    expect(normalizeStructuredSalary({ min: 24, max: 27, currency: 'USD', period: 'hourly' }, fx)?.minAnnualEur).toBe(42725.09);
    // salary_max_annual_eur: the same rule on the maximum (6,000 MYR x 12; 27 USD x 2,080 hours).
    expect(normalizeStructuredSalary({ min: 3500, max: 6000, currency: 'MYR', period: 'monthly' }, fx)?.maxAnnualEur).toBe(Math.round(6000 * 12 * fx.eurPerUnit.MYR * 100) / 100);
    expect(normalizeStructuredSalary({ min: 24, max: 27, currency: 'USD', period: 'hourly' }, fx)?.maxAnnualEur).toBe(Math.round(27 * 2080 * fx.eurPerUnit.USD * 100) / 100);
  });

  it('keeps a salary whose period has no yearly equivalent but never converts it (silver.json "1 TIME" → period null)', () => {
    expect(normalizeStructuredSalary({ min: 60, max: 60, currency: 'USD', period: null }, fx)).toEqual({
      min: 60,
      max: 60,
      currency: 'USD',
      source: 'structured',
      minAnnualEur: null,
      maxAnnualEur: null,
    });
  });

  it('keeps a currency without a published rate, with a null annual figure (sully-ai.json SAR monthly)', () => {
    expect(normalizeStructuredSalary({ min: 70000, max: 100000, currency: 'SAR', period: 'monthly' }, fx)).toMatchObject({ currency: 'SAR', minAnnualEur: null, maxAnnualEur: null });
  });

  it('upper-cases the currency and drops one that is not three letters', () => {
    expect(normalizeStructuredSalary({ min: 1, currency: ' eur ', period: 'annual' }, fx)?.currency).toBe('EUR');
    const noCurrency = normalizeStructuredSalary({ min: 50000, currency: 'US$', period: 'annual' }, fx);
    expect(noCurrency).toEqual({ min: 50000, period: 'annual', source: 'structured', minAnnualEur: null, maxAnnualEur: null });
  });

  it('drops a salary with no positive finite amount', () => {
    expect(normalizeStructuredSalary(undefined, fx)).toBeUndefined();
    expect(normalizeStructuredSalary({ period: 'annual', currency: 'USD' }, fx)).toBeUndefined();
    expect(normalizeStructuredSalary({ min: 0, max: 0, currency: 'USD', period: 'annual' }, fx)).toBeUndefined();
    expect(normalizeStructuredSalary({ min: -5, max: Number.NaN, currency: 'USD', period: 'annual' }, fx)).toBeUndefined();
  });

  it('keeps a max-only salary, with no minimum to convert but its maximum converted', () => {
    expect(normalizeStructuredSalary({ min: 0, max: 150000, currency: 'USD', period: 'annual' }, fx)).toEqual({
      max: 150000,
      currency: 'USD',
      period: 'annual',
      source: 'structured',
      minAnnualEur: null,
      maxAnnualEur: Math.round(150000 * fx.eurPerUnit.USD * 100) / 100,
    });
  });

  it('drops an inconsistent range (min above max) rather than guessing which bound is wrong', () => {
    expect(normalizeStructuredSalary({ min: 90000, max: 70000, currency: 'USD', period: 'annual' }, fx)).toBeUndefined();
  });

  it('accepts min equal to max (spec: salary_max may equal salary_min)', () => {
    expect(normalizeStructuredSalary({ min: 40, max: 40, currency: 'USD', period: 'hourly' }, fx)).toMatchObject({ min: 40, max: 40 });
  });
});

describe('salaryProvenance', () => {
  it('is published for structured, inferred for parsed, absent for none', () => {
    expect(salaryProvenance(normalizeStructuredSalary({ min: 1, currency: 'EUR', period: 'annual' }, fx))).toBe('published');
    expect(salaryProvenance(normalizeSalary({ min: 1, currency: 'EUR', period: 'annual' }, 'parsed_description', fx))).toBe('inferred');
    expect(salaryProvenance(undefined)).toBe('absent');
  });
});
