-- The sync feeds (spec: Events; GET /v1/changes, GET /v1/jobs/expired) and the crawl worker's leases.
--
-- No change is ever lost: every change event and every closure gets its feed timestamp from one
-- commit-ordered clock (`change_feed_clock`). The first feed write of a transaction updates the
-- clock's single row, so it holds that row's lock until it commits or rolls back; the next writer
-- waits for it and then stamps a strictly later instant. A reader that has seen a stamp T has
-- therefore already been able to see every commit stamped before T: nothing stamped earlier can
-- still be in flight. Stamps are whole milliseconds, strictly increasing across transactions, and
-- shared by every write of one transaction (see docs/architecture.md, "The change feed").
--
-- The stamps are applied by triggers, so no writer can forget them: `change_events.published_at`
-- on insert, and `jobs.closed_at` whenever a row enters `closed`. Writers run at READ COMMITTED (the
-- default): a writer that waited for the clock re-reads the committed stamp and goes past it.

CREATE TABLE change_feed_clock (
  singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
  -- The last stamp handed out.
  stamp     timestamptz NOT NULL
);

-- Events written before this migration had no stamp: their record time is the best order we have.
UPDATE change_events SET published_at = date_trunc('milliseconds', recorded_at) WHERE published_at IS NULL;

INSERT INTO change_feed_clock (stamp)
SELECT coalesce(greatest((SELECT max(published_at) FROM change_events), (SELECT max(closed_at) FROM jobs)), '-infinity'::timestamptz);

-- The feed stamp of the current transaction: taken from the clock on first use (locking its row
-- until the transaction ends), then reused for every later write of the same transaction.
-- Whole milliseconds, so a timestamp a client reads back (JSON, JavaScript Date) is the exact key.
CREATE FUNCTION jobledger_feed_stamp() RETURNS timestamptz
LANGUAGE plpgsql AS $$
DECLARE
  held text := current_setting('jobledger.feed_stamp', true);
  taken timestamptz;
BEGIN
  IF held IS NOT NULL AND held <> '' THEN
    RETURN held::timestamptz;
  END IF;
  UPDATE change_feed_clock
     SET stamp = greatest(date_trunc('milliseconds', clock_timestamp()), stamp + interval '1 millisecond')
   RETURNING stamp INTO taken;
  -- is_local = true: forgotten when the transaction (or a rolled-back savepoint) ends.
  PERFORM set_config('jobledger.feed_stamp', taken::text, true);
  RETURN taken;
END
$$;

CREATE FUNCTION jobledger_stamp_change_event() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  NEW.published_at := jobledger_feed_stamp();
  RETURN NEW;
END
$$;

CREATE FUNCTION jobledger_stamp_closure() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  NEW.closed_at := jobledger_feed_stamp();
  RETURN NEW;
END
$$;

CREATE TRIGGER change_events_stamp BEFORE INSERT ON change_events
  FOR EACH ROW EXECUTE FUNCTION jobledger_stamp_change_event();
CREATE TRIGGER jobs_stamp_closure_on_insert BEFORE INSERT ON jobs
  FOR EACH ROW WHEN (NEW.status = 'closed') EXECUTE FUNCTION jobledger_stamp_closure();
CREATE TRIGGER jobs_stamp_closure_on_update BEFORE UPDATE OF status ON jobs
  FOR EACH ROW WHEN (NEW.status = 'closed' AND OLD.status <> 'closed') EXECUTE FUNCTION jobledger_stamp_closure();

ALTER TABLE change_events ALTER COLUMN published_at SET NOT NULL;
DROP INDEX change_events_unpublished_idx;
DROP INDEX change_events_feed_idx;
DROP INDEX change_events_job_idx;
-- Feed order and cursor key. Unique: one event per job per transaction, so (stamp, job id) names one event.
CREATE UNIQUE INDEX change_events_feed_key ON change_events (published_at, job_id);
-- "Is there a later event for this job?" (the feed folds superseded events into the latest one).
CREATE INDEX change_events_job_stamp_idx ON change_events (job_id, published_at);

-- Rows whose source's own close date has passed are closed by the worker's sweep.
CREATE INDEX jobs_upstream_closes_idx ON jobs (upstream_closes_at) WHERE status = 'live' AND upstream_closes_at IS NOT NULL;

-- A crawl lease: one process crawls a target at a time, whoever started the crawl (worker or CLI).
-- It expires on its own if its holder dies.
ALTER TABLE crawl_targets
  ADD COLUMN lease_owner      text,
  ADD COLUMN lease_expires_at timestamptz,
  ADD CONSTRAINT crawl_targets_lease_pair CHECK ((lease_owner IS NULL) = (lease_expires_at IS NULL));
