/**
 * Kysely table types, mirroring `migrations/*.sql` column for column. `Generated` marks columns the
 * database fills (defaults, identities, generated columns); `ColumnType<Select, Insert, Update>`
 * marks columns that are read back in a different form than they are written.
 */
import type { ColumnType, Generated, Selectable } from 'kysely';
import type { FieldSources } from '../domain/field-sources.ts';
import type { EnrichmentRecord } from '../domain/posting.ts';

type Timestamp = ColumnType<Date, Date | string, Date | string>;
type NullableTimestamp = ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
type GeneratedAlways<T> = ColumnType<T, never, never>;

export interface ProvidersTable {
  id: string;
  label: string;
  provider_class: string;
  source_type: string;
  redistributable: Generated<boolean>;
  discovery_only: Generated<boolean>;
  created_at: Generated<Date>;
}

export interface CompaniesTable {
  id: Generated<string>;
  slug: string;
  name: string;
  identity_key: string;
  domain: string | null;
  logo_url: string | null;
  country: string | null;
  industry: string | null;
  org_type: string | null;
  sectors: string[] | null;
  website: string | null;
  website_verified_at: NullableTimestamp;
  /** Last website check, whatever its outcome (migration 006). */
  website_checked_at: NullableTimestamp;
  careers_url: string | null;
  first_seen_at: Generated<Date>;
  updated_at: Generated<Date>;
}

export interface CompanySlugHistoryTable {
  old_slug: string;
  company_id: string;
  retired_at: Generated<Date>;
}

export interface CrawlTargetsTable {
  id: string;
  provider_id: string;
  board: string;
  company_name: string | null;
  company_domain: string | null;
  company_logo: string | null;
  enabled: Generated<boolean>;
  interval_seconds: Generated<number>;
  etag: string | null;
  last_modified: string | null;
  last_attempt_at: NullableTimestamp;
  last_success_at: NullableTimestamp;
  last_error: string | null;
  consecutive_failures: Generated<number>;
  good_crawls: Generated<number>;
  created_at: Generated<Date>;
  /** Who holds the crawl lease (migration 004), with its expiry; both null when free. */
  lease_owner: string | null;
  lease_expires_at: NullableTimestamp;
  /** Board-level poster evidence of the last good crawl (migration 016, src/enrich/intermediary.ts), or null. */
  poster_evidence: unknown;
  /** What a multi-document connector (career_site) remembers between crawls (migration 015); opaque JSON. */
  site_state: unknown;
}

/** Fetched ECB euro reference rates, one row per day and currency (migration 017). */
export interface FxRatesTable {
  rate_date: string;
  currency: string;
  /** numeric: units of the currency per 1 EUR. */
  units_per_eur: string;
  source_url: string;
  fetched_at: Generated<Date>;
}

export interface JobsTable {
  id: string;
  slug: string;
  provider_id: string;
  target_id: string | null;
  source_posting_id: string;
  company_id: string;
  company_name: string;
  title: string;
  location: string | null;
  country: string | null;
  city: string | null;
  state: string | null;
  remote: string | null;
  remote_inferred: boolean;
  employment_type: string | null;
  seniority: string | null;
  category: string | null;
  category_confidence: number | null;
  posted_at: NullableTimestamp;
  sort_key: GeneratedAlways<Date>;
  first_seen_at: Timestamp;
  last_verified_at: Timestamp;
  content_changed_at: Timestamp;
  status: 'live' | 'closed';
  closed_at: NullableTimestamp;
  closed_reason: 'expired_upstream' | 'not_seen' | null;
  upstream_expired_at: NullableTimestamp;
  upstream_closes_at: NullableTimestamp;
  withheld_kind: 'quality_removed' | 'quality_gated' | 'optout_hidden' | null;
  quality_verdict: 'live' | 'quality_removed' | 'quality_gated' | 'optout_hidden';
  quality_rule_id: string | null;
  quality_matched_host: string | null;
  poster_type: 'staffing' | 'jobboard' | null;
  /** The poster-type rule that set poster_type (migration 016); null exactly when poster_type is. */
  poster_rule_id: string | null;
  apply_url: string | null;
  posting_url: string | null;
  source_type: string;
  provider_type: string;
  has_description: boolean;
  description_html: string | null;
  description_text: string | null;
  salary_min: number | null;
  salary_max: number | null;
  salary_currency: string | null;
  salary_period: string | null;
  salary_source: 'structured' | 'parsed_description' | null;
  salary_min_annual_eur: number | null;
  salary_max_annual_eur: number | null;
  field_sources: ColumnType<FieldSources, string, string>;
  attribution: string | null;
  canonical_url: string | null;
  content_hash: string;
  missed_crawls: Generated<number>;
  /** The vacancy part of a repost's identity (migration 026, domain/lifecycle.ts repostKey); null only on rows never rewritten since. */
  repost_key: string | null;
  /** Times the same employer, title and location was seen again after closing (migration 026, issue 15). */
  repost_count: Generated<number>;
  served: GeneratedAlways<boolean>;
  /** The full-text vectors: written only by the trigger `jobs_search_vectors` (migrations 014, 029), never by the application. */
  title_tsv: GeneratedAlways<string>;
  search_tsv: GeneratedAlways<string>;
  description_tsv: GeneratedAlways<string>;
  /**
   * The row's served Job as JSON text, keys in the JSON answers' order, without `description`: written
   * only by the trigger `jobs_zz_served_json` (migration 033, store/job-lines.ts jobObjectSql(false)),
   * and for a re-verification by `jobs_zzz_served_json_verified`, which writes the new instant in place
   * (migration 034). Never NULL.
   */
  served_json: GeneratedAlways<string>;
  created_at: Generated<Date>;
  updated_at: Generated<Date>;
}

export interface ChangeEventsTable {
  id: Generated<string>;
  seq: GeneratedAlways<number>;
  job_id: string;
  change: 'created' | 'updated' | 'delisted' | 'withdrawn';
  recorded_at: Generated<Date>;
  /** The feed stamp; always set by the `change_events_stamp` trigger (migration 004), whatever is inserted. */
  published_at: ColumnType<Date, Date | string | undefined, never>;
  /**
   * ISO-3166 alpha-2 of the row when the event was recorded (after the change); always set by the
   * `change_events_country` trigger from the row (migration 008), whatever is inserted.
   */
  country: ColumnType<string | null, string | null | undefined, never>;
  /** The row's country before the change, only when the change moved it to another country (migration 008). */
  previous_country: ColumnType<string | null, string | null | undefined, never>;
  /**
   * A later event of the same job exists, so the (unlocked) change feed folds this one into it; set by
   * the `change_events_supersede` trigger when that event is inserted (migration 035).
   */
  superseded: Generated<boolean>;
}

/** The single-row commit-ordered clock of the feeds (migration 004). */
export interface ChangeFeedClockTable {
  singleton: Generated<boolean>;
  stamp: Timestamp;
}

/** How far retention has deleted the change feed (migration 025); one row, both null until a first deletion. */
/** One row per scheduled chore: when a process last claimed a start of it (src/store/chore-runs.ts). */
export interface ChoreRunsTable {
  chore: string;
  last_started_at: Timestamp;
}

export interface ChangeFeedRetentionTable {
  only_row: Generated<boolean>;
  /** Feed stamp of the last event deleted. */
  deleted_through_at: NullableTimestamp;
  /** Job id of the last event deleted (with the stamp, its feed position). */
  deleted_through_id: string | null;
}

export interface CrawlRunsTable {
  id: GeneratedAlways<number>;
  target_id: string;
  started_at: Timestamp;
  finished_at: Timestamp;
  outcome: 'fetched' | 'not_modified' | 'failed';
  error_kind: string | null;
  postings: Generated<number>;
  created: Generated<number>;
  updated: Generated<number>;
  unchanged: Generated<number>;
  closed: Generated<number>;
  withdrawn: Generated<number>;
}

export interface PlansTable {
  id: string;
  label: string;
  price_cents: number;
  currency: Generated<string>;
  records_per_month: number;
  requests_per_day: number;
  requests_per_minute: number;
  max_page_size: number;
  entitlements: Generated<string[]>;
  purchasable: Generated<boolean>;
  active: Generated<boolean>;
  sort_order: Generated<number>;
}

export interface AccountsTable {
  id: Generated<string>;
  name: string | null;
  email: string | null;
  created_at: Generated<Date>;
  /** When the account took its one free `explore` key (migration 010). */
  free_key_at: Generated<Date | null>;
}

export interface ApiKeysTable {
  id: Generated<string>;
  account_id: string;
  name: string | null;
  key_prefix: string;
  secret_hash: Buffer;
  plan_id: string;
  country_lock: string | null;
  status: Generated<'active' | 'revoked'>;
  created_at: Generated<Date>;
  expires_at: NullableTimestamp;
  revoked_at: NullableTimestamp;
  rotated_at: NullableTimestamp;
  last_used_at: NullableTimestamp;
}

/** The monthly record meter (migration 005): one row per key and UTC calendar month. */
export interface RecordUsageTable {
  api_key_id: string;
  /**
   * First day of the UTC month as `YYYY-MM-DD`. Select it as `period_start::text`: node-postgres
   * parses a `date` into a Date at local midnight, which is another day east or west of UTC.
   */
  period_start: string;
  used: Generated<number>;
  updated_at: Generated<Date>;
}

/** rate-limiter-flexible's PostgreSQL store (migration 005); `expire` in epoch milliseconds. */
export interface RequestCountersTable {
  key: string;
  points: Generated<number>;
  expire: number | null;
}

export interface ServiceSettingsTable {
  key: string;
  value: string;
  created_at: Generated<Date>;
}

/** The latest snapshot of one report (migration 006). */
export interface ReportSnapshotsTable {
  name: string;
  data: ColumnType<unknown, string, string>;
  measured_at: Timestamp;
  duration_ms: number;
}

/** Verified employer opt-outs (migration 007). */
export interface EmployerOptoutsTable {
  id: GeneratedAlways<string>;
  domain: string | null;
  company_id: string | null;
  verified_by: string;
  verified_at: Timestamp;
  note: string | null;
  created_at: Generated<Date>;
  revoked_at: NullableTimestamp;
}

/** The subscription paying for a key's plan (migration 011; store/key-subscriptions.ts). */
export interface KeySubscriptionsTable {
  api_key_id: string;
  provider: string;
  subscription_id: string;
  customer_id: string | null;
  plan_id: string;
  status: string;
  renews_at: Timestamp;
  lapses_at: NullableTimestamp;
  plan_after: string;
  created_at: Generated<Date>;
  updated_at: Generated<Date>;
}

/** Payment-provider notifications acted on (migration 011). */
export interface BillingEventsTable {
  provider: string;
  event_id: string;
  event_type: string;
  outcome: string;
  received_at: Generated<Date>;
}

/** E-mailed single-use links, stored as SHA-256 only (migration 010). */
export interface EmailTokensTable {
  token_hash: Buffer;
  purpose: 'sign_in' | 'optout' | 'subscribe' | 'submission';
  email: string;
  subject: string | null;
  created_at: Generated<Date>;
  expires_at: Timestamp;
  used_at: NullableTimestamp;
}

/**
 * What each crawled row's enrichment was made from and what it made (migration 031;
 * src/enrich/enrichment-record.ts): a re-crawl restores the record when the digest still matches.
 */
export interface JobEnrichmentsTable {
  job_id: string;
  /** sha-256, hex, of the enrichment's inputs (`enrichmentDigest`). */
  source_digest: string;
  /** The NormalizedJob without its descriptions (`EnrichmentRecord`); written as JSON text. */
  record: ColumnType<EnrichmentRecord, string, string>;
  /** `contentHash` of that NormalizedJob with its descriptions. */
  content_hash: string;
  /** What the board judgement reads of the posting (src/enrich/intermediary.ts BoardSignals); written as JSON text. */
  board_signals: ColumnType<unknown, string, string>;
}

/** Direct submissions of vacancies by employers (migration 021; src/ingest/submissions.ts). */
export interface SubmissionsTable {
  id: Generated<string>;
  status: 'pending' | 'open' | 'closed' | 'lapsed' | 'rejected';
  email: string;
  company_name: string;
  company_domain: string;
  title: string;
  location: string;
  employment_type: string;
  remote: string | null;
  description: string;
  apply_url: string;
  salary_min: number | null;
  salary_max: number | null;
  salary_currency: string | null;
  salary_period: string | null;
  created_at: Generated<Date>;
  updated_at: Generated<Date>;
  verified_at: NullableTimestamp;
  confirmed_at: NullableTimestamp;
  reminded_at: NullableTimestamp;
  closed_at: NullableTimestamp;
  rejected_reason: string | null;
  manage_token_hash: Buffer | null;
  job_id: string | null;
}

/** Browser sessions; the id is stored as SHA-256 only (migration 010). */
export interface WebSessionsTable {
  id_hash: Buffer;
  account_id: string | null;
  data: ColumnType<unknown, string, string>;
  created_at: Generated<Date>;
  expires_at: Timestamp;
}

/** Double opt-in subscriptions (migration 010). */
export interface SubscriptionsTable {
  email: string;
  status: 'pending' | 'confirmed' | 'unsubscribed';
  created_at: Generated<Date>;
  confirmed_at: NullableTimestamp;
  unsubscribed_at: NullableTimestamp;
}

/** Contact form messages (migration 010). */
export interface ContactMessagesTable {
  id: GeneratedAlways<string>;
  email: string;
  name: string | null;
  message: string;
  created_at: Generated<Date>;
  mailed_at: NullableTimestamp;
}

export interface DB {
  providers: ProvidersTable;
  companies: CompaniesTable;
  company_slug_history: CompanySlugHistoryTable;
  crawl_targets: CrawlTargetsTable;
  fx_rates: FxRatesTable;
  jobs: JobsTable;
  job_enrichments: JobEnrichmentsTable;
  change_events: ChangeEventsTable;
  change_feed_clock: ChangeFeedClockTable;
  change_feed_retention: ChangeFeedRetentionTable;
  chore_runs: ChoreRunsTable;
  crawl_runs: CrawlRunsTable;
  plans: PlansTable;
  accounts: AccountsTable;
  api_keys: ApiKeysTable;
  service_settings: ServiceSettingsTable;
  record_usage: RecordUsageTable;
  request_counters: RequestCountersTable;
  report_snapshots: ReportSnapshotsTable;
  employer_optouts: EmployerOptoutsTable;
  key_subscriptions: KeySubscriptionsTable;
  billing_events: BillingEventsTable;
  email_tokens: EmailTokensTable;
  web_sessions: WebSessionsTable;
  subscriptions: SubscriptionsTable;
  contact_messages: ContactMessagesTable;
  submissions: SubmissionsTable;
}

export type JobRow = Selectable<JobsTable>;
export type ApiKeyRow = Selectable<ApiKeysTable>;
export type PlanRow = Selectable<PlansTable>;
export type KeySubscriptionRow = Selectable<KeySubscriptionsTable>;
export type CrawlTargetRow = Selectable<CrawlTargetsTable>;
export type ProviderRow = Selectable<ProvidersTable>;
export type SubmissionRow = Selectable<SubmissionsTable>;
