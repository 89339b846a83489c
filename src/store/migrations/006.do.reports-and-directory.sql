-- Report snapshots computed by the worker, and indexes for the employer directory and the export.
-- Spec: Freshness report, Coverage report, GET /public/stats ("computed as snapshots, refreshed on an
-- interval; every report carries measured_at, age_seconds, stale"); GET /v1/companies; GET /v1/export.

-- One row per report: the latest snapshot wins (a refresh replaces it in one statement).
CREATE TABLE report_snapshots (
  name        text PRIMARY KEY CHECK (name ~ '^[a-z_]+$'),
  -- The report body as served, without the per-request fields (age_seconds, stale, generated_at).
  data        jsonb NOT NULL,
  -- When the numbers were measured (the refresh's instant).
  measured_at timestamptz NOT NULL,
  -- How long the refresh took, milliseconds (for operators).
  duration_ms integer NOT NULL CHECK (duration_ms >= 0)
);

-- own_site_roles counts live rows of non-redistributed providers per company.
CREATE INDEX jobs_company_live_idx ON jobs (company_id, provider_id) WHERE status = 'live';
-- status=closed|any exports walk closed rows in id order.
CREATE INDEX jobs_closed_id_idx ON jobs (id) WHERE status = 'closed';

-- When the company's own website was last checked, whatever the outcome (a failed proof clears
-- website and website_verified_at but is still a check: it is not retried before the next round).
ALTER TABLE companies ADD COLUMN website_checked_at timestamptz;
