-- Issue 15 class 5: the ECB euro reference rates the service has fetched, one row per day and
-- currency, kept as history (never overwritten by a later day). `units_per_eur` is the ECB's figure
-- (units of the currency per 1 EUR); EUR per unit is its inverse. The bundled history
-- (fixtures/fx/eurofxref-hist.zip) stays the fallback and is not copied here.
CREATE TABLE fx_rates (
  rate_date      date NOT NULL,
  currency       text NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
  units_per_eur  numeric NOT NULL CHECK (units_per_eur > 0),
  source_url     text NOT NULL,
  fetched_at     timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (currency, rate_date)
);
