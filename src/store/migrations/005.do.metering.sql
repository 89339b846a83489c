-- Metering (spec: Limits › Metering rules; Authentication item 10, "the record allowance is per key").

-- The monthly record meter. It is billing data, so it lives here, durable, and never in Redis. One row
-- per key and UTC calendar month; `used` includes records reserved by requests still in flight, which
-- give back what they did not serve when they settle. Past months' rows are the key's usage history;
-- they hang on the key's id, so rotation (a new secret on the same row) keeps them.
CREATE TABLE record_usage (
  api_key_id   uuid NOT NULL REFERENCES api_keys (id),
  period_start date NOT NULL CHECK (extract(day FROM period_start) = 1),
  used         bigint NOT NULL DEFAULT 0 CHECK (used >= 0),
  updated_at   timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (api_key_id, period_start)
);

-- Request counters (per minute, per day) when no Redis is configured, shared by every API process on
-- this database. The shape is the one rate-limiter-flexible's PostgreSQL store reads and writes:
-- `expire` is epoch milliseconds. Unlogged: counters are not billing data, and a crash that empties
-- them only resets the current minute and day (fail open), in exchange for cheaper writes.
CREATE UNLOGGED TABLE request_counters (
  key    varchar(255) PRIMARY KEY,
  points integer NOT NULL DEFAULT 0,
  expire bigint
);
