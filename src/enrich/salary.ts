/**
 * Salary normalisation: a salary as the source stated it, checked and given its annual-EUR figure.
 *
 * Spec: Resources › Job (salary_min, salary_max "as stated, in the source's currency and period",
 * salary_source, salary_min_annual_eur "null when the period or currency is unrecognised; never
 * guessed"), FieldSources › salary ("published when salary_source is structured; inferred when it is
 * parsed_description. Never an estimate"), and What the service does, item 5 (no modelled estimates).
 *
 * Extension point: only structured salaries exist today. A parser that reads a salary out of the
 * advert text (salary_source `parsed_description`) is a later issue; it should produce a
 * {@link SourceSalary} from `descriptionText`, be run by enrich.ts only when the source has no
 * structured salary, and go through {@link normalizeSalary} with source `parsed_description`, so the
 * same checks and conversion apply and {@link salaryProvenance} reports it as `inferred`.
 */
import type { NormalizedSalary, SourceSalary } from '../domain/posting.ts';
import type { Provenance } from '../domain/field-sources.ts';
import type { SalarySource } from '../domain/vocabulary.ts';
import { toAnnualEur, type FxRates } from './fx.ts';

function positiveAmount(n: number | undefined): number | undefined {
  return typeof n === 'number' && Number.isFinite(n) && n > 0 ? n : undefined;
}

/**
 * Check and normalise a salary from any origin.
 *
 * - An amount counts only when it is a positive finite number; a salary with neither is dropped
 *   (Ashby's `0` and missing bounds mean "not stated").
 * - min > max is an inconsistent payload, not a typo to repair: the whole salary is dropped rather
 *   than swapped, because either bound may be the wrong one and the service never guesses.
 * - The currency is kept upper-cased when it is three ASCII letters (ISO 4217 shape), dropped otherwise.
 * - `minAnnualEur` is {@link toAnnualEur} of `min` when min, period and a rated currency are all
 *   known; null otherwise (a max-only salary has no `salary_min` to convert). `maxAnnualEur` is the
 *   same for `max` (issue #15, `salary_max_annual_eur`; a min-only salary has none).
 *
 * @returns the normalised salary, or undefined when there is nothing publishable.
 */
export function normalizeSalary(s: SourceSalary | undefined, source: SalarySource, fx: FxRates): NormalizedSalary | undefined {
  if (!s) return undefined;
  const min = positiveAmount(s.min);
  const max = positiveAmount(s.max);
  if (min === undefined && max === undefined) return undefined;
  if (min !== undefined && max !== undefined && min > max) return undefined;
  const code = s.currency?.trim().toUpperCase();
  const currency = code && /^[A-Z]{3}$/.test(code) ? code : undefined;
  const period = s.period ?? undefined;
  const minAnnualEur = min !== undefined && period && currency ? toAnnualEur(min, period, currency, fx) : null;
  const maxAnnualEur = max !== undefined && period && currency ? toAnnualEur(max, period, currency, fx) : null;
  const out: NormalizedSalary = { source, minAnnualEur, maxAnnualEur };
  if (min !== undefined) out.min = min;
  if (max !== undefined) out.max = max;
  if (currency) out.currency = currency;
  if (period) out.period = period;
  return out;
}

/**
 * Normalise a salary the source published in structured form (salary_source `structured`).
 * See {@link normalizeSalary} for the rules.
 */
export function normalizeStructuredSalary(s: SourceSalary | undefined, fx: FxRates): NormalizedSalary | undefined {
  return normalizeSalary(s, 'structured', fx);
}

/** FieldSources.salary for a normalised salary: structured → published, parsed → inferred, none → absent. */
export function salaryProvenance(salary: NormalizedSalary | undefined): Provenance {
  if (!salary) return 'absent';
  return salary.source === 'structured' ? 'published' : 'inferred';
}
