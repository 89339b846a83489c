-- Issue 22: the change feed folds a job's superseded events without probing for a later one.
--
-- A feed page leaves out every event of a job that has a later event (store/feeds.ts readChanges):
-- it read the events in feed order and, for each, probed change_events_job_stamp_idx for a later
-- event of the same job (an anti-join). On the 200,000-row bench ledger a 5,000-item page read
-- 9,453 events and probed each, and the planner ran it in parallel, whose workers took 20 ms to start
-- (bench/README.md, 2026-11-29). The fold is now kept on the events themselves: `superseded` is true
-- once a later event of the same job exists, and the unlocked feed reads the current events only,
-- through a partial index in feed order.
--
-- Who writes it: the statement trigger below, after every insert into change_events, marks the
-- events of the inserted jobs that a later event of the same job supersedes (the ledger inserts one
-- event per job per transaction, always with the newest stamp, so that is every earlier event of those
-- jobs). It is an ordinary trigger: the bench seeder, which writes as a replica, sets the column
-- itself (src/bench/seed.ts), and a logical replica receives it with the row. Retention deletes
-- events oldest first, so it never deletes the event that superseded one it keeps.
--
-- A country-locked feed folds only into later events of its own country, which `superseded` does
-- not say, so it keeps its anti-join.
ALTER TABLE change_events ADD COLUMN superseded boolean NOT NULL DEFAULT false;

UPDATE change_events e SET superseded = true
 WHERE EXISTS (SELECT 1 FROM change_events later WHERE later.job_id = e.job_id AND later.published_at > e.published_at);

CREATE INDEX change_events_current_feed_idx ON change_events (published_at, job_id) WHERE NOT superseded;

CREATE FUNCTION jobledger_supersede_change_events() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  UPDATE change_events e SET superseded = true
    FROM (SELECT DISTINCT job_id FROM inserted_events) n
   WHERE e.job_id = n.job_id AND NOT e.superseded
     AND EXISTS (SELECT 1 FROM change_events later WHERE later.job_id = e.job_id AND later.published_at > e.published_at);
  RETURN NULL;
END
$$;

CREATE TRIGGER change_events_supersede AFTER INSERT ON change_events
  REFERENCING NEW TABLE AS inserted_events
  FOR EACH STATEMENT EXECUTE FUNCTION jobledger_supersede_change_events();
