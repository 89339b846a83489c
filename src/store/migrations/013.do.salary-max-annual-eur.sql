-- `salary_max_annual_eur` beside `salary_min_annual_eur` (issue #15): salary_max converted to annual EUR
-- by the same rule (enrich/salary.ts, enrich/fx.ts), null when the period or currency is
-- unrecognised, never guessed.
ALTER TABLE jobs ADD COLUMN salary_max_annual_eur numeric;

-- Rows written before this migration: min and max share one currency and period, so the conversion is
-- one factor, and max's figure is min's scaled by max/min (rounded to cents, as enrich/fx.ts rounds).
-- Rows with a maximum but no minimum get theirs when next crawled.
UPDATE jobs
SET salary_max_annual_eur = round(salary_min_annual_eur * salary_max / salary_min, 2)
WHERE salary_min_annual_eur IS NOT NULL AND salary_min IS NOT NULL AND salary_min > 0 AND salary_max IS NOT NULL;
