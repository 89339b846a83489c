-- Issue 22, re-crawl cost: what each crawled row's enrichment was made from and what it made
-- (src/enrich/enrichment-record.ts). A re-crawl enriches a posting again only when the digest of its
-- inputs (the source's posting, the provider, the FX rates, the board's context, the enrichment's
-- code) differs from the one kept here; otherwise it restores the record and the row's descriptions,
-- and takes the posting's content hash and board signals from here rather than computing them again.
-- A table of its own, not columns of `jobs`: the API never reads it, and `jobs` rows stay as narrow
-- as the listings need. Written by the crawl's ledger transaction (store/ledger.ts writeCrawl) for
-- every posting it enriched afresh; rows without one (direct submissions, the bench's generated
-- rows, rows from before this migration) are enriched at their next crawl.
-- The foreign key is checked at commit, so the crawl writes the records of all its postings before its
-- closures (which hold the change feed's clock until commit), its closed inserts among them.
CREATE TABLE job_enrichments (
  job_id uuid PRIMARY KEY REFERENCES jobs (id) ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED,
  -- sha-256, hex, of the enrichment's inputs (enrichmentDigest).
  source_digest text NOT NULL,
  -- The NormalizedJob without its descriptions, as JSON text (json keeps it verbatim).
  record json NOT NULL,
  -- contentHash of that NormalizedJob (with its descriptions): the row's content_hash whenever the
  -- board's poster-type judgement leaves the posting as enrichment made it.
  content_hash text NOT NULL,
  -- What the board judgement reads of the posting (src/enrich/intermediary.ts BoardSignals).
  board_signals json NOT NULL
);
