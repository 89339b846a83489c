-- Issue 22, re-crawl cost: what a crawl writes for the rows it only re-verifies.
--
-- 1. An unchanged board (a 304 answer) re-verifies the rows it listed last time, which are its live
--    rows and its closed rows still listed (`missed_crawls = 0`; ledger.ts applyUnchangedBoard).
--    `jobs_target_idx` held live rows only, so that query could not use it and read the whole table
--    once per unchanged board (19.7 ms each on the 10,084-row bench ledger; seconds on a million
--    rows). The new index holds exactly the rows that query and every other per-target query (all of
--    them about live rows) ask for.
-- 2. A re-verification sets `last_verified_at` (and `missed_crawls`), which no index reads, so it can be
--    a heap-only (HOT) update, which writes no index entry, when the row's page has room for the new
--    version; otherwise every one of the table's 26 indexes (three GIN over whole descriptions) gets
--    a new entry. Pages filled to 100% never have room. With fillfactor 50, inserts leave half of
--    each page free: re-verifying 6,252 rows of the bench ledger took 3.4-3.7 s as full pages and
--    0.21 s with the room (the table grew from 2,880 to 3,177 pages, most of a row's bytes being
--    TOASTed). The setting applies to pages written from now on; `VACUUM FULL jobs` (or pg_repack)
--    applies it to existing pages at once (docs/deploy.md).
CREATE INDEX jobs_target_listed_idx ON jobs (target_id) WHERE status = 'live' OR missed_crawls = 0;
DROP INDEX jobs_target_idx;
ALTER TABLE jobs SET (fillfactor = 50);
