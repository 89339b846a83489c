-- The country lock on the sync surfaces (spec: Authentication item 9, "A country-locked key is
-- restricted to one country code ... A request for another country returns nothing").
--
-- A row's country can change between events, so the change feed cannot filter on the row's current
-- country: a DE-locked client would never hear of a row that moved from DE to FR and would keep
-- serving it. Every event therefore records the country the row had when the event was recorded
-- (`country`, the row's country after the change) and, when the change moved the row, the country
-- it had before (`previous_country`, else null). A locked feed reads the events whose `country` or
-- `previous_country` is the lock (see docs/sync.md, "Country-locked keys").

ALTER TABLE change_events ADD COLUMN country text;
ALTER TABLE change_events ADD COLUMN previous_country text;

-- Events recorded before this migration: their row's country now is the best we know.
UPDATE change_events e SET country = j.country FROM jobs j WHERE j.id = e.job_id;

-- `country` is always the row's country at insert time, whatever the writer sends: writers insert
-- their events after their row writes (store/ledger.ts), so this is the state the event announces,
-- and no writer can forget it. `previous_country` is kept only when it differs, which keeps its
-- index small and makes "the event moved the row" a plain non-null test.
CREATE FUNCTION jobledger_event_country() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  SELECT j.country INTO NEW.country FROM jobs j WHERE j.id = NEW.job_id;
  IF NEW.previous_country IS NOT DISTINCT FROM NEW.country THEN
    NEW.previous_country := NULL;
  END IF;
  RETURN NEW;
END
$$;

CREATE TRIGGER change_events_country BEFORE INSERT ON change_events
  FOR EACH ROW EXECUTE FUNCTION jobledger_event_country();

-- A locked feed page: the events of one country after a cursor, in feed order (one ordered index
-- range per branch of the locked query, never a scan of other countries' events).
CREATE INDEX change_events_country_feed_idx ON change_events (country, published_at, job_id) WHERE country IS NOT NULL;
CREATE INDEX change_events_previous_country_feed_idx ON change_events (previous_country, published_at, job_id) WHERE previous_country IS NOT NULL;

-- A locked closure feed (/v1/jobs/expired, ascending) and closed listing (/v1/jobs/closed,
-- descending: the same index read backwards).
CREATE INDEX jobs_closed_country_idx ON jobs (country, closed_at, id) WHERE status = 'closed';
