-- Billing (issue 14, checkout): a key's paid subscription and the payment provider's notifications.
-- See docs/architecture.md "Billing".

-- The subscription that pays for a key's plan: at most one per key (a new purchase replaces the row),
-- so a notification about any other subscription is recognised as stale and changes nothing.
-- `renews_at` is the end of the period paid for (the `renews_or_expires` of GET /v1/me while the
-- subscription renews). `lapses_at` is set when the subscription will not renew (cancelled, or
-- cancelled at the period end): from that instant the key holds `plan_after`, checked at read time
-- (store/api-keys.ts findKeyWithPlan), so the downgrade is exact to the second whether or not the
-- provider's final notification has arrived.
CREATE TABLE key_subscriptions (
  api_key_id      uuid PRIMARY KEY REFERENCES api_keys (id),
  provider        text NOT NULL,
  subscription_id text NOT NULL,
  customer_id     text,
  plan_id         text NOT NULL REFERENCES plans (id),
  -- The provider's own status word (Stripe: active, trialing, past_due, canceled, unpaid, ...).
  status          text NOT NULL,
  renews_at       timestamptz NOT NULL,
  lapses_at       timestamptz,
  plan_after      text NOT NULL REFERENCES plans (id),
  created_at      timestamptz NOT NULL DEFAULT now(),
  updated_at      timestamptz NOT NULL DEFAULT now(),
  UNIQUE (provider, subscription_id)
);

-- Every provider notification acted on, by the provider's event id: a replayed or re-delivered event
-- is recognised and changes nothing a second time. Written in the transaction of the change it made.
CREATE TABLE billing_events (
  provider    text NOT NULL,
  event_id    text NOT NULL,
  event_type  text NOT NULL,
  -- What the notification did: e.g. `plan growth until 2026-12-25T...`, `ignored: ...`.
  outcome     text NOT NULL,
  received_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (provider, event_id)
);
