-- The website (issue 14): e-mailed single-use links, browser sessions, subscriptions and contact
-- messages; accounts gain a unique e-mail address and the instant their free key was given.

-- One account per e-mail address (stored lower-cased by the accounts service); CLI-made accounts
-- keep a null address.
CREATE UNIQUE INDEX accounts_email_idx ON accounts (email) WHERE email IS NOT NULL;
-- The one free `explore` key a website account may take (spec: API key state, "free key").
ALTER TABLE accounts ADD COLUMN free_key_at timestamptz;

-- Every e-mailed link (sign-in, opt-out verification, subscription confirmation) is a random token
-- stored only as its SHA-256, good once and until `expires_at`.
CREATE TABLE email_tokens (
  token_hash bytea PRIMARY KEY CHECK (length(token_hash) = 32),
  purpose    text NOT NULL CHECK (purpose IN ('sign_in', 'optout', 'subscribe')),
  email      text NOT NULL,
  -- The opt-out's domain; null for the other purposes.
  subject    text,
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL,
  used_at    timestamptz
);
CREATE INDEX email_tokens_expires_idx ON email_tokens (expires_at);

-- Browser sessions (@fastify/session's store): the cookie carries a signed random id, the table
-- only its SHA-256. Rows past `expires_at` are never read and are swept.
CREATE TABLE web_sessions (
  id_hash    bytea PRIMARY KEY CHECK (length(id_hash) = 32),
  account_id uuid REFERENCES accounts (id) ON DELETE CASCADE,
  data       jsonb NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL
);
CREATE INDEX web_sessions_expires_idx ON web_sessions (expires_at);

-- Double opt-in subscriptions to the service's update e-mails.
CREATE TABLE subscriptions (
  email           text PRIMARY KEY,
  status          text NOT NULL CHECK (status IN ('pending', 'confirmed', 'unsubscribed')),
  created_at      timestamptz NOT NULL DEFAULT now(),
  confirmed_at    timestamptz,
  unsubscribed_at timestamptz
);

-- Messages sent through the contact form, kept whether or not e-mailing the operator worked.
CREATE TABLE contact_messages (
  id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  email      text NOT NULL,
  name       text,
  message    text NOT NULL CHECK (message <> ''),
  created_at timestamptz NOT NULL DEFAULT now(),
  mailed_at  timestamptz
);
