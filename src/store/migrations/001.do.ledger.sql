-- The ledger: providers, companies, crawl targets, job rows, change events.
-- Spec: Resources and their fields (Job, FieldSources, Company), States and transitions, Events.

CREATE TABLE providers (
  id              text PRIMARY KEY,
  label           text NOT NULL,
  -- Provider class in the legacy vocabulary (spec: Job.provider_type).
  provider_class  text NOT NULL CHECK (provider_class IN ('employer_ats', 'government', 'direct', 'aggregator')),
  -- Default row-level source_type of this provider's rows (spec: Job.source_type).
  source_type     text NOT NULL CHECK (source_type IN ('ats', 'career_site', 'public_agency', 'aggregator', 'agency', 'unknown')),
  -- Redistributable providers are served; the others are fetched for discovery only
  -- (spec: What the service does, item 11; coverage report excluded_sources).
  redistributable boolean NOT NULL DEFAULT true,
  discovery_only  boolean NOT NULL DEFAULT false,
  created_at      timestamptz NOT NULL DEFAULT now(),
  CHECK (NOT (redistributable AND discovery_only))
);

INSERT INTO providers (id, label, provider_class, source_type) VALUES
  ('ashby', 'Ashby', 'employer_ats', 'ats'),
  ('greenhouse', 'Greenhouse', 'employer_ats', 'ats'),
  ('lever', 'Lever', 'employer_ats', 'ats'),
  ('usajobs', 'USAJOBS', 'government', 'public_agency');

CREATE TABLE companies (
  id                  uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  -- Derived from the display name; a collision gets a short hash suffix (spec: Company slug rules).
  slug                text NOT NULL UNIQUE,
  name                text NOT NULL,
  -- Identity used to match a source's company to a row: 'domain:<bare domain>' or 'name:<folded name>'.
  identity_key        text NOT NULL UNIQUE,
  -- Bare domain (no scheme, no path, no www.) when known.
  domain              text,
  logo_url            text,
  country             text CHECK (country IS NULL OR country ~ '^[A-Z]{2}$'),
  industry            text,
  org_type            text,
  sectors             text[],
  -- Only set once the domain was fetched and the company's own name found there (spec: Company.website).
  website             text,
  website_verified_at date,
  careers_url         text,
  first_seen_at       timestamptz NOT NULL DEFAULT now(),
  updated_at          timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX companies_domain_idx ON companies (domain) WHERE domain IS NOT NULL;

-- Retired slugs answer 301 to the current one (spec: GET /v1/companies/{slug}).
CREATE TABLE company_slug_history (
  old_slug   text PRIMARY KEY,
  company_id uuid NOT NULL REFERENCES companies (id) ON DELETE CASCADE,
  retired_at timestamptz NOT NULL DEFAULT now()
);

-- One board or feed to crawl. Operator-provided company hints fill what a payload lacks (Ashby and
-- Lever payloads carry no company name).
CREATE TABLE crawl_targets (
  id                   text PRIMARY KEY,
  provider_id          text NOT NULL REFERENCES providers (id),
  board                text NOT NULL,
  company_name         text,
  company_domain       text,
  company_logo         text,
  enabled              boolean NOT NULL DEFAULT true,
  -- Recrawl interval in seconds.
  interval_seconds     integer NOT NULL DEFAULT 21600 CHECK (interval_seconds >= 60),
  etag                 text,
  last_modified        text,
  last_attempt_at      timestamptz,
  last_success_at      timestamptz,
  last_error           text,
  consecutive_failures integer NOT NULL DEFAULT 0,
  -- Successful crawls that returned a non-empty board; the not_seen rule counts these.
  good_crawls          bigint NOT NULL DEFAULT 0,
  created_at           timestamptz NOT NULL DEFAULT now(),
  UNIQUE (provider_id, board)
);

CREATE TABLE jobs (
  id                   uuid PRIMARY KEY,
  -- Title slug + first 8 characters of the id; fixed at creation so links keep working.
  slug                 text NOT NULL UNIQUE,
  provider_id          text NOT NULL REFERENCES providers (id),
  target_id            text REFERENCES crawl_targets (id) ON DELETE SET NULL,
  -- The source's own posting id, unique per provider.
  source_posting_id    text NOT NULL,
  company_id           uuid NOT NULL REFERENCES companies (id),
  -- Company display name as of the last write, kept here so full-text search needs no join.
  company_name         text NOT NULL,
  title                text NOT NULL CHECK (title <> ''),
  location             text CHECK (location <> ''),
  country              text CHECK (country ~ '^[A-Z]{2}$'),
  city                 text CHECK (city <> ''),
  state                text CONSTRAINT jobs_state_only_in_us CHECK (state IS NULL OR (state ~ '^[A-Z]{2}$' AND country = 'US')),
  remote               text CHECK (remote IN ('remote', 'hybrid', 'on_site')),
  remote_inferred      boolean NOT NULL DEFAULT false,
  employment_type      text CHECK (employment_type IN ('Full-time', 'Part-time', 'Contract', 'Temporary', 'Internship')),
  seniority            text CHECK (seniority IN ('Entry', 'Mid', 'Senior', 'Lead', 'Manager', 'Director', 'Executive', 'Intern')),
  category             text CHECK (category <> ''),
  category_confidence  real CHECK (category_confidence >= 0.6 AND category_confidence <= 1),
  posted_at            timestamptz,
  -- posted_at DESC NULLS LAST as a NOT NULL key, so keyset paging can use a row comparison.
  sort_key             timestamptz NOT NULL GENERATED ALWAYS AS (coalesce(posted_at, '-infinity'::timestamptz)) STORED,
  first_seen_at        timestamptz NOT NULL,
  last_verified_at     timestamptz NOT NULL,
  -- When served content last changed (created or updated).
  content_changed_at   timestamptz NOT NULL,
  status               text NOT NULL CHECK (status IN ('live', 'closed')),
  closed_at            timestamptz,
  closed_reason        text CHECK (closed_reason IN ('expired_upstream', 'not_seen')),
  -- When the vacancy was proved dead upstream, as opposed to when the ledger closed it.
  upstream_expired_at  timestamptz,
  -- When the source says the vacancy closes (USAJOBS close_date).
  upstream_closes_at   timestamptz,
  -- Why a row that is not closed is not served (spec: withheld_listings). Null: served.
  withheld_kind        text CHECK (withheld_kind IN ('quality_removed', 'quality_gated', 'optout_hidden')),
  -- The quality gate's verdict, its rule and the host it matched (served with quality=all).
  quality_verdict      text NOT NULL CHECK (quality_verdict IN ('live', 'quality_removed', 'quality_gated', 'optout_hidden')),
  quality_rule_id      text,
  quality_matched_host text,
  -- Rows posted by a staffing agency or a job board: excluded by default (spec: item 2).
  poster_type          text CHECK (poster_type IN ('staffing', 'jobboard')),
  apply_url            text CHECK (apply_url <> ''),
  posting_url          text,
  source_type          text NOT NULL CHECK (source_type IN ('ats', 'career_site', 'public_agency', 'aggregator', 'agency', 'unknown')),
  provider_type        text NOT NULL CHECK (provider_type IN ('employer_ats', 'government', 'direct', 'aggregator')),
  has_description      boolean NOT NULL,
  -- Sanitized HTML and the plain text extracted from it.
  description_html     text,
  description_text     text,
  salary_min           numeric,
  salary_max           numeric,
  salary_currency      text CHECK (salary_currency ~ '^[A-Z]{3}$'),
  salary_period        text CHECK (salary_period IN ('annual', 'monthly', 'weekly', 'daily', 'hourly')),
  salary_source        text CHECK (salary_source IN ('structured', 'parsed_description')),
  salary_min_annual_eur numeric,
  -- All nine provenance keys (spec: FieldSources).
  field_sources        jsonb NOT NULL,
  attribution          text,
  canonical_url        text,
  -- sha256 of the normalized served content; a different hash on a recrawl is an `updated`.
  content_hash         text NOT NULL,
  -- Consecutive good crawls of the row's board that did not list it (the not_seen rule).
  missed_crawls        integer NOT NULL DEFAULT 0,
  -- What /v1/jobs serves by default: live, not withheld, employer-posted.
  served               boolean NOT NULL GENERATED ALWAYS AS (status = 'live' AND withheld_kind IS NULL AND poster_type IS NULL) STORED,
  title_tsv            tsvector NOT NULL GENERATED ALWAYS AS (to_tsvector('simple'::regconfig, title)) STORED,
  search_tsv           tsvector NOT NULL GENERATED ALWAYS AS (
                         to_tsvector('simple'::regconfig, title || ' ' || company_name || ' ' || coalesce(location, ''))
                       ) STORED,
  description_tsv      tsvector NOT NULL GENERATED ALWAYS AS (
                         to_tsvector('simple'::regconfig, left(coalesce(description_text, ''), 200000))
                       ) STORED,
  created_at           timestamptz NOT NULL DEFAULT now(),
  updated_at           timestamptz NOT NULL DEFAULT now(),
  UNIQUE (provider_id, source_posting_id),
  CONSTRAINT jobs_closed_at_on_closed_rows CHECK ((status = 'closed') = (closed_at IS NOT NULL)),
  CONSTRAINT jobs_closed_reason_on_closed_rows CHECK ((status = 'closed') = (closed_reason IS NOT NULL)),
  CONSTRAINT jobs_category_with_confidence CHECK ((category IS NULL) = (category_confidence IS NULL)),
  CONSTRAINT jobs_description_flag CHECK (has_description = (description_html IS NOT NULL)),
  CONSTRAINT jobs_salary_source_with_amount CHECK ((salary_source IS NULL) = (salary_min IS NULL AND salary_max IS NULL)),
  CONSTRAINT jobs_all_field_sources CHECK (
    field_sources ?& ARRAY['remote', 'employment_type', 'category', 'seniority', 'salary', 'location', 'posted_at', 'description', 'source_type']
  )
);

-- Default listing order (spec: GET /v1/jobs, posted_at desc nulls last then id desc) over served rows.
CREATE INDEX jobs_served_order_idx ON jobs (sort_key DESC, id DESC) WHERE served;
CREATE INDEX jobs_closed_order_idx ON jobs (closed_at DESC, id DESC) WHERE status = 'closed';
CREATE INDEX jobs_target_idx ON jobs (target_id) WHERE status = 'live';
CREATE INDEX jobs_company_idx ON jobs (company_id, sort_key DESC, id DESC) WHERE served;
CREATE INDEX jobs_country_idx ON jobs (country, sort_key DESC, id DESC) WHERE served;
CREATE INDEX jobs_provider_idx ON jobs (provider_id, sort_key DESC, id DESC) WHERE served;
CREATE INDEX jobs_search_tsv_idx ON jobs USING gin (search_tsv);
CREATE INDEX jobs_title_tsv_idx ON jobs USING gin (title_tsv);
CREATE INDEX jobs_description_tsv_idx ON jobs USING gin (description_tsv);

-- One row per change the sync feed reports (spec: Events). Writers insert in the same transaction as
-- the job change; `published_at` is stamped later, in commit order, by a single serialized publisher,
-- so a feed reader can never pass an event that has not committed yet (see docs/architecture.md).
CREATE TABLE change_events (
  id           uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  seq          bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
  job_id       uuid NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,
  change       text NOT NULL CHECK (change IN ('created', 'updated', 'delisted', 'withdrawn')),
  recorded_at  timestamptz NOT NULL DEFAULT clock_timestamp(),
  published_at timestamptz
);
CREATE INDEX change_events_unpublished_idx ON change_events (seq) WHERE published_at IS NULL;
CREATE INDEX change_events_feed_idx ON change_events (published_at, id) WHERE published_at IS NOT NULL;
CREATE INDEX change_events_job_idx ON change_events (job_id);

-- One row per crawl attempt, for operators (what happened, how long, what changed).
CREATE TABLE crawl_runs (
  id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  target_id   text NOT NULL REFERENCES crawl_targets (id) ON DELETE CASCADE,
  started_at  timestamptz NOT NULL,
  finished_at timestamptz NOT NULL,
  outcome     text NOT NULL CHECK (outcome IN ('fetched', 'not_modified', 'failed')),
  error_kind  text,
  postings    integer NOT NULL DEFAULT 0,
  created     integer NOT NULL DEFAULT 0,
  updated     integer NOT NULL DEFAULT 0,
  unchanged   integer NOT NULL DEFAULT 0,
  closed      integer NOT NULL DEFAULT 0,
  withdrawn   integer NOT NULL DEFAULT 0
);
CREATE INDEX crawl_runs_target_idx ON crawl_runs (target_id, started_at DESC);
