-- Issue 20, retention: change events older than the retention window are deleted in small batches
-- (src/store/retention.ts), and the feed remembers how far it has deleted so a client whose `since`
-- lies before that point is told (410 since_expired) instead of silently missing changes.
-- One row; both columns null while nothing has been deleted. (deleted_through_at, deleted_through_id)
-- is the feed position (published_at, job_id) of the last event deleted: a cursor at or after it has
-- lost nothing.
CREATE TABLE change_feed_retention (
  only_row           boolean PRIMARY KEY DEFAULT true CHECK (only_row),
  deleted_through_at timestamptz,
  deleted_through_id uuid
);
INSERT INTO change_feed_retention (only_row) VALUES (true);

-- crawl_runs are deleted by finished_at in batches; without this index each batch scans the table.
CREATE INDEX crawl_runs_finished_idx ON crawl_runs (finished_at);
