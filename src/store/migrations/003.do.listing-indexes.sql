-- Indexes and planner statistics for the /v1/jobs query surface (spec: Endpoints › Shared listing
-- filters; GET /v1/jobs). Measured on a ledger of one million rows: docs/query-plans.md.
--
-- Default-scope listings (the `served` rows) read a partial index keyed by the filtered column and then
-- the listing order, so a filter alone walks only its own rows, newest first, and stops at the page.
-- Migration 001 has these for company, country and provider.

CREATE INDEX jobs_category_idx ON jobs (category, sort_key DESC, id DESC) WHERE served;
CREATE INDEX jobs_city_idx ON jobs (lower(city), sort_key DESC, id DESC) WHERE served AND city IS NOT NULL;
CREATE INDEX jobs_state_idx ON jobs (state, sort_key DESC, id DESC) WHERE served AND state IS NOT NULL;
CREATE INDEX jobs_employment_type_idx ON jobs (employment_type, sort_key DESC, id DESC) WHERE served;
CREATE INDEX jobs_seniority_idx ON jobs (seniority, sort_key DESC, id DESC) WHERE served;
CREATE INDEX jobs_source_type_idx ON jobs (source_type, sort_key DESC, id DESC) WHERE served;
-- min_salary / max_salary select the narrow slice that has an annual EUR figure.
CREATE INDEX jobs_salary_eur_idx ON jobs (salary_min_annual_eur) WHERE served AND salary_min_annual_eur IS NOT NULL;
-- has_description=false: the few rows without a description.
CREATE INDEX jobs_no_description_idx ON jobs (sort_key DESC, id DESC) WHERE served AND NOT has_description;

-- status=closed|any, quality=all and include_poster_type read beyond the served rows: the listing
-- order over every row.
CREATE INDEX jobs_order_idx ON jobs (sort_key DESC, id DESC);

-- Full-text selectivity. With the default statistics target the planner tracks about a thousand
-- lexemes per column and guesses any other word at half the rarest tracked frequency, which on
-- advert text is high enough to make it walk the date index for a rare or absent word and read the
-- whole table (10 s for a word that matches nothing, on a million rows). Tracking ten times as many
-- lexemes brings rare words down to their real weight, so they go through the GIN indexes.
ALTER TABLE jobs ALTER COLUMN title_tsv SET STATISTICS 1000;
ALTER TABLE jobs ALTER COLUMN search_tsv SET STATISTICS 1000;
ALTER TABLE jobs ALTER COLUMN description_tsv SET STATISTICS 1000;
