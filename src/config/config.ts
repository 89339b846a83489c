/**
 * Every setting of the service, in one TypeBox schema: each leaf names its environment variable, its
 * default and its meaning (builders in `setting.ts`). From this one schema come the `Config` type
 * (`StaticDecode`), the defaults, the validation (a refusal names the variable), the text of
 * `jobledger config` and the README's configuration table. The environment is read once at start and
 * the result passed down as a plain object.
 *
 * Adding a setting is one entry here, in the group its consumers read (docs/architecture.md).
 */
import path from 'node:path';
import { Type, type StaticDecode, type TSchema } from 'typebox';
import { DEFAULT_RECORD_BLOCKS } from '../access/record-blocks.ts';
import { sourceSettings } from '../ingest/connectors/registry.ts';
import { ConfigError, Setting, defaultText, isSetting, readSetting, type SettingMeta } from './setting.ts';

export { ConfigError } from './setting.ts';

/** The configuration schema: groups are `Type.Object`s, leaves are settings. Order is the README's. */
export const ConfigSchema = Type.Object({
  port: Setting.integer('PORT', 8080, [0, 65535], 'HTTP port of the API server.'),
  host: Setting.text('HOST', '0.0.0.0', 'Address the API server listens on.'),
  databaseUrl: Setting.optionalText('DATABASE_URL', { pattern: '^postgres(ql)?://', mustBe: 'start with postgres:// or postgresql://', secret: true }, 'External PostgreSQL (15 or newer). Unset: an embedded PostgreSQL is started in the data directory.'),
  databaseReplicaUrl: Setting.optionalText('DATABASE_REPLICA_URL', { pattern: '^postgres(ql)?://', mustBe: 'start with postgres:// or postgresql://', secret: true }, "A streaming read replica of DATABASE_URL. When set, `serve` reads listings, companies, facets and reports from it (a pool of JOBLEDGER_DB_POOL_MAX connections); keys, meters, the change and closure feeds, the export and every write stay on DATABASE_URL. Replicas lag: see docs/deploy.md for what a client may see. Unset: everything on DATABASE_URL."),
  dbPoolMax: Setting.integer('JOBLEDGER_DB_POOL_MAX', 10, [1, 1000], "Connections in each process's main PostgreSQL pool (an API process opens as many again for its generic-plan pool, the crawl worker its own small pools besides). Size the sum over all processes below the server's max_connections (docs/deploy.md)."),
  dataDir: Setting.directory('JOBLEDGER_DATA_DIR', './data', 'Data directory; the embedded PostgreSQL cluster lives in its `pg/` folder.'),
  embeddedPgPort: Setting.integer('JOBLEDGER_EMBEDDED_PG_PORT', 54329, [1, 65535], 'Loopback port of the embedded PostgreSQL. CLI commands find a running instance through its data directory.'),
  redisUrl: Setting.optionalText('REDIS_URL', { pattern: '^rediss?://', mustBe: 'start with redis:// or rediss://', secret: true }, 'Redis for request counters shared by several API processes. Unset: see `JOBLEDGER_REQUEST_COUNTERS`. When Redis is unreachable, each process counts on its own until it answers (fail open).'),
  redisKeyPrefix: Setting.text('JOBLEDGER_REDIS_KEY_PREFIX', 'jobledger', { pattern: '^[A-Za-z0-9:_.-]{1,64}$', mustBe: 'be 1 to 64 letters, digits or : _ . -' }, 'Prefix of every Redis key this service writes, so services sharing one Redis never collide.'),
  requestCounters: Setting.choice('JOBLEDGER_REQUEST_COUNTERS', ['postgres', 'memory'], 'postgres', 'Where request counters live without `REDIS_URL`: `postgres` (shared by every API process on the database) or `memory` (one API process only).'),
  logLevel: Setting.choice('LOG_LEVEL', ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], 'info', 'pino log level: fatal, error, warn, info, debug, trace, silent.'),
  /** Spec: Limits, statement timeout 10 seconds. */
  statementTimeoutMs: Setting.integer('JOBLEDGER_STATEMENT_TIMEOUT_MS', 10_000, [100, 600_000], 'PostgreSQL statement_timeout for API queries, in milliseconds.'),
  /** Crawls write whole boards in one transaction, well past the API's 10 s. */
  ingestStatementTimeoutMs: Setting.integer('JOBLEDGER_INGEST_STATEMENT_TIMEOUT_MS', 120_000, [1_000, 3_600_000], 'PostgreSQL statement_timeout for crawls and imports (whole boards written in one transaction), in milliseconds.'),
  docsUrl: Setting.url('JOBLEDGER_DOCS_URL', 'https://github.com/jobledger/jobledger/blob/main/docs/errors.md', 'Base of the `docs` link in error bodies.'),
  trustProxyHops: Setting.integer('JOBLEDGER_TRUST_PROXY_HOPS', 0, [0, 10], 'Reverse-proxy hops whose X-Forwarded-For is trusted for the client address; 0 uses the socket address.'),
  keylessBurst: Setting.integer('JOBLEDGER_KEYLESS_BURST', 10, [0, 100_000], 'Keyless (/public) requests allowed per 5 seconds and client address (about 2 per second); beyond it 429. 0 turns the limit off (e.g. behind a CDN that limits).'),
  /** The record meter's blocks (issue 22; access/record-blocks.ts, docs/metering.md). */
  recordBlocks: Type.Object({
    maxBlock: Setting.integer('JOBLEDGER_RECORD_BLOCK', DEFAULT_RECORD_BLOCKS.maxBlock, [0, 1_000_000], "Largest block of a key's monthly records an API process takes from the durable meter (one database write per block, not per request); a block is at most 1/8 of what remains, and below a tenth of this size requests reserve exactly. A crash loses at most the unspent rest of a block (counted as used, never served). 0: every request writes."),
    lifetimeSeconds: Setting.integer('JOBLEDGER_RECORD_BLOCK_SECONDS', DEFAULT_RECORD_BLOCKS.lifetimeSeconds, [1, 3600], "Seconds an API process serves from a block before giving its unspent rest back to the durable meter (also given back at shutdown)."),
  }),
  reportRefreshSeconds: Setting.integer('JOBLEDGER_REPORT_REFRESH_SECONDS', 900, [10, 86_400], 'Seconds between refreshes of the report snapshots (freshness, coverage, stats); a snapshot older than twice this is reported stale.'),
  /** Retention (issue 20; src/store/retention.ts, docs/sync.md): the change feed keeps this many days; older `since` answers 410 since_expired. */
  changeEventRetentionDays: Setting.integer('JOBLEDGER_CHANGE_EVENT_RETENTION_DAYS', 90, [1, 36_500], 'Days of change events the change feed keeps; older events are deleted in batches by the retention chore, and a since before the oldest kept event answers 410 since_expired.'),
  crawlRunRetentionDays: Setting.integer('JOBLEDGER_CRAWL_RUN_RETENTION_DAYS', 90, [1, 36_500], 'Days of crawl run history (crawl_runs) kept, and of the enrichment records of closed rows (job_enrichments); older ones are deleted in batches by the retention chore.'),
  /** Prometheus metrics (observability/metrics.ts, docs/deploy.md). */
  metrics: Type.Object({
    port: Setting.integer('JOBLEDGER_METRICS_PORT', 0, [0, 65535], 'Port of a separate listener serving `GET /metrics` (Prometheus text format) on HOST, in `serve` and `worker`; keep it on a private network. 0 (the default) serves no metrics.'),
    token: Setting.optionalText('JOBLEDGER_METRICS_TOKEN', { pattern: '^[\\x21-\\x7e]{16,}$', mustBe: 'be at least 16 visible ASCII characters', secret: true }, 'When set, `/metrics` answers only requests with `Authorization: Bearer <token>` (401 otherwise). Unset: anyone who reaches the metrics port may read it.'),
  }),
  /**
   * OpenTelemetry tracing (observability/tracing.ts, docs/deploy.md): the standard OTEL_* variables,
   * read by the OpenTelemetry SDK itself; listed here so that they are checked, shown by
   * `jobledger config --check` and documented, and so that tracing stays off (nothing loaded) unless
   * one of them asks for it ({@link tracingEnabled}).
   */
  tracing: Type.Object({
    disabled: Setting.boolean('OTEL_SDK_DISABLED', false, 'true turns OpenTelemetry off whatever the other `OTEL_*` variables say.'),
    exporter: Setting.optionalText('OTEL_TRACES_EXPORTER', { pattern: '^\\s*(otlp|console|none)\\s*(,\\s*(otlp|console|none)\\s*)*$', mustBe: 'be a comma list of otlp, console or none' }, 'Where `serve` sends request spans: `otlp`, `console` (stdout) or `none`. Tracing is on when this names an exporter other than none, or when an OTLP endpoint below is set; unset with no endpoint, no tracing code is loaded.'),
    endpoint: Setting.optionalText('OTEL_EXPORTER_OTLP_ENDPOINT', { pattern: '^https?://\\S+$', mustBe: 'be an http(s) URL' }, 'Base URL of the OTLP receiver (a collector), e.g. http://otel-collector:4318; spans go to `<endpoint>/v1/traces`. Setting it turns tracing on.'),
    tracesEndpoint: Setting.optionalText('OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', { pattern: '^https?://\\S+$', mustBe: 'be an http(s) URL' }, 'Full URL that receives spans, used as is (overrides `OTEL_EXPORTER_OTLP_ENDPOINT` for traces). Setting it turns tracing on.'),
    protocol: Setting.choice('OTEL_EXPORTER_OTLP_PROTOCOL', ['http/protobuf', 'http/json', 'grpc'], 'http/protobuf', 'OTLP transport: http/protobuf, http/json or grpc (then the endpoint is the gRPC port, usually 4317).'),
    headers: Setting.optionalText('OTEL_EXPORTER_OTLP_HEADERS', { pattern: '^\\S.*$', mustBe: 'be a comma list of key=value pairs', secret: true }, 'Headers sent with each export, as key=value pairs separated by commas (e.g. an API key of a hosted backend).'),
    serviceName: Setting.text('OTEL_SERVICE_NAME', 'jobledger', '`service.name` of the spans. The SDK also reads the other `OTEL_*` variables of the specification (`OTEL_TRACES_SAMPLER`, `OTEL_RESOURCE_ATTRIBUTES`, `OTEL_BSP_*`, ...).'),
  }),
  /** The ECB euro reference rates behind salary_*_annual_eur and the freshness report (ingest/fx-refresh.ts). */
  fx: Type.Object({
    fetch: Setting.boolean('JOBLEDGER_FX_FETCH', true, 'Fetch the ECB daily reference rates on a schedule in the crawl worker (true/false). Always off in the demo (`--demo`, `npm start`), which uses the bundled history, and in the CLI processes the tests start.'),
    url: Setting.url('JOBLEDGER_FX_URL', 'https://www.ecb.europa.eu/stats/eurofxref/eurofxref-daily.xml', "The ECB's euro reference-rate XML (eurofxref-daily.xml, or eurofxref-hist-90d.xml to backfill), fetched through the guarded fetcher."),
    refreshSeconds: Setting.integer('JOBLEDGER_FX_REFRESH_SECONDS', 10_800, [60, 604_800], 'Seconds between fetches of the ECB rates (3 hours: the spec refreshes snapshots about every three hours; the ECB publishes once a working day, about 16:00 CET).'),
    maxAgeDays: Setting.integer('JOBLEDGER_FX_MAX_AGE_DAYS', 5, [1, 365], 'While fetching is on, the freshness report is stale once its rates are more than this many days old (5 covers the longest ECB closing, Good Friday to Easter Monday).'),
  }),
  /** The crawl worker. */
  worker: Type.Object({
    inServe: Setting.boolean('JOBLEDGER_SERVE_WORKER', true, 'Run the crawl worker inside `jobledger serve` (true/false). Set false when separate `jobledger worker` processes run.'),
    concurrency: Setting.integer('JOBLEDGER_WORKER_CONCURRENCY', 4, [1, 64], 'Crawls at once in one worker process.'),
    perHost: Setting.integer('JOBLEDGER_WORKER_PER_HOST', 2, [1, 64], 'Requests at once against one upstream host, across all worker processes (a crawl holds a slot while it fetches and probes, not while it writes).'),
    tickSeconds: Setting.integer('JOBLEDGER_WORKER_TICK_SECONDS', 30, [1, 86_400], "Seconds between the worker's scheduling passes (queue due targets, close rows past their close date)."),
    probeLimit: Setting.integer('JOBLEDGER_PROBE_LIMIT', 10, [0, 1000], 'Posting URLs probed after one crawl (rows the board stopped listing; a 404 or 410 closes them as expired_upstream). 0 turns probing off.'),
  }),
  /** When absence from good crawls closes a row as not_seen. */
  absence: Type.Object({
    crawls: Setting.integer('JOBLEDGER_NOT_SEEN_CRAWLS', 3, [1, 1000], 'Consecutive good crawls of a board without a posting before it closes as not_seen.'),
    /** Seconds (the variable is in hours). */
    minSeconds: Type.Decode(
      Setting.integer('JOBLEDGER_NOT_SEEN_MIN_HOURS', 24, [0, 24 * 365], 'And at least this many hours since the posting was last seen at its source.'),
      (hours: number) => hours * 3600,
    ),
  }),
  /** Outbound fetches of the connectors (ingest/fetcher.ts). */
  fetch: Type.Object({
    timeoutMs: Setting.integer('JOBLEDGER_FETCH_TIMEOUT_MS', 30_000, [100, 600_000], 'Time limit of one upstream request, in milliseconds.'),
    maxBytes: Setting.integer('JOBLEDGER_FETCH_MAX_BYTES', 64 * 1024 * 1024, [1024, 1024 * 1024 * 1024], 'Largest upstream response accepted, in bytes (64 MiB).'),
    retries: Setting.integer('JOBLEDGER_FETCH_RETRIES', 3, [0, 10], 'Retries on 429, 5xx and network errors, with exponential backoff.'),
    /** Doubles per retry (a 429's Retry-After wins, capped at 60 s). */
    backoffMs: Setting.integer('JOBLEDGER_FETCH_BACKOFF_MS', 500, [0, 60_000], 'First retry delay in milliseconds; doubles on each retry.'),
    /** Syntax and rules: ingest/address-policy.ts. */
    allow: Setting.list('JOBLEDGER_FETCH_ALLOW', [], 'Comma list of private/loopback addresses or CIDR blocks that connectors may reach anyway, each optionally limited to one port (127.0.0.1/32, 10.0.0.0/8:443, 127.0.0.1:8443, [::1]:9000); an entry without a port admits every port. Redirects are checked against it too. Empty: all are refused.'),
    /** User-Agent sent upstream: the service and the operator's contact URL, `jobledger/0.1 (+URL)`. */
    userAgent: Type.Decode(
      Setting.text('JOBLEDGER_CRAWLER_CONTACT_URL', 'https://github.com/jobledger/jobledger', { pattern: '^(https?://|mailto:)[\\x21-\\x27\\x2a-\\x7e]+$', mustBe: 'be an http(s) or mailto: URL without spaces or parentheses' }, "The operator's contact page (or mailto:), sent in every crawl's User-Agent (`jobledger/0.1 (+URL)`) so site owners can reach whoever runs this crawler. Set it to your own."),
      (contact: string) => `jobledger/0.1 (+${contact})`,
    ),
  }),
  /** The career-site connector's politeness bounds (ingest/connectors/career-site.ts). */
  careerSite: Type.Object({
    /** The rest wait for the next crawl. */
    maxPages: Setting.integer('JOBLEDGER_CAREER_MAX_PAGES', 100, [1, 10_000], 'Posting pages requested per crawl of one career site, at most; pages past the bound are read on later crawls.'),
    /** Milliseconds; a longer robots.txt `Crawl-delay` wins. */
    delayMs: Setting.integer('JOBLEDGER_CAREER_DELAY_MS', 1000, [0, 600_000], 'Pause between two requests to one career site, in milliseconds; a longer robots.txt Crawl-delay wins.'),
  }),
  /** Base URL of each connector's upstream API, from each connector's descriptor. */
  sources: sourceSettings(),
  /** Credentials of the public agencies' APIs (ingest/connectors/nav.ts, usajobs-api.ts); unset: the keyless path. */
  agencyKeys: Type.Object({
    navToken: Setting.optionalText('JOBLEDGER_NAV_TOKEN', { pattern: '^[A-Za-z0-9_.-]+$', mustBe: 'be a JWT (letters, digits, dots, hyphens, underscores)', secret: true }, "The operator's own token for the NAV job vacancy feed. Unset: the public token NAV publishes at /api/publicToken (meant for experiments)."),
    usajobsApiKey: Setting.optionalText('JOBLEDGER_USAJOBS_API_KEY', { pattern: '^\\S+$', mustBe: 'be the key USAJOBS issued (no spaces)', secret: true }, 'USAJOBS Search API key (`Authorization-Key` header). Unset: `usajobs_api` targets fail as `blocked` and change nothing.'),
    usajobsEmail: Setting.optionalText('JOBLEDGER_USAJOBS_API_EMAIL', { pattern: '^[^@\\s]+@[^@\\s]+$', mustBe: 'be the e-mail address the USAJOBS key was issued to' }, 'E-mail address the USAJOBS key was issued to, sent as the Search API requires (its `User-Agent`).'),
  }),
  /** Stripe Checkout (src/billing, docs/website.md "Billing"); all unset (the default) sells no plans. Read through {@link stripeSettings}. */
  stripe: Type.Object({
    secretKey: Setting.optionalText('JOBLEDGER_STRIPE_SECRET_KEY', { pattern: '^(sk|rk)_', mustBe: 'start with sk_ or rk_ (a Stripe secret or restricted key)', secret: true }, 'Stripe secret API key (`sk_live_...` or `sk_test_...`). Unset: no plans are sold; checkout answers 501 `payments_not_configured` and the site offers no upgrade. Set it together with the webhook secret and the prices.'),
    webhookSecret: Setting.optionalText('JOBLEDGER_STRIPE_WEBHOOK_SECRET', { pattern: '^whsec_', mustBe: 'start with whsec_ (the signing secret of a Stripe webhook endpoint)', secret: true }, 'Signing secret (`whsec_...`) of the Stripe webhook endpoint that posts to `/public/checkout/webhook`.'),
    apiUrl: Setting.url('JOBLEDGER_STRIPE_API_URL', 'https://api.stripe.com', 'Base URL of the Stripe API (scheme, host and port only); tests point it at a loopback server.'),
    prices: Setting.list('JOBLEDGER_STRIPE_PRICES', [], 'Comma list of plan=price pairs: the recurring Stripe price of each plan on sale (`growth=price_...,signal=price_...,scale=price_...`). Plans are data, so a new plan needs only a new pair.'),
    }),
  /** The website: sign-in, e-mail, human verification (docs/website.md). */
  site: Type.Object({
    /** Absolute base of links in e-mails; https makes the session cookie Secure. Unset: http://localhost:<PORT>. */
    url: Setting.optionalText('JOBLEDGER_SITE_URL', { pattern: '^https?://[^\\s]+$', mustBe: 'an absolute http(s) URL' }, 'Public base URL of the website, used for the links in e-mails (https makes the session cookie Secure) and as the OpenAPI document\'s `servers` URL. Unset: http://localhost:<PORT> for links, `/` (relative) in the document.'),
    smtpUrl: Setting.optionalText('JOBLEDGER_SMTP_URL', { pattern: '^smtps?://', mustBe: 'an smtp:// or smtps:// URL', secret: true }, 'SMTP server for e-mail (smtp://user:pass@host:587 or smtps://...). Unset: messages are written to <JOBLEDGER_DATA_DIR>/outbox and sign-in links are printed in the log.'),
    mailFrom: Setting.text('JOBLEDGER_MAIL_FROM', 'jobledger <no-reply@localhost>', 'From address of every e-mail the website sends.'),
    operatorEmail: Setting.optionalText('JOBLEDGER_OPERATOR_EMAIL', { pattern: '^[^\\s@]+@[^\\s@]+\\.[^\\s@]+$', mustBe: 'an e-mail address' }, 'Address that receives contact form messages. Unset: messages are only stored (table contact_messages).'),
    employerDomains: Setting.list('JOBLEDGER_SUBMISSION_EMPLOYER_DOMAINS', [], "Comma list of company domains accepted for direct submissions although the public e-mail provider list names them (e.g. facebook.com): add one only after checking that its addresses are given to the company's staff only. Empty: every domain on that list is refused."),
    linkTtlSeconds: Setting.integer('JOBLEDGER_LINK_TTL_SECONDS', 900, [1, 7 * 86_400], 'Lifetime of e-mailed links (sign-in, opt-out verification, subscription confirmation), in seconds (15 minutes).'),
    sessionHours: Setting.integer('JOBLEDGER_SESSION_HOURS', 168, [1, 24 * 90], 'Absolute lifetime of a website session, in hours (7 days); sign in again after it.'),
    altchaCost: Setting.integer('JOBLEDGER_ALTCHA_COST', 1000, [1, 1_000_000], 'ALTCHA proof of work: PBKDF2-SHA-256 iterations per attempt.'),
    altchaMaxCounter: Setting.integer('JOBLEDGER_ALTCHA_MAX_COUNTER', 4000, [1, 10_000_000], 'ALTCHA proof of work: the largest number of attempts a browser may need (the work is cost × counter).'),
  }),
});

/** Stripe settings in the shape `src/billing/stripe-checkout.ts` takes. */
export interface StripeConfig {
  secretKey: string;
  webhookSecret: string;
  /** Scheme, host and port of Stripe's API. */
  apiUrl: string;
  /** Stripe price id of each plan on sale, by plan id. */
  prices: Record<string, string>;
}

/**
 * The Stripe settings of `config`, or undefined when no secret key is set (payments off, the default).
 * @throws ConfigError when they are set only in part, or a price entry or the API URL is malformed.
 */
export function stripeSettings(stripe: Config['stripe']): StripeConfig | undefined {
  const { secretKey, webhookSecret, apiUrl } = stripe;
  if (secretKey === undefined) {
    if (webhookSecret !== undefined || stripe.prices.length > 0) {
      throw new ConfigError('JOBLEDGER_STRIPE_WEBHOOK_SECRET and JOBLEDGER_STRIPE_PRICES need JOBLEDGER_STRIPE_SECRET_KEY; set all three, or none to sell no plans');
    }
    return undefined;
  }
  if (webhookSecret === undefined) throw new ConfigError('JOBLEDGER_STRIPE_SECRET_KEY is set but JOBLEDGER_STRIPE_WEBHOOK_SECRET is not: without it no payment could upgrade a key');
  const prices: Record<string, string> = {};
  for (const pair of stripe.prices) {
    const match = /^([a-z0-9_-]+)=(\S+)$/.exec(pair);
    if (!match) throw new ConfigError(`JOBLEDGER_STRIPE_PRICES entries must read plan=price_id, got "${pair}"`);
    prices[match[1]!] = match[2]!;
  }
  if (Object.keys(prices).length === 0) throw new ConfigError('JOBLEDGER_STRIPE_SECRET_KEY is set but JOBLEDGER_STRIPE_PRICES names no plan=price_id pair: nothing could be sold');
  if (new URL(apiUrl).pathname !== '/') throw new ConfigError(`JOBLEDGER_STRIPE_API_URL must be a scheme, host and port only (the client adds /v1), got "${apiUrl}"`);
  return { secretKey, webhookSecret, apiUrl, prices };
}

/**
 * Whether the OTEL_* settings ask for tracing: an exporter other than `none` is named, or (with no
 * exporter named, the SDK's default being otlp) an OTLP endpoint is set; never with OTEL_SDK_DISABLED.
 */
export function tracingEnabled(tracing: Config['tracing']): boolean {
  if (tracing.disabled) return false;
  if (tracing.exporter !== undefined) return tracing.exporter.split(',').some((name) => name.trim() !== 'none');
  return tracing.endpoint !== undefined || tracing.tracesEndpoint !== undefined;
}

/** Every setting of the service, as {@link loadConfig} returns it. */
export type Config = StaticDecode<typeof ConfigSchema>;
/** The crawl worker's settings. */
export type WorkerConfig = Config['worker'];
/**
 * Outbound fetch settings: time limit (ms), largest body (bytes), retries, first backoff (ms), the
 * allow-list of private addresses (ingest/address-policy.ts) and the User-Agent.
 */
export type FetchConfig = Config['fetch'];
/** The ECB rate fetch settings. */
export type FxConfig = Config['fx'];
/** Base URL of each connector's upstream API, by connector id. */
export type SourceBaseUrls = Config['sources'];
/** Bounds of one crawl of a company's career site: posting pages per crawl, least pause between requests (ms). */
export type CareerSiteConfig = Config['careerSite'];
/** The public agencies' API credentials (config `agencyKeys`). */
export type AgencyKeys = Config['agencyKeys'];

/** An environment variable the service reads: its name, default as spelled in the environment, meaning. */
export interface EnvSetting {
  env: string;
  default: string | undefined;
  description: string;
}

function leaves(schema: TSchema, visit: (setting: SettingMeta & TSchema, key: string[]) => void, key: string[] = []): void {
  if (isSetting(schema)) return visit(schema, key);
  for (const [name, child] of Object.entries((schema as { properties: Record<string, TSchema> }).properties)) leaves(child, visit, [...key, name]);
}

/** Every environment variable the service reads, in schema order. */
export const SETTINGS: readonly EnvSetting[] = (() => {
  const out: EnvSetting[] = [];
  leaves(ConfigSchema, (s) => {
    if (s.env !== undefined) out.push({ env: s.env, default: defaultText(s), description: s.description });
  });
  return out;
})();

/**
 * Parse the environment into a {@link Config}; `directory` settings are resolved against `cwd`.
 * @throws ConfigError naming the variable when a value is malformed.
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env, cwd: string = process.cwd()): Config {
  const read = (schema: TSchema): unknown => {
    if (isSetting(schema)) return readSetting(schema, env, (p) => path.resolve(cwd, p));
    const group: Record<string, unknown> = {};
    for (const [name, child] of Object.entries((schema as { properties: Record<string, TSchema> }).properties)) group[name] = read(child);
    return group;
  };
  const config = read(ConfigSchema) as Config;
  // Settings that only make sense together are refused at start, not at the first purchase.
  stripeSettings(config.stripe);
  return config;
}

/** `jobledger config`: each variable with its default, then its meaning indented. */
export function configText(): string {
  return SETTINGS.map((s) => `${s.env}=${s.default ?? ''}\n    ${s.description}\n`).join('');
}

/** One setting as `jobledger config --check` shows it. */
export interface EffectiveSetting {
  env: string;
  /** The value in effect as the environment spells it (secrets masked); undefined: unset. */
  shown: string | undefined;
  /** `environment` when the variable is set (and not empty), else `default`. */
  source: 'environment' | 'default';
  /** Why the value cannot be used (the ConfigError's message); undefined when it is valid. */
  error?: string;
}

/**
 * A secret's value as it may be printed: a URL keeps its scheme, user, host, port, path and query with
 * the password (and any query parameter named like a password, key or token) replaced by `***`, so the
 * operator sees which database or Redis is meant and whether TLS is asked for; anything else shows
 * only that it is set.
 */
export function maskSecret(value: string): string {
  try {
    const url = new URL(value);
    if (url.host !== '') {
      if (url.password) url.password = '***';
      for (const name of [...url.searchParams.keys()]) if (/pass|secret|key|token/i.test(name)) url.searchParams.set(name, '***');
      return url.href.replaceAll('%2A%2A%2A', '***');
    }
  } catch {
    // not a URL: fall through
  }
  return '*** (set)';
}

/**
 * Every setting's effective value from `env` (secrets masked by {@link maskSecret}), each checked on
 * its own so that every bad value is reported at once, then the checks across settings
 * (`stripeSettings`), whose refusal is returned as `crossError`.
 */
export function effectiveSettings(env: NodeJS.ProcessEnv = process.env, cwd: string = process.cwd()): { settings: EffectiveSetting[]; crossError?: string } {
  const settings: EffectiveSetting[] = [];
  let allValid = true;
  leaves(ConfigSchema, (s) => {
    if (s.env === undefined) return;
    const raw = env[s.env];
    const fromEnv = raw !== undefined && raw !== '';
    const text = fromEnv ? raw : defaultText(s);
    const entry: EffectiveSetting = { env: s.env, shown: text === undefined ? undefined : s.secret ? maskSecret(text) : text, source: fromEnv ? 'environment' : 'default' };
    try {
      readSetting(s, env, (p) => path.resolve(cwd, p));
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      entry.error = error.message;
      allValid = false;
    }
    settings.push(entry);
  });
  if (!allValid) return { settings };
  try {
    loadConfig(env, cwd);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    return { settings, crossError: error.message };
  }
  return { settings };
}

/**
 * `jobledger config --check`: one line per variable, `NAME=value` with `(default)` when unset and
 * `INVALID: reason` after a refused value, then the cross-setting refusal if any.
 * `ok` is false when any value is refused.
 */
export function configCheckText(env: NodeJS.ProcessEnv = process.env, cwd: string = process.cwd()): { text: string; ok: boolean } {
  const { settings, crossError } = effectiveSettings(env, cwd);
  const lines = settings.map((s) => `${s.env}=${s.shown ?? ''}${s.source === 'default' ? '  (default)' : ''}${s.error ? `  INVALID: ${s.error}` : ''}`);
  const invalid = settings.filter((s) => s.error).length + (crossError ? 1 : 0);
  if (crossError) lines.push(`INVALID: ${crossError}`);
  lines.push(invalid === 0 ? 'configuration is valid' : `${invalid} invalid setting${invalid === 1 ? '' : 's'}`);
  return { text: lines.join('\n') + '\n', ok: invalid === 0 };
}

/** The README's configuration table (Markdown), one row per variable. */
export function configTable(): string {
  const rows = SETTINGS.map((s) => {
    const shown = s.default === undefined ? '(unset)' : s.default === '' ? '(empty)' : `\`${s.default}\``;
    return `| \`${s.env}\` | ${shown} | ${s.description.replaceAll('|', '\\|')} |`;
  });
  return ['| variable | default | meaning |', '|---|---|---|', ...rows].join('\n') + '\n';
}
