-- Issue 22, ingest cost: the long columns of `jobs` (descriptions and their search vectors) are
-- TOASTed with lz4 instead of pglz where the server supports it. On the ingest bench (20,000 postings)
-- PostgreSQL's CPU fell from 1.67 to 1.53 ms per posting on the first crawl (compressing) and from 0.19
-- to 0.18 on the re-crawl (reading the descriptions of restored enrichments back), for 7% more disk.
-- Values written from now on are compressed with lz4; existing ones stay as they are until rewritten.
-- A server built without lz4 (the embedded PostgreSQL of `npm start` and the tests) keeps pglz.
DO $$
BEGIN
  ALTER TABLE jobs
    ALTER COLUMN description_html SET COMPRESSION lz4,
    ALTER COLUMN description_text SET COMPRESSION lz4,
    ALTER COLUMN search_tsv SET COMPRESSION lz4,
    ALTER COLUMN description_tsv SET COMPRESSION lz4;
EXCEPTION WHEN feature_not_supported THEN
  RAISE NOTICE 'this PostgreSQL is built without lz4: TOAST compression of jobs stays pglz';
END
$$;
