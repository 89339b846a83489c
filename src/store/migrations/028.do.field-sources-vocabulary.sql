-- Issue 22: export lines are built by PostgreSQL (src/store/job-lines.ts), which writes a row's
-- field_sources from the jsonb's own text. That is exact only while the object holds nothing but the
-- nine tracked keys with the three provenance words as values (src/domain/field-sources.ts), which is
-- all the write path has ever stored; this constraint makes it a guarantee. NOT VALID then VALIDATE,
-- so existing rows are checked without blocking reads or writes for the length of the scan.
ALTER TABLE jobs ADD CONSTRAINT jobs_field_sources_vocabulary CHECK (
  field_sources - ARRAY['remote', 'employment_type', 'category', 'seniority', 'salary', 'location', 'posted_at', 'description', 'source_type'] = '{}'::jsonb
  AND NOT jsonb_path_exists(field_sources, '$.* ? (@.type() != "string" || !(@ == "published" || @ == "inferred" || @ == "absent"))')
) NOT VALID;
ALTER TABLE jobs VALIDATE CONSTRAINT jobs_field_sources_vocabulary;
