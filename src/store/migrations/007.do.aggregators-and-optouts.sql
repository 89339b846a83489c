-- Job-board / aggregator feeds as discovery-only providers, and verified employer opt-outs.
-- Spec: What the service does, items 2, 10 and 11 (aggregator inventory is never served; withheld
-- kind optout_hidden; sources fetched but not redistributed are discovery-only).

INSERT INTO providers (id, label, provider_class, source_type, redistributable, discovery_only) VALUES
  ('remotive', 'Remotive', 'aggregator', 'aggregator', false, true),
  ('himalayas', 'Himalayas', 'aggregator', 'aggregator', false, true),
  ('arbeitnow', 'Arbeitnow', 'aggregator', 'aggregator', false, true)
ON CONFLICT (id) DO NOTHING;

-- A verified employer opt-out: every row of that employer is withheld as optout_hidden.
-- Matched by the employer's bare domain, by its company row, or both. Revoked opt-outs are kept for
-- the record (revoked_at set) and no longer match.
CREATE TABLE employer_optouts (
  id           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  domain       text CHECK (domain IS NULL OR domain ~ '^[a-z0-9.-]+\.[a-z]{2,}$'),
  company_id   uuid REFERENCES companies (id) ON DELETE CASCADE,
  -- Who verified the request and how (operator's note, e.g. "reply from hr@example.com, ticket 123").
  verified_by  text NOT NULL CHECK (verified_by <> ''),
  verified_at  timestamptz NOT NULL,
  note         text,
  created_at   timestamptz NOT NULL DEFAULT now(),
  revoked_at   timestamptz,
  CHECK (domain IS NOT NULL OR company_id IS NOT NULL)
);
CREATE UNIQUE INDEX employer_optouts_active_domain_idx ON employer_optouts (domain) WHERE revoked_at IS NULL AND domain IS NOT NULL;
CREATE UNIQUE INDEX employer_optouts_active_company_idx ON employer_optouts (company_id) WHERE revoked_at IS NULL AND company_id IS NOT NULL;
