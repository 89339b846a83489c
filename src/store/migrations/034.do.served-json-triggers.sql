-- Issue 22: the stored served lines (migration 033), two mends.
--
-- 1. Written under `session_replication_role = replica` too. The bench seeder loads its rows that
--    way (so the feed-stamp triggers keep its generated instants), and an ordinary trigger does not
--    fire then: every generated row was left without its line (NULL), and a listing page that reads
--    the stored lines came out as invalid JSON for them. The lines are derived data, like the search
--    vectors (migration 029), so their triggers are ALWAYS triggers; the rows already stored without
--    a line get one below, and the column is NOT NULL from now on, so a write that bypasses the
--    trigger fails instead of serving a broken page (the BEFORE trigger fills it before the check).
--
-- 2. A re-verification no longer rebuilds the line. A re-crawl re-verifies nearly every row it sees
--    (`UPDATE jobs SET last_verified_at = ...`), and rebuilding the whole line cost about 40-60 µs of
--    PostgreSQL per row there (bench/README.md, 2026-11-29). Now the full rebuild fires only for an
--    UPDATE that names one of the columns the line reads (a column-list trigger, decided by the
--    executor without calling any function), and an UPDATE of `last_verified_at` writes the new
--    instant into the line in place (about 15 µs). The column list is every `j.` column of
--    store/job-lines.ts jobObjectSql(false) but `last_verified_at`, plus `company_id` (the line reads
--    the company's row) and `served_json` (setting it, to anything, asks for a rebuild: the company
--    trigger does that). test/job-lines.test.ts reads this list back from pg_trigger and fails when
--    the line reads a column that is not in it.
--
-- Triggers of one timing fire in name order: the rebuild (`jobs_zz_...`) after the closure stamp,
-- then the overlay (`jobs_zzz_...`), which finds nothing to replace in a line just rebuilt with the
-- new instant.
DROP TRIGGER jobs_zz_served_json ON jobs;
CREATE TRIGGER jobs_zz_served_json
  BEFORE INSERT OR UPDATE OF
    id, slug, title, company_name, category_confidence, remote_inferred, repost_count, status, closed_at,
    closed_reason, provider_id, source_type, provider_type, has_description, salary_min_annual_eur,
    salary_max_annual_eur, field_sources, state, upstream_closes_at, posted_at, first_seen_at, category,
    country, city, location, remote, employment_type, seniority, upstream_expired_at, apply_url, salary_min,
    salary_max, salary_currency, salary_period, salary_source, attribution, canonical_url,
    company_id, served_json
  ON jobs
  FOR EACH ROW EXECUTE FUNCTION jobledger_served_json();
ALTER TABLE jobs ENABLE ALWAYS TRIGGER jobs_zz_served_json;

-- The instant as the line writes it (jobObjectSql's `instant()`), with the keys around it so that
-- only the `last_verified_at` member can match.
CREATE FUNCTION jobledger_served_json_reverified() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  NEW.served_json := replace(NEW.served_json,
    ',"last_verified_at":' || COALESCE('"' || to_char(OLD.last_verified_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') || '"', 'null') || ',"status":',
    ',"last_verified_at":' || COALESCE('"' || to_char(NEW.last_verified_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') || '"', 'null') || ',"status":');
  RETURN NEW;
END
$$;

CREATE TRIGGER jobs_zzz_served_json_verified BEFORE UPDATE OF last_verified_at ON jobs
  FOR EACH ROW WHEN (OLD.last_verified_at IS DISTINCT FROM NEW.last_verified_at)
  EXECUTE FUNCTION jobledger_served_json_reverified();
ALTER TABLE jobs ENABLE ALWAYS TRIGGER jobs_zzz_served_json_verified;
ALTER TABLE companies ENABLE ALWAYS TRIGGER companies_served_json;

-- Rows written while the line's trigger did not fire (a bench ledger seeded since migration 033).
UPDATE jobs SET served_json = NULL WHERE served_json IS NULL;
ALTER TABLE jobs ALTER COLUMN served_json SET NOT NULL;
