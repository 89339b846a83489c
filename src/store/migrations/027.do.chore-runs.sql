-- Issue 20, scheduled chores once per cluster: each chore's last start, claimed by one process at a
-- time (src/store/chore-runs.ts). pg-boss alone can hand the same chore out twice in quick succession
-- (the start-up job every process sends, throttled per time slot, and the cron job are separate jobs,
-- and two start-up sends can straddle a slot boundary); the claim turns every job of a chore that
-- arrives within half its interval of the last start into a no-op.
CREATE TABLE chore_runs (
  chore           text PRIMARY KEY,
  last_started_at timestamptz NOT NULL
);
