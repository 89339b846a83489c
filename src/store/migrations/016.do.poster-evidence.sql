-- Issue 15 class 2: why a row is not employer-direct. `poster_rule_id` is the poster-type rule that set
-- `poster_type` (src/enrich/poster-type.ts POSTER_RULE_IDS: per posting, or `poster.board_*` for a
-- board judged as an intermediary's by src/enrich/intermediary.ts); null exactly when poster_type is.
-- `crawl_targets.poster_evidence` keeps the board-level evidence of the last good crawl (rule id,
-- poster type, postings judged and matched, the other employers named, sample titles), null when the
-- board was not judged an intermediary's.
ALTER TABLE jobs ADD COLUMN poster_rule_id text;
UPDATE jobs SET poster_rule_id = CASE WHEN provider_type = 'aggregator' THEN 'poster.aggregator_provider' ELSE 'poster.unrecorded' END
 WHERE poster_type IS NOT NULL;
ALTER TABLE jobs ADD CONSTRAINT jobs_poster_rule_with_type CHECK ((poster_type IS NULL) = (poster_rule_id IS NULL));
ALTER TABLE crawl_targets ADD COLUMN poster_evidence jsonb;
