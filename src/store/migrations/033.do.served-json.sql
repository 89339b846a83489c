-- Issue 22: every job row keeps its served Job JSON (the JSON answers' key order, without the
-- description), so a listing page, a change feed page or a lookup reads one text column instead of
-- some 40 columns that Node.js decoded, presented and serialized (or PostgreSQL assembled) at every
-- request. Measured on the 200,000-row bench ledger, a 25-row page of /v1/jobs: Node.js 0.41 -> 0.12
-- ms, PostgreSQL 0.13 -> 0.11 ms (bench/README.md).
--
-- The expression below is src/store/job-lines.ts jobObjectSql(false) as of this migration, with the
-- row being written (`NEW`) for its `j` and the row's company (`company`) for its `c`.
-- test/job-lines.test.ts holds every stored line to that expression and to the response serializer,
-- so a change to the served Job fails the tests until a later migration replaces this function (and
-- rewrites the lines).
--
-- A BEFORE trigger keeps the line current on every INSERT and UPDATE of a row. Triggers of one timing
-- fire in name order: `jobs_zz_served_json` fires after `jobs_stamp_closure_on_update` has set
-- `closed_at` (migration 004), so a closing row's line carries its closure. The company's slug, logo
-- and domain are in the line too: changing them rewrites the lines of its rows.
ALTER TABLE jobs ADD COLUMN served_json text;

CREATE FUNCTION jobledger_served_json() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
  company companies%ROWTYPE;
BEGIN
  SELECT * INTO company FROM companies WHERE id = NEW.company_id;
  -- One expression over the row's and the company's fields, not a query over them: PL/pgSQL
  -- evaluates it without starting the executor, about a quarter of the cost per row written.
  NEW.served_json :=
    concat('{"id":', COALESCE(to_json(NEW.id)::text, 'null'),
      ',"slug":', COALESCE(to_json(NEW.slug)::text, 'null'),
      ',"title":', COALESCE(to_json(NEW.title)::text, 'null'),
      ',"company":', COALESCE(to_json(NEW.company_name)::text, 'null'),
      ',"company_slug":', COALESCE(to_json(company.slug)::text, 'null'),
      ',"category_confidence":', COALESCE((floor((NEW.category_confidence)::text::float8 * 1000 + 0.5) / 1000)::text, 'null'),
      ',"remote_inferred":', COALESCE(to_json(NEW.remote_inferred)::text, 'null'),
      ',"repost_count":', COALESCE(NEW.repost_count::text, 'null'),
      ',"last_verified_at":', COALESCE(('"' || to_char(NEW.last_verified_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') || '"'), 'null'),
      ',"status":', COALESCE(to_json(NEW.status)::text, 'null'),
      ',"closed_at":', COALESCE(('"' || to_char(NEW.closed_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') || '"'), 'null'),
      ',"closed_reason":', COALESCE(to_json(NEW.closed_reason)::text, 'null'),
      ',"source":', COALESCE(to_json(NEW.provider_id)::text, 'null'),
      ',"source_type":', COALESCE(to_json(NEW.source_type)::text, 'null'),
      ',"provider_type":', COALESCE(to_json(NEW.provider_type)::text, 'null'),
      ',"has_description":', COALESCE(to_json(NEW.has_description)::text, 'null'),
      ',"salary_min_annual_eur":', COALESCE(((NEW.salary_min_annual_eur)::text::float8)::text, 'null'),
      ',"salary_max_annual_eur":', COALESCE(((NEW.salary_max_annual_eur)::text::float8)::text, 'null'),
      ',"field_sources":', '{', '"remote":', (NEW.field_sources->'remote')::text, ',"employment_type":', (NEW.field_sources->'employment_type')::text, ',"category":', (NEW.field_sources->'category')::text, ',"seniority":', (NEW.field_sources->'seniority')::text, ',"salary":', (NEW.field_sources->'salary')::text, ',"location":', (NEW.field_sources->'location')::text, ',"posted_at":', (NEW.field_sources->'posted_at')::text, ',"description":', (NEW.field_sources->'description')::text, ',"source_type":', (NEW.field_sources->'source_type')::text, ',"company_domain":', CASE WHEN NULLIF(company.domain, '') IS NULL THEN '"absent"' ELSE '"inferred"' END, ',"state":' || CASE WHEN NULLIF(NEW.state, '') IS NULL THEN '"absent"' ELSE CASE WHEN NEW.field_sources->>'location' = 'absent' THEN '"inferred"' ELSE (NEW.field_sources->'location')::text END END, ',"expires_at":', CASE WHEN NEW.upstream_closes_at IS NULL THEN '"absent"' ELSE '"published"' END, ',"repost_count":"inferred"', ',"first_seen_lag_hours":', CASE WHEN NEW.posted_at IS NULL OR NEW.first_seen_at IS NULL THEN '"absent"' ELSE '"inferred"' END, '}',
      ',"company_logo":' || to_json(NULLIF(company.logo_url, ''))::text,
      ',"company_domain":' || to_json(NULLIF(company.domain, ''))::text,
      ',"category":' || to_json(NULLIF(NEW.category, ''))::text,
      ',"country":' || to_json(NULLIF(NEW.country, ''))::text,
      ',"city":' || to_json(NULLIF(NEW.city, ''))::text,
      ',"state":' || to_json(NULLIF(NEW.state, ''))::text,
      ',"location":' || to_json(NULLIF(NEW.location, ''))::text,
      ',"remote":' || to_json(NULLIF(NEW.remote, ''))::text,
      ',"employment_type":' || to_json(NULLIF(NEW.employment_type, ''))::text,
      ',"seniority":' || to_json(NULLIF(NEW.seniority, ''))::text,
      ',"posted_at":' || ('"' || to_char(NEW.posted_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') || '"'),
      ',"first_seen_at":' || ('"' || to_char(NEW.first_seen_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') || '"'),
      ',"first_seen_lag_hours":' || (floor((extract(epoch FROM date_trunc('milliseconds', NEW.first_seen_at)) - extract(epoch FROM date_trunc('milliseconds', NEW.posted_at))) * 1000 / 3600000 + 0.5))::bigint::text,
      ',"upstream_expired_at":' || ('"' || to_char(NEW.upstream_expired_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') || '"'),
      ',"expires_at":' || ('"' || to_char(NEW.upstream_closes_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') || '"'),
      ',"apply_url":' || to_json(NULLIF(NEW.apply_url, ''))::text,
      ',"salary_min":' || ((NEW.salary_min)::text::float8)::text,
      ',"salary_max":' || ((NEW.salary_max)::text::float8)::text,
      ',"salary_currency":' || to_json(NULLIF(NEW.salary_currency, ''))::text,
      ',"salary_period":' || to_json(NULLIF(NEW.salary_period, ''))::text,
      ',"salary_source":' || to_json(NULLIF(NEW.salary_source, ''))::text,
      ',"attribution":' || to_json(NULLIF(NEW.attribution, ''))::text,
      ',"canonical_url":' || to_json(NULLIF(NEW.canonical_url, ''))::text, '}');
  RETURN NEW;
END
$$;

CREATE TRIGGER jobs_zz_served_json BEFORE INSERT OR UPDATE ON jobs
  FOR EACH ROW EXECUTE FUNCTION jobledger_served_json();

CREATE FUNCTION jobledger_company_served_json() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  -- The rows' own trigger writes their lines anew.
  UPDATE jobs SET served_json = NULL WHERE company_id = NEW.id;
  RETURN NULL;
END
$$;

CREATE TRIGGER companies_served_json AFTER UPDATE OF slug, logo_url, domain ON companies
  FOR EACH ROW
  WHEN (OLD.slug IS DISTINCT FROM NEW.slug OR OLD.logo_url IS DISTINCT FROM NEW.logo_url OR OLD.domain IS DISTINCT FROM NEW.domain)
  EXECUTE FUNCTION jobledger_company_served_json();

-- The rows already stored: their trigger fills the column (about 15 s per 200,000 rows).
UPDATE jobs SET served_json = NULL;
