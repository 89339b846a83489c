-- Issue 22, re-crawl cost: the three full-text vectors are kept by a trigger instead of being stored
-- generated columns, so an UPDATE that does not touch the text they come from neither recomputes them
-- nor rewrites every index.
--
-- Why: PostgreSQL 15 recomputes a stored generated column on UPDATE only when a column it depends on
-- is updated, unless the table has a BEFORE UPDATE row trigger; then it recomputes every one of them
-- on every UPDATE (ExecInitStoredGenerated). `jobs` has one (jobs_stamp_closure_on_update, migration
-- 004), so re-verifying a row (`SET last_verified_at`) re-ran `jobledger_search_text` and
-- `to_tsvector` over up to 200,000 characters of description, and the recomputed vectors (new, not
-- TOASTed, values) never compared equal to the stored ones, so the update could never be heap-only:
-- a new entry in all 26 indexes, the three GIN indexes among them, for every row a crawl saw.
-- Measured on a 10,084-row ledger from the recorded Ashby boards: re-verifying 6,252 rows took
-- 13.0 s before this migration and 0.22-0.43 s after.
--
-- The vectors stay exactly what migration 014 defined: the same expressions over the same columns,
-- computed on INSERT and whenever one of their source columns changes; an UPDATE that names a
-- vector column without changing its sources keeps the stored vector, so they can never disagree
-- with the text. DROP EXPRESSION keeps each column's values and indexes (no table rewrite).
ALTER TABLE jobs ALTER COLUMN title_tsv DROP EXPRESSION,
                 ALTER COLUMN search_tsv DROP EXPRESSION,
                 ALTER COLUMN description_tsv DROP EXPRESSION;

CREATE FUNCTION jobledger_jobs_search_vectors() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' OR NEW.title IS DISTINCT FROM OLD.title THEN
    NEW.title_tsv := to_tsvector('simple'::regconfig, jobledger_search_text(NEW.title));
  ELSE
    NEW.title_tsv := OLD.title_tsv;
  END IF;
  IF TG_OP = 'INSERT' OR NEW.title IS DISTINCT FROM OLD.title OR NEW.company_name IS DISTINCT FROM OLD.company_name
     OR NEW.location IS DISTINCT FROM OLD.location THEN
    NEW.search_tsv := to_tsvector('simple'::regconfig, jobledger_search_text(NEW.title || ' ' || NEW.company_name || ' ' || coalesce(NEW.location, '')));
  ELSE
    NEW.search_tsv := OLD.search_tsv;
  END IF;
  IF TG_OP = 'INSERT' OR NEW.description_text IS DISTINCT FROM OLD.description_text THEN
    NEW.description_tsv := to_tsvector('simple'::regconfig, jobledger_search_text(left(coalesce(NEW.description_text, ''), 200000)));
  ELSE
    NEW.description_tsv := OLD.description_tsv;
  END IF;
  RETURN NEW;
END
$$;

CREATE TRIGGER jobs_search_vectors
  BEFORE INSERT OR UPDATE OF title, company_name, location, description_text, title_tsv, search_tsv, description_tsv ON jobs
  FOR EACH ROW EXECUTE FUNCTION jobledger_jobs_search_vectors();
-- ALWAYS: the vectors are derived data, so they are computed even where ordinary triggers are off
-- (`session_replication_role = replica`: the bench seeder's bulk load, a logical-replication apply).
ALTER TABLE jobs ENABLE ALWAYS TRIGGER jobs_search_vectors;
