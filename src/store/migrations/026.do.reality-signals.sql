-- Issue 15 "Also": the reality signal `repost_count`, "the same employer, title and location seen again
-- after closing" (rule: src/domain/lifecycle.ts decideRepostCount; docs/lifecycle.md "Reality signals").
-- `repost_key` is the vacancy part of that identity (lifecycle.ts repostKey: title and location text,
-- lower-cased, trimmed, white space collapsed, joined by U+001F); the employer part is `company_id`.
-- The other signal, how far `posted_at` lags `first_seen_at`, is computed when served (no column).
ALTER TABLE jobs ADD COLUMN repost_key text;
ALTER TABLE jobs ADD COLUMN repost_count integer NOT NULL DEFAULT 0 CHECK (repost_count >= 0);

UPDATE jobs SET repost_key =
  lower(btrim(regexp_replace(title, '\s+', ' ', 'g'))) || chr(31) || lower(btrim(regexp_replace(coalesce(location, ''), '\s+', ' ', 'g')));

-- Rows written before this migration: how many earlier rows of the same vacancy had closed when this one
-- was first seen (the ledger's history cannot tell reopenings apart, so those are not counted here).
UPDATE jobs AS j SET repost_count = p.n
FROM (
  SELECT j2.id, count(*)::integer AS n
  FROM jobs j2
  JOIN jobs p2 ON p2.company_id = j2.company_id AND p2.repost_key = j2.repost_key AND p2.id <> j2.id
   AND p2.closed_at IS NOT NULL AND p2.closed_at <= j2.first_seen_at
  GROUP BY j2.id
) AS p
WHERE j.id = p.id;

-- A new posting's predecessors are looked up by employer and key (store/ledger.ts).
CREATE INDEX jobs_repost_idx ON jobs (company_id, repost_key);
