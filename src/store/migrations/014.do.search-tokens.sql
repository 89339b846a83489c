-- Issue 15 class 7: full-text tokens. PostgreSQL's default parser keeps slash-joined words as one
-- "file" token (`Senior/Staff` -> 'senior/staff'), so `title=senior` missed "Senior/Staff Engineer";
-- and it reads `c++`, `c#` and `.net` as the bare words 'c' and 'net', so `title=c++` found every C#
-- role. `jobledger_search_text` rewrites a text before the `simple` configuration parses it, and the
-- listing queries pass every search value through the same function (store/job-queries.ts), so the
-- index and the query always agree:
--   * `c++` -> `cplusplus`, `c#` -> `csharp`, `f#` -> `fsharp`, `.net` / `asp.net` / `ado.net` /
--     `vb.net` -> `dotnet` (kept whole, and no longer the bare 'c' or 'net');
--   * then `/`, `+` and `&` become spaces, so each joined word is a token of its own.
-- Hyphens need nothing: the parser already indexes `front-end` as 'front-end', 'front' and 'end'.
CREATE FUNCTION jobledger_search_text(t text) RETURNS text
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
RETURN regexp_replace(
  regexp_replace(
    regexp_replace(
      regexp_replace(
        regexp_replace(t, '(?<![[:alnum:]_])c\+\+', 'cplusplus ', 'gi'),
        '(?<![[:alnum:]_])([cf])#', '\1sharp ', 'gi'),
      '(?<![[:alnum:]_.])(asp|ado|vb)\.net(?![[:alnum:]_])', '\1 dotnet ', 'gi'),
    '(?<![[:alnum:]_.])\.net(?![[:alnum:]_])', 'dotnet ', 'gi'),
  '[/+&]', ' ', 'g');

ALTER TABLE jobs DROP COLUMN title_tsv, DROP COLUMN search_tsv, DROP COLUMN description_tsv;
ALTER TABLE jobs
  ADD COLUMN title_tsv tsvector NOT NULL GENERATED ALWAYS AS (to_tsvector('simple'::regconfig, jobledger_search_text(title))) STORED,
  ADD COLUMN search_tsv tsvector NOT NULL GENERATED ALWAYS AS (
    to_tsvector('simple'::regconfig, jobledger_search_text(title || ' ' || company_name || ' ' || coalesce(location, '')))
  ) STORED,
  ADD COLUMN description_tsv tsvector NOT NULL GENERATED ALWAYS AS (
    to_tsvector('simple'::regconfig, jobledger_search_text(left(coalesce(description_text, ''), 200000)))
  ) STORED;
CREATE INDEX jobs_search_tsv_idx ON jobs USING gin (search_tsv);
CREATE INDEX jobs_title_tsv_idx ON jobs USING gin (title_tsv);
CREATE INDEX jobs_description_tsv_idx ON jobs USING gin (description_tsv);
-- As migration 003: track ten times the default number of lexemes.
ALTER TABLE jobs ALTER COLUMN title_tsv SET STATISTICS 1000;
ALTER TABLE jobs ALTER COLUMN search_tsv SET STATISTICS 1000;
ALTER TABLE jobs ALTER COLUMN description_tsv SET STATISTICS 1000;
