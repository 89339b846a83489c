-- Direct submissions (issue 17; spec: "Every listing comes from ... or a direct submission"): an
-- employer submits one vacancy on the website; a link e-mailed to an address at the company's domain
-- verifies it, and only then does it enter the ledger as provider `submissions` (class `direct`,
-- row-level source_type `career_site`), through enrichment, the quality gate and the change feed.

INSERT INTO providers (id, label, provider_class, source_type) VALUES
  ('submissions', 'Direct submissions by employers', 'direct', 'career_site')
ON CONFLICT (id) DO NOTHING;

-- Submitted rows have no crawl target (jobs.target_id NULL): no crawl lists them, so the absence
-- rule never runs over them; re-confirmation and its lapse (not_seen) are the submission desk's.

-- The verification link of a submission is an e-mailed single-use token like the others.
ALTER TABLE email_tokens DROP CONSTRAINT email_tokens_purpose_check;
ALTER TABLE email_tokens ADD CONSTRAINT email_tokens_purpose_check CHECK (purpose IN ('sign_in', 'optout', 'subscribe', 'submission'));

CREATE TABLE submissions (
  id                uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  -- pending: waiting for the e-mailed verification; open: in the ledger; closed: closed by the
  -- submitter (expired_upstream); lapsed: not re-confirmed in time (not_seen); rejected: by the operator.
  status            text NOT NULL CHECK (status IN ('pending', 'open', 'closed', 'lapsed', 'rejected')),
  -- The verified (or to-be-verified) address at the company's domain; lower-cased.
  email             text NOT NULL CHECK (length(email) <= 254),
  company_name      text NOT NULL CHECK (company_name <> '' AND length(company_name) <= 200),
  company_domain    text NOT NULL CHECK (company_domain <> '' AND length(company_domain) <= 253),
  title             text NOT NULL CHECK (title <> '' AND length(title) <= 200),
  location          text NOT NULL CHECK (location <> '' AND length(location) <= 200),
  employment_type   text NOT NULL CHECK (employment_type IN ('Full-time', 'Part-time', 'Contract', 'Temporary', 'Internship')),
  remote            text CHECK (remote IN ('remote', 'hybrid', 'on_site')),
  -- Plain text as the employer typed it; enrichment escapes and sanitizes it like every description.
  description       text NOT NULL CHECK (description <> '' AND length(description) <= 20000),
  apply_url         text NOT NULL CHECK (length(apply_url) <= 2000),
  salary_min        numeric CHECK (salary_min > 0),
  salary_max        numeric CHECK (salary_max > 0),
  salary_currency   text CHECK (salary_currency ~ '^[A-Z]{3}$'),
  salary_period     text CHECK (salary_period IN ('annual', 'monthly', 'weekly', 'daily', 'hourly')),
  created_at        timestamptz NOT NULL DEFAULT now(),
  updated_at        timestamptz NOT NULL DEFAULT now(),
  -- When the e-mailed link was used (the vacancy was published), and last re-confirmed by the submitter.
  verified_at       timestamptz,
  confirmed_at      timestamptz,
  -- The re-confirmation reminder sent for the current confirmation period.
  reminded_at       timestamptz,
  closed_at         timestamptz,
  rejected_reason   text CHECK (length(rejected_reason) <= 500),
  -- SHA-256 of the edit-or-close link's token (the token itself is only in the e-mail).
  manage_token_hash bytea UNIQUE CHECK (length(manage_token_hash) = 32),
  job_id            uuid REFERENCES jobs (id) ON DELETE SET NULL,
  CONSTRAINT submissions_salary_complete CHECK (
    (salary_min IS NULL AND salary_max IS NULL AND salary_currency IS NULL AND salary_period IS NULL)
    OR (salary_min IS NOT NULL AND salary_currency IS NOT NULL AND salary_period IS NOT NULL AND (salary_max IS NULL OR salary_max >= salary_min))
  ),
  CONSTRAINT submissions_open_verified CHECK (status = 'pending' OR status = 'rejected' OR verified_at IS NOT NULL)
);
CREATE INDEX submissions_open_confirmed_idx ON submissions (confirmed_at) WHERE status = 'open';
CREATE INDEX submissions_created_idx ON submissions (created_at DESC);
