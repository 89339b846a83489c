/**
 * Every setting of the service, read from the environment once at start and passed down as a plain
 * object. The table below is the single source of truth: the README's configuration table and
 * `jobledger config` print it.
 */
import path from 'node:path';

export interface Config {
  /** HTTP listen port. */
  port: number;
  /** HTTP listen address. */
  host: string;
  /** External PostgreSQL URL; undefined selects the embedded PostgreSQL. */
  databaseUrl: string | undefined;
  /** Data directory (embedded PostgreSQL cluster lives in `<dataDir>/pg`). Absolute path. */
  dataDir: string;
  /** TCP port of the embedded PostgreSQL (loopback only). */
  embeddedPgPort: number;
  /** Redis URL for shared request counters; undefined keeps them in PostgreSQL or in process. */
  redisUrl: string | undefined;
  /** Namespace of every Redis key, so services sharing one Redis never collide. */
  redisKeyPrefix: string;
  /** Where request counters live without Redis: `postgres` (shared by processes) or `memory` (one process). */
  requestCounters: 'postgres' | 'memory';
  /** pino log level. */
  logLevel: string;
  /** Per-statement time limit, milliseconds (spec: Limits, statement timeout 10 seconds). */
  statementTimeoutMs: number;
  /** Base URL of the `docs` link in error bodies; the error code is appended as a fragment. */
  docsUrl: string;
  /** Outbound fetch settings for connectors. */
  fetch: FetchConfig;
  /** Base URL of each connector's upstream API. */
  sources: SourceBaseUrls;
  /** Number of reverse-proxy hops whose X-Forwarded-For is trusted (0: use the socket address). */
  trustProxyHops: number;
  /** Keyless requests per 5 seconds and client address; 0 turns the keyless limit off. */
  keylessBurst: number;
  /** Seconds between refreshes of the report snapshots (freshness, coverage, stats). */
  reportRefreshSeconds: number;
  /** The crawl worker. */
  worker: WorkerConfig;
  /** When absence from good crawls closes a row as not_seen. */
  absence: { crawls: number; minSeconds: number };
  /** Stripe Checkout (src/billing); undefined (the default) sells no plans. */
  stripe: StripeConfig | undefined;
}

/** Stripe settings; the shape src/billing/stripe-checkout.ts takes. */
export interface StripeConfig {
  secretKey: string;
  webhookSecret: string;
  /** Scheme, host and port of Stripe's API. */
  apiUrl: string;
  /** Stripe price id of each purchasable plan id. */
  prices: Record<string, string>;
}

export interface WorkerConfig {
  /** Run the worker inside `jobledger serve` (turn off when separate `jobledger worker` processes run). */
  inServe: boolean;
  /** Crawls at once per worker process. */
  concurrency: number;
  /** Crawls at once against one upstream host, across all workers. */
  perHost: number;
  /** Seconds between scheduling passes. */
  tickSeconds: number;
  /** Posting URLs probed (404/410 proves a vacancy dead) after one crawl, at most. */
  probeLimit: number;
}

export interface FetchConfig {
  /** Whole-request time limit, milliseconds. */
  timeoutMs: number;
  /** Largest response body accepted, bytes. */
  maxBytes: number;
  /** Retries after the first attempt on 429, 5xx and network errors. */
  retries: number;
  /** First backoff delay, milliseconds; doubles per retry (a 429's Retry-After wins, capped at 60 s). */
  backoffMs: number;
  /**
   * Addresses allowed even though they are private, loopback or link-local: CIDR blocks
   * ("127.0.0.1/32") or single addresses, each optionally with one port ("127.0.0.1:8443",
   * "10.0.0.0/8:443", "[::1]:9000"; no port: any port). Syntax and rules: ingest/address-policy.ts.
   * Empty by default: every such address is refused.
   */
  allow: string[];
  /** User-Agent sent upstream. */
  userAgent: string;
}

export interface SourceBaseUrls {
  ashby: string;
  greenhouse: string;
  lever: string;
  usajobs: string;
  /** Job-board / aggregator feeds, fetched for discovery only (their rows are never served). */
  remotive: string;
  himalayas: string;
  arbeitnow: string;
}

interface Setting {
  env: string;
  default: string | undefined;
  description: string;
}

/** Every environment variable the service reads, with its default and meaning. */
export const SETTINGS: readonly Setting[] = [
  { env: 'PORT', default: '8080', description: 'HTTP port of the API server.' },
  { env: 'HOST', default: '0.0.0.0', description: 'Address the API server listens on.' },
  { env: 'DATABASE_URL', default: undefined, description: 'External PostgreSQL (15 or newer). Unset: an embedded PostgreSQL is started in the data directory.' },
  { env: 'JOBLEDGER_DATA_DIR', default: './data', description: 'Data directory; the embedded PostgreSQL cluster lives in its `pg/` folder.' },
  { env: 'JOBLEDGER_EMBEDDED_PG_PORT', default: '54329', description: 'Loopback port of the embedded PostgreSQL. CLI commands find a running instance through its data directory.' },
  {
    env: 'REDIS_URL',
    default: undefined,
    description: 'Redis for request counters shared by several API processes. Unset: see JOBLEDGER_REQUEST_COUNTERS. When Redis is unreachable, each process counts on its own until it answers (fail open).',
  },
  { env: 'JOBLEDGER_REDIS_KEY_PREFIX', default: 'jobledger', description: 'Prefix of every Redis key this service writes, so services sharing one Redis never collide.' },
  {
    env: 'JOBLEDGER_REQUEST_COUNTERS',
    default: 'postgres',
    description: 'Where request counters live without REDIS_URL: `postgres` (shared by every API process on the database) or `memory` (one API process only).',
  },
  { env: 'LOG_LEVEL', default: 'info', description: 'pino log level: fatal, error, warn, info, debug, trace, silent.' },
  { env: 'JOBLEDGER_STATEMENT_TIMEOUT_MS', default: '10000', description: 'PostgreSQL statement_timeout for API queries, in milliseconds.' },
  { env: 'JOBLEDGER_DOCS_URL', default: 'https://github.com/jobledger/jobledger/blob/main/docs/errors.md', description: 'Base of the `docs` link in error bodies.' },
  { env: 'JOBLEDGER_TRUST_PROXY_HOPS', default: '0', description: 'Reverse-proxy hops whose X-Forwarded-For is trusted for the client address; 0 uses the socket address.' },
  {
    env: 'JOBLEDGER_KEYLESS_BURST',
    default: '10',
    description: 'Keyless (/public) requests allowed per 5 seconds and client address (about 2 per second); beyond it 429. 0 turns the limit off (e.g. behind a CDN that limits).',
  },
  {
    env: 'JOBLEDGER_REPORT_REFRESH_SECONDS',
    default: '900',
    description: 'Seconds between refreshes of the report snapshots (freshness, coverage, stats); a snapshot older than twice this is reported stale.',
  },
  { env: 'JOBLEDGER_SERVE_WORKER', default: 'true', description: 'Run the crawl worker inside `jobledger serve` (true/false). Set false when separate `jobledger worker` processes run.' },
  { env: 'JOBLEDGER_WORKER_CONCURRENCY', default: '4', description: 'Crawls at once in one worker process.' },
  { env: 'JOBLEDGER_WORKER_PER_HOST', default: '2', description: 'Crawls at once against one upstream host, across all worker processes.' },
  { env: 'JOBLEDGER_WORKER_TICK_SECONDS', default: '30', description: 'Seconds between the worker\'s scheduling passes (queue due targets, close rows past their close date).' },
  { env: 'JOBLEDGER_NOT_SEEN_CRAWLS', default: '3', description: 'Consecutive good crawls of a board without a posting before it closes as not_seen.' },
  { env: 'JOBLEDGER_NOT_SEEN_MIN_HOURS', default: '24', description: 'And at least this many hours since the posting was last seen at its source.' },
  { env: 'JOBLEDGER_PROBE_LIMIT', default: '10', description: 'Posting URLs probed after one crawl (rows the board stopped listing; a 404 or 410 closes them as expired_upstream). 0 turns probing off.' },
  { env: 'JOBLEDGER_FETCH_TIMEOUT_MS', default: '30000', description: 'Time limit of one upstream request, in milliseconds.' },
  { env: 'JOBLEDGER_FETCH_MAX_BYTES', default: '67108864', description: 'Largest upstream response accepted, in bytes (64 MiB).' },
  { env: 'JOBLEDGER_FETCH_RETRIES', default: '3', description: 'Retries on 429, 5xx and network errors, with exponential backoff.' },
  { env: 'JOBLEDGER_FETCH_BACKOFF_MS', default: '500', description: 'First retry delay in milliseconds; doubles on each retry.' },
  { env: 'JOBLEDGER_FETCH_ALLOW', default: '', description: 'Comma list of private/loopback addresses or CIDR blocks that connectors may reach anyway, each optionally limited to one port (127.0.0.1/32, 10.0.0.0/8:443, 127.0.0.1:8443, [::1]:9000); an entry without a port admits every port. Redirects are checked against it too. Empty: all are refused.' },
  { env: 'JOBLEDGER_ASHBY_BASE_URL', default: 'https://api.ashbyhq.com', description: 'Ashby posting API base URL.' },
  { env: 'JOBLEDGER_GREENHOUSE_BASE_URL', default: 'https://boards-api.greenhouse.io', description: 'Greenhouse job board API base URL.' },
  { env: 'JOBLEDGER_LEVER_BASE_URL', default: 'https://api.lever.co', description: 'Lever postings API base URL.' },
  {
    env: 'JOBLEDGER_USAJOBS_BASE_URL',
    default: 'https://raw.githubusercontent.com/abigailhaddad/usajobs_historical/main/tracking/public/data/raw_jobs',
    description: 'Base URL of the USAJOBS announcement files (one JSON array per department).',
  },
  { env: 'JOBLEDGER_REMOTIVE_BASE_URL', default: 'https://remotive.com', description: 'Remotive job-board API base URL (discovery only: its rows are never served).' },
  { env: 'JOBLEDGER_HIMALAYAS_BASE_URL', default: 'https://himalayas.app', description: 'Himalayas job-board API base URL (discovery only: its rows are never served).' },
  { env: 'JOBLEDGER_ARBEITNOW_BASE_URL', default: 'https://www.arbeitnow.com', description: 'Arbeitnow job-board API base URL (discovery only: its rows are never served).' },
  {
    env: 'JOBLEDGER_STRIPE_SECRET_KEY',
    default: undefined,
    description: 'Stripe secret API key (sk_live_... or sk_test_...). Unset: no plans are sold; checkout answers 501 payments_not_configured and the site offers no upgrade. Set it together with the webhook secret and the prices.',
  },
  { env: 'JOBLEDGER_STRIPE_WEBHOOK_SECRET', default: undefined, description: 'Signing secret (whsec_...) of the Stripe webhook endpoint that posts to /public/checkout/webhook.' },
  { env: 'JOBLEDGER_STRIPE_API_URL', default: 'https://api.stripe.com', description: 'Base URL of the Stripe API (scheme, host and port only); tests point it at a loopback server.' },
  {
    env: 'JOBLEDGER_STRIPE_PRICES',
    default: '',
    description: 'Comma list of plan=price pairs: the recurring Stripe price of each plan on sale (growth=price_...,signal=price_...,scale=price_...). Plans are data, so a new plan needs only a new pair.',
  },
];

/** A setting whose value cannot be used; the message names the variable and the problem. */
export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

function read(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const setting = SETTINGS.find((s) => s.env === name);
  if (!setting) throw new Error(`unknown setting ${name}`);
  const raw = env[name];
  return raw === undefined || raw === '' ? setting.default : raw;
}

function integer(env: NodeJS.ProcessEnv, name: string, min: number, max: number): number {
  const raw = read(env, name) ?? '';
  const value = Number(raw);
  if (!/^\d+$/.test(raw.trim()) || !Number.isSafeInteger(value) || value < min || value > max) {
    throw new ConfigError(`${name} must be an integer from ${min} to ${max}, got "${raw}"`);
  }
  return value;
}

function url(env: NodeJS.ProcessEnv, name: string): string {
  const raw = read(env, name) ?? '';
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new ConfigError(`${name} must be an absolute http(s) URL, got "${raw}"`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new ConfigError(`${name} must use http or https, got "${parsed.protocol}"`);
  }
  return raw.replace(/\/+$/, '');
}

function boolean(env: NodeJS.ProcessEnv, name: string): boolean {
  const raw = (read(env, name) ?? '').trim().toLowerCase();
  if (raw === 'true' || raw === '1' || raw === 'yes') return true;
  if (raw === 'false' || raw === '0' || raw === 'no') return false;
  throw new ConfigError(`${name} must be true or false, got "${raw}"`);
}

/** The Stripe settings, or undefined when no secret key is set (payments off). */
function stripeConfig(env: NodeJS.ProcessEnv): StripeConfig | undefined {
  const secretKey = read(env, 'JOBLEDGER_STRIPE_SECRET_KEY');
  const webhookSecret = read(env, 'JOBLEDGER_STRIPE_WEBHOOK_SECRET');
  const pairs = (read(env, 'JOBLEDGER_STRIPE_PRICES') ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (secretKey === undefined) {
    if (webhookSecret !== undefined || pairs.length > 0) {
      throw new ConfigError('JOBLEDGER_STRIPE_WEBHOOK_SECRET and JOBLEDGER_STRIPE_PRICES need JOBLEDGER_STRIPE_SECRET_KEY; set all three, or none to sell no plans');
    }
    return undefined;
  }
  if (webhookSecret === undefined) throw new ConfigError('JOBLEDGER_STRIPE_SECRET_KEY is set but JOBLEDGER_STRIPE_WEBHOOK_SECRET is not: without it no payment could upgrade a key');
  const prices: Record<string, string> = {};
  for (const pair of pairs) {
    const match = /^([a-z0-9_-]+)=(\S+)$/.exec(pair);
    if (!match) throw new ConfigError(`JOBLEDGER_STRIPE_PRICES entries must read plan=price_id, got "${pair}"`);
    prices[match[1]!] = match[2]!;
  }
  if (Object.keys(prices).length === 0) throw new ConfigError('JOBLEDGER_STRIPE_SECRET_KEY is set but JOBLEDGER_STRIPE_PRICES names no plan=price_id pair: nothing could be sold');
  const apiUrl = url(env, 'JOBLEDGER_STRIPE_API_URL');
  if (new URL(apiUrl).pathname !== '/') throw new ConfigError(`JOBLEDGER_STRIPE_API_URL must be a scheme, host and port only (the client adds /v1), got "${apiUrl}"`);
  return { secretKey, webhookSecret, apiUrl, prices };
}

/**
 * Parse the environment into a {@link Config}.
 * @throws ConfigError naming the variable when a value is malformed.
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env, cwd: string = process.cwd()): Config {
  const databaseUrl = read(env, 'DATABASE_URL');
  if (databaseUrl !== undefined && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    throw new ConfigError('DATABASE_URL must start with postgres:// or postgresql://');
  }
  const redisUrl = read(env, 'REDIS_URL');
  if (redisUrl !== undefined && !/^rediss?:\/\//.test(redisUrl)) {
    throw new ConfigError('REDIS_URL must start with redis:// or rediss://');
  }
  const redisKeyPrefix = read(env, 'JOBLEDGER_REDIS_KEY_PREFIX') ?? 'jobledger';
  if (!/^[A-Za-z0-9:_.-]{1,64}$/.test(redisKeyPrefix)) {
    throw new ConfigError(`JOBLEDGER_REDIS_KEY_PREFIX must be 1 to 64 letters, digits or : _ . -; got "${redisKeyPrefix}"`);
  }
  const requestCounters = read(env, 'JOBLEDGER_REQUEST_COUNTERS') ?? 'postgres';
  if (requestCounters !== 'postgres' && requestCounters !== 'memory') {
    throw new ConfigError(`JOBLEDGER_REQUEST_COUNTERS must be postgres or memory; got "${requestCounters}"`);
  }
  const logLevel = read(env, 'LOG_LEVEL') ?? 'info';
  if (!['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].includes(logLevel)) {
    throw new ConfigError(`LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent; got "${logLevel}"`);
  }
  return {
    port: integer(env, 'PORT', 0, 65535),
    host: read(env, 'HOST') ?? '0.0.0.0',
    databaseUrl,
    dataDir: path.resolve(cwd, read(env, 'JOBLEDGER_DATA_DIR') ?? './data'),
    embeddedPgPort: integer(env, 'JOBLEDGER_EMBEDDED_PG_PORT', 1, 65535),
    redisUrl,
    redisKeyPrefix,
    requestCounters,
    logLevel,
    statementTimeoutMs: integer(env, 'JOBLEDGER_STATEMENT_TIMEOUT_MS', 100, 600_000),
    docsUrl: url(env, 'JOBLEDGER_DOCS_URL'),
    trustProxyHops: integer(env, 'JOBLEDGER_TRUST_PROXY_HOPS', 0, 10),
    keylessBurst: integer(env, 'JOBLEDGER_KEYLESS_BURST', 0, 100_000),
    reportRefreshSeconds: integer(env, 'JOBLEDGER_REPORT_REFRESH_SECONDS', 10, 86_400),
    worker: {
      inServe: boolean(env, 'JOBLEDGER_SERVE_WORKER'),
      concurrency: integer(env, 'JOBLEDGER_WORKER_CONCURRENCY', 1, 64),
      perHost: integer(env, 'JOBLEDGER_WORKER_PER_HOST', 1, 64),
      tickSeconds: integer(env, 'JOBLEDGER_WORKER_TICK_SECONDS', 1, 86_400),
      probeLimit: integer(env, 'JOBLEDGER_PROBE_LIMIT', 0, 1000),
    },
    absence: {
      crawls: integer(env, 'JOBLEDGER_NOT_SEEN_CRAWLS', 1, 1000),
      minSeconds: integer(env, 'JOBLEDGER_NOT_SEEN_MIN_HOURS', 0, 24 * 365) * 3600,
    },
    fetch: {
      timeoutMs: integer(env, 'JOBLEDGER_FETCH_TIMEOUT_MS', 100, 600_000),
      maxBytes: integer(env, 'JOBLEDGER_FETCH_MAX_BYTES', 1024, 1024 * 1024 * 1024),
      retries: integer(env, 'JOBLEDGER_FETCH_RETRIES', 0, 10),
      backoffMs: integer(env, 'JOBLEDGER_FETCH_BACKOFF_MS', 0, 60_000),
      allow: (read(env, 'JOBLEDGER_FETCH_ALLOW') ?? '')
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean),
      userAgent: 'jobledger/0.1 (+https://github.com/jobledger/jobledger)',
    },
    sources: {
      ashby: url(env, 'JOBLEDGER_ASHBY_BASE_URL'),
      greenhouse: url(env, 'JOBLEDGER_GREENHOUSE_BASE_URL'),
      lever: url(env, 'JOBLEDGER_LEVER_BASE_URL'),
      usajobs: url(env, 'JOBLEDGER_USAJOBS_BASE_URL'),
      remotive: url(env, 'JOBLEDGER_REMOTIVE_BASE_URL'),
      himalayas: url(env, 'JOBLEDGER_HIMALAYAS_BASE_URL'),
      arbeitnow: url(env, 'JOBLEDGER_ARBEITNOW_BASE_URL'),
    },
    stripe: stripeConfig(env),
  };
}
