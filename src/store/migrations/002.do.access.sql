-- Plans, accounts and API keys (spec: Authentication, Limits › Plan matrix).

-- Plans are data: prices, allowances and entitlements exactly as the spec's tables.
CREATE TABLE plans (
  id                  text PRIMARY KEY,
  label               text NOT NULL,
  price_cents         integer NOT NULL CHECK (price_cents >= 0),
  currency            text NOT NULL DEFAULT 'EUR',
  records_per_month   bigint NOT NULL,
  requests_per_day    integer NOT NULL,
  requests_per_minute integer NOT NULL,
  max_page_size       integer NOT NULL,
  -- Entitlement identifiers: delta_feed, bulk_export, single_country.
  entitlements        text[] NOT NULL DEFAULT '{}',
  purchasable         boolean NOT NULL DEFAULT true,
  active              boolean NOT NULL DEFAULT true,
  sort_order          integer NOT NULL DEFAULT 0
);

INSERT INTO plans (id, label, price_cents, records_per_month, requests_per_day, requests_per_minute, max_page_size, entitlements, sort_order) VALUES
  ('explore', 'Explore', 0, 1000, 5000, 30, 200, '{}', 1),
  ('growth', 'Growth', 8000, 60000, 100000, 120, 200, '{delta_feed}', 2),
  ('signal', 'Signal', 29900, 400000, 400000, 300, 200, '{delta_feed,bulk_export}', 3),
  ('scale', 'Scale', 89900, 2000000, 1000000, 600, 200, '{delta_feed,bulk_export}', 4);

CREATE TABLE accounts (
  id         uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  name       text,
  email      text,
  created_at timestamptz NOT NULL DEFAULT now()
);

-- Secrets are never stored: only their SHA-256. `key_prefix` is a short, non-secret label that is
-- also the lookup handle inside the key string; it survives rotation.
CREATE TABLE api_keys (
  id           uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  account_id   uuid NOT NULL REFERENCES accounts (id),
  name         text,
  key_prefix   text NOT NULL UNIQUE,
  secret_hash  bytea NOT NULL CHECK (length(secret_hash) = 32),
  plan_id      text NOT NULL REFERENCES plans (id),
  -- ISO-3166 alpha-2 of a country-locked key (single_country), else null.
  country_lock text CHECK (country_lock ~ '^[A-Z]{2}$'),
  status       text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'revoked')),
  created_at   timestamptz NOT NULL DEFAULT now(),
  -- Past this instant the key is expired and gets the same 401 as an unknown key.
  expires_at   timestamptz,
  revoked_at   timestamptz,
  rotated_at   timestamptz,
  last_used_at timestamptz,
  CHECK ((status = 'revoked') = (revoked_at IS NOT NULL))
);
CREATE INDEX api_keys_account_idx ON api_keys (account_id);

-- Process-independent settings, e.g. the cursor signing secret every API process must share.
CREATE TABLE service_settings (
  key        text PRIMARY KEY,
  value      text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
