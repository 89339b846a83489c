/**
 * The ledger's write side: applies one successful crawl of one board to the `jobs` table and records
 * the change events, all in one transaction (spec: States and transitions; ARCHITECTURE "ledger upsert
 * in one transaction"); closes rows the source proved dead (posting URL gone, close date passed) or
 * stopped listing (not_seen). A crawl that failed never reaches this module, so it can change nothing.
 *
 * Feed stamps: `change_events.published_at` and `jobs.closed_at` are set by triggers from the
 * commit-ordered feed clock (migration 004), whatever is written here. The first such write of a
 * transaction holds the clock until commit, so every transaction here does its other writes first and
 * its closures and events last, keeping that hold short. Rows are locked in id order up front, so two
 * writers never wait on each other's rows while one holds the clock.
 */
import { createHash, randomUUID } from 'node:crypto';
import { sql, type Insertable, type Kysely, type Transaction } from 'kysely';
import { decideAbsence, decideTransition, type AbsencePolicy, type LedgerState } from '../domain/lifecycle.ts';
import type { NormalizedJob } from '../domain/posting.ts';
import type { QualityVerdict } from '../domain/quality.ts';
import { jobSlug } from '../domain/slug.ts';
import type { ChangeKind } from '../domain/vocabulary.ts';
import { resolveCompany, type CompanyRef } from './companies.ts';
import type { DB, JobsTable } from './schema.ts';

const NO_COUNTS = { postings: 0, created: 0, updated: 0, unchanged: 0, closed: 0, notSeen: 0, missed: 0, withdrawn: 0, events: 0 } as const;

/** One posting of the crawl, enriched and judged. */
export interface LedgerPosting {
  job: NormalizedJob;
  verdict: QualityVerdict;
}

export interface ApplyCrawlInput {
  targetId: string;
  providerId: string;
  postings: LedgerPosting[];
  /** The crawl's instant; every timestamp written by this crawl uses it (closures: see the module note). */
  now: Date;
  /**
   * Set when `postings` is the board's complete listing from a good crawl: live rows of this target
   * that it does not list count one more missed crawl, and close as `not_seen` under this policy.
   * Omit for a partial update (nothing is then inferred from absence).
   */
  absence?: AbsencePolicy;
}

/** What one crawl did to the ledger, for logs, progress and the crawl_runs table. */
export interface CrawlCounts {
  postings: number;
  /** New rows, whatever their state. */
  created: number;
  /** Existing rows whose served content or withholding changed (includes reopened). */
  updated: number;
  /** Existing rows seen again without change (only `last_verified_at` moved). */
  unchanged: number;
  /** Rows closed by this crawl, for any reason (includes `notSeen`). */
  closed: number;
  /** Rows closed as `not_seen` by this crawl. */
  notSeen: number;
  /** Live rows of the board this crawl did not list (closed or not). */
  missed: number;
  /** Served rows withheld by this crawl. */
  withdrawn: number;
  /** Change events recorded. */
  events: number;
}

/**
 * sha256 over the normalized posting with keys in a canonical order: equal hashes mean nothing a client
 * can see has changed. `last_verified_at` and the quality verdict are deliberately outside it.
 */
export function contentHash(job: NormalizedJob): string {
  return createHash('sha256').update(canonicalJson(job)).digest('hex');
}

function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
}

type ContentColumns = Omit<
  Insertable<JobsTable>,
  'id' | 'slug' | 'provider_id' | 'source_posting_id' | 'first_seen_at' | 'last_verified_at' | 'content_changed_at' | 'status' | 'closed_at' | 'closed_reason' | 'upstream_expired_at'
>;

function contentColumns(job: NormalizedJob, verdict: QualityVerdict, company: CompanyRef, targetId: string, hash: string): ContentColumns {
  return {
    target_id: targetId,
    company_id: company.id,
    company_name: company.name,
    title: job.title,
    location: job.location ?? null,
    country: job.country ?? null,
    city: job.city ?? null,
    state: job.state ?? null,
    remote: job.remote ?? null,
    remote_inferred: job.remoteInferred,
    employment_type: job.employmentType ?? null,
    seniority: job.seniority ?? null,
    category: job.category ?? null,
    category_confidence: job.categoryConfidence,
    posted_at: job.postedAt ?? null,
    upstream_closes_at: job.upstreamClosesAt ?? null,
    withheld_kind: verdict.verdict === 'live' ? null : verdict.verdict,
    quality_verdict: verdict.verdict,
    quality_rule_id: verdict.ruleId ?? null,
    quality_matched_host: verdict.matchedHost ?? null,
    poster_type: job.posterType ?? null,
    apply_url: job.applyUrl ?? null,
    posting_url: job.postingUrl ?? null,
    source_type: job.sourceType,
    provider_type: job.providerType,
    has_description: job.hasDescription,
    description_html: job.descriptionHtml ?? null,
    description_text: job.descriptionText ?? null,
    salary_min: job.salary?.min ?? null,
    salary_max: job.salary?.max ?? null,
    salary_currency: job.salary?.currency ?? null,
    salary_period: job.salary?.period ?? null,
    salary_source: job.salary?.source ?? null,
    salary_min_annual_eur: job.salary?.minAnnualEur ?? null,
    field_sources: JSON.stringify(job.fieldSources),
    attribution: job.attribution ?? null,
    canonical_url: job.canonicalUrl ?? null,
    content_hash: hash,
  };
}

function companyKey(job: NormalizedJob): string {
  return JSON.stringify([job.companyName, job.companyDomain ?? null, job.companyLogo ?? null]);
}

const INSERT_CHUNK = 500;

/**
 * One event to record. `previous_country` is the row's country before this transaction's write, for a
 * row that existed; the `change_events_country` trigger (migration 008) sets `country` from the row
 * and keeps `previous_country` only when the two differ (a country-locked feed needs both).
 */
type ChangeRow = { job_id: string; change: ChangeKind; previous_country?: string | null };

/**
 * Resolve (create if needed) the employer of every posting, each in its own short transaction: a
 * company row is directory data, not a ledger change, and creating it apart keeps concurrent crawls
 * from contending on slugs. Keyed for {@link writeCrawl}.
 */
export async function resolveCompanies(db: Kysely<DB>, postings: readonly LedgerPosting[]): Promise<Map<string, CompanyRef>> {
  const companies = new Map<string, CompanyRef>();
  for (const { job } of postings) {
    const key = companyKey(job);
    if (!companies.has(key)) {
      companies.set(key, await resolveCompany(db, { name: job.companyName, domain: job.companyDomain, logoUrl: job.companyLogo }));
    }
  }
  return companies;
}

/**
 * Apply one successful crawl. Postings must be unique by `sourcePostingId`. An empty payload is
 * never evidence: it changes nothing.
 * @throws the database error; the transaction is rolled back and the ledger is unchanged.
 */
export async function applyCrawl(db: Kysely<DB>, input: ApplyCrawlInput): Promise<CrawlCounts> {
  if (input.postings.length === 0) return { ...NO_COUNTS };
  const companies = await resolveCompanies(db, input.postings);
  return db.transaction().execute((trx) => writeCrawl(trx, input, companies));
}

/**
 * {@link applyCrawl} inside the caller's transaction, with employers already resolved by
 * {@link resolveCompanies}. The feed stamp is taken by the closing writes at the end, so the caller
 * should commit soon after this returns.
 */
export async function writeCrawl(trx: Transaction<DB>, input: ApplyCrawlInput, companies: Map<string, CompanyRef>): Promise<CrawlCounts> {
  const { now, providerId, targetId, absence } = input;
  const counts: CrawlCounts = { ...NO_COUNTS, postings: input.postings.length };
  if (input.postings.length === 0) return counts;

  const ids = input.postings.map((p) => p.job.sourcePostingId);
  const listed = new Set(ids);
  // Every row this crawl may write, locked in id order (see the module note).
  const lockedRows = await trx
    .selectFrom('jobs')
    .select(['id', 'source_posting_id', 'target_id', 'status', 'closed_reason', 'withheld_kind', 'served', 'content_hash', 'missed_crawls', 'last_verified_at', 'country'])
    .where('provider_id', '=', providerId)
    .where((eb) => {
      const inPayload = eb('source_posting_id', '=', eb.fn.any(eb.val(ids)));
      return absence ? eb.or([inPayload, eb.and([eb('target_id', '=', targetId), eb('status', '=', 'live')])]) : inPayload;
    })
    .orderBy('id')
    .forUpdate()
    .execute();
  const existing = new Map(lockedRows.filter((r) => listed.has(r.source_posting_id)).map((r) => [r.source_posting_id, r]));
  const absent = lockedRows.filter((r) => !listed.has(r.source_posting_id));

  const liveInserts: Insertable<JobsTable>[] = [];
  const closedInserts: Insertable<JobsTable>[] = [];
  const updates: RowWrite[] = [];
  const closes: RowWrite[] = [];
  const verifyIds: string[] = [];
  const events: ChangeRow[] = [];

  for (const { job, verdict } of input.postings) {
    const company = companies.get(companyKey(job));
    if (!company) throw new Error('company resolution missing');
    const hash = contentHash(job);
    const row = existing.get(job.sourcePostingId);
    const state: LedgerState | undefined = row && {
      status: row.status,
      closedReason: row.closed_reason,
      withheldKind: row.withheld_kind,
      served: row.served,
      contentHash: row.content_hash,
    };
    const closesAt = job.upstreamClosesAt ? new Date(job.upstreamClosesAt) : undefined;
    const transition = decideTransition(state, { contentHash: hash, verdict, posterTyped: job.posterType !== undefined, upstreamClosesAt: closesAt }, now);
    const content = contentColumns(job, verdict, company, targetId, hash);

    switch (transition.kind) {
      case 'insert': {
        const id = randomUUID();
        const values: Insertable<JobsTable> = {
          ...content,
          id,
          slug: jobSlug(job.title, id),
          provider_id: providerId,
          source_posting_id: job.sourcePostingId,
          first_seen_at: now,
          last_verified_at: now,
          content_changed_at: now,
          status: transition.closedUpstream ? 'closed' : 'live',
          closed_at: transition.closedUpstream ? now : null,
          closed_reason: transition.closedUpstream ? 'expired_upstream' : null,
          upstream_expired_at: transition.closedUpstream ? (closesAt ?? null) : null,
        };
        (transition.closedUpstream ? closedInserts : liveInserts).push(values);
        counts.created++;
        if (transition.event) events.push({ job_id: id, change: transition.event });
        break;
      }
      case 'verify':
        verifyIds.push(row!.id);
        counts.unchanged++;
        break;
      case 'update': {
        updates.push({ id: row!.id, content, status: 'live' });
        counts.updated++;
        if (transition.event === 'withdrawn') counts.withdrawn++;
        if (transition.event) events.push({ job_id: row!.id, change: transition.event, previous_country: row!.country });
        break;
      }
      case 'close_expired': {
        closes.push({ id: row!.id, content, status: 'closed', closedReason: 'expired_upstream', upstreamExpiredAt: closesAt ?? now });
        counts.closed++;
        if (transition.event) events.push({ job_id: row!.id, change: transition.event, previous_country: row!.country });
        break;
      }
      case 'stay_closed':
        if (transition.contentChanged) {
          updates.push({ id: row!.id, content, status: 'closed' });
          counts.updated++;
        } else {
          verifyIds.push(row!.id);
          counts.unchanged++;
        }
        break;
    }
  }

  const missedIds: string[] = [];
  const notSeen: { id: string; served: boolean }[] = [];
  if (absence) {
    for (const row of absent) {
      counts.missed++;
      if (decideAbsence(row.missed_crawls + 1, row.last_verified_at, now, absence) === 'close_not_seen') notSeen.push({ id: row.id, served: row.served });
      else missedIds.push(row.id);
    }
  }

  // Writes that do not touch the feed clock first.
  for (let i = 0; i < liveInserts.length; i += INSERT_CHUNK) {
    await trx.insertInto('jobs').values(liveInserts.slice(i, i + INSERT_CHUNK)).execute();
  }
  await writeRows(trx, updates, now);
  if (verifyIds.length > 0) {
    await trx
      .updateTable('jobs')
      .set({ last_verified_at: now, missed_crawls: 0 })
      .where('id', '=', (eb) => eb.fn.any(eb.val(verifyIds)))
      .execute();
  }
  if (missedIds.length > 0) await countMissed(trx, missedIds);

  // Closures and events last: the first of them takes the feed clock until commit.
  for (let i = 0; i < closedInserts.length; i += INSERT_CHUNK) {
    await trx.insertInto('jobs').values(closedInserts.slice(i, i + INSERT_CHUNK)).execute();
  }
  await writeRows(trx, closes, now);
  if (notSeen.length > 0) {
    await closeNotSeen(trx, notSeen.map((r) => r.id), now);
    counts.closed += notSeen.length;
    counts.notSeen = notSeen.length;
    for (const r of notSeen) if (r.served) events.push({ job_id: r.id, change: 'delisted' });
  }
  counts.events = await recordChanges(trx, events);
  return counts;
}

/**
 * A re-sighting of an existing row: its new content, and the status it ends in. `live`: stays or
 * becomes live (a reopened row loses its closure fields). `closed`: stays closed (content refreshed,
 * closure fields kept) or closes now with `closedReason` and `upstreamExpiredAt`.
 */
interface RowWrite {
  id: string;
  content: ContentColumns;
  status: 'live' | 'closed';
  closedReason?: 'expired_upstream';
  upstreamExpiredAt?: Date;
}

/** Every content column a re-sighting rewrites (the keys of {@link contentColumns}). */
const CONTENT_COLUMN_NAMES = [
  'target_id', 'company_id', 'company_name', 'title', 'location', 'country', 'city', 'state', 'remote', 'remote_inferred',
  'employment_type', 'seniority', 'category', 'category_confidence', 'posted_at', 'upstream_closes_at', 'withheld_kind',
  'quality_verdict', 'quality_rule_id', 'quality_matched_host', 'poster_type', 'apply_url', 'posting_url', 'source_type',
  'provider_type', 'has_description', 'description_html', 'description_text', 'salary_min', 'salary_max', 'salary_currency',
  'salary_period', 'salary_source', 'salary_min_annual_eur', 'field_sources', 'attribution', 'canonical_url', 'content_hash',
] as const satisfies readonly (keyof ContentColumns)[];

const ROW_WRITE_CHUNK = 500;

/**
 * Apply re-sightings in one statement per chunk (`UPDATE ... FROM jsonb_populate_recordset(NULL::jobs,
 * $1)`), not one per row: a board's crawl can rewrite hundreds of rows, and a statement per row costs a
 * round trip and a plan each. Values are bound as one JSON parameter; column names come from the
 * constant list above. `last_verified_at` and `updated_at` become `now`, `missed_crawls` 0,
 * `content_changed_at` moves only when the content hash changed.
 */
async function writeRows(trx: Transaction<DB>, rows: readonly RowWrite[], now: Date): Promise<void> {
  for (let i = 0; i < rows.length; i += ROW_WRITE_CHUNK) {
    const records = rows.slice(i, i + ROW_WRITE_CHUNK).map((r) => ({
      ...r.content,
      field_sources: JSON.parse(r.content.field_sources as string) as unknown,
      id: r.id,
      status: r.status,
      closed_reason: r.closedReason ?? null,
      upstream_expired_at: r.upstreamExpiredAt ?? null,
      // Replaced by the feed stamp (trigger) when the row closes now; set so the row is well formed.
      closed_at: r.status === 'closed' ? now : null,
    }));
    const contentSet = sql.join(CONTENT_COLUMN_NAMES.map((c) => sql`${sql.id(c)} = v.${sql.id(c)}`));
    await sql`
      UPDATE jobs AS j SET
        ${contentSet},
        last_verified_at = ${now},
        updated_at = ${now},
        missed_crawls = 0,
        content_changed_at = CASE WHEN j.content_hash IS DISTINCT FROM v.content_hash THEN ${now}::timestamptz ELSE j.content_changed_at END,
        status = v.status,
        closed_at = CASE WHEN v.status = 'live' THEN NULL WHEN j.status = 'closed' THEN j.closed_at ELSE v.closed_at END,
        closed_reason = CASE WHEN v.status = 'live' THEN NULL WHEN j.status = 'closed' THEN j.closed_reason ELSE v.closed_reason END,
        upstream_expired_at = CASE WHEN v.status = 'live' THEN NULL WHEN j.status = 'closed' THEN j.upstream_expired_at ELSE v.upstream_expired_at END
      FROM jsonb_populate_recordset(NULL::jobs, ${JSON.stringify(records)}::jsonb) AS v
      WHERE j.id = v.id`.execute(trx);
  }
}

async function countMissed(trx: Transaction<DB>, ids: string[]): Promise<void> {
  await trx
    .updateTable('jobs')
    .set((eb) => ({ missed_crawls: eb('missed_crawls', '+', 1) }))
    .where('id', '=', (eb) => eb.fn.any(eb.val(ids)))
    .execute();
}

async function closeNotSeen(trx: Transaction<DB>, ids: string[], now: Date): Promise<void> {
  await trx
    .updateTable('jobs')
    .set((eb) => ({ status: 'closed', closed_at: now, closed_reason: 'not_seen', missed_crawls: eb('missed_crawls', '+', 1), updated_at: now }))
    .where('id', '=', (eb) => eb.fn.any(eb.val(ids)))
    .execute();
}

/**
 * Record change events (one per job per transaction: the feed's key is the stamp and the job id).
 * Their feed stamp comes from the trigger. Returns how many were written.
 */
export async function recordChanges(trx: Transaction<DB>, events: readonly ChangeRow[]): Promise<number> {
  if (events.length === 0) return 0;
  await trx.insertInto('change_events').values([...events]).execute();
  return events.length;
}

/** What an unchanged-board answer did: rows re-verified, and the absence rule applied to the rest. */
export interface UnchangedBoardCounts {
  reverified: number;
  /** Live rows the board (still) does not list. */
  missed: number;
  /** Of those, rows closed as `not_seen` now. */
  notSeen: number;
  events: number;
}

/**
 * A 304 answer proves the whole board is exactly as last crawled: every row it listed is re-verified,
 * and every live row it did not list has missed one more good crawl (closed as `not_seen` under
 * `absence`).
 */
export async function applyUnchangedBoard(db: Kysely<DB>, input: { targetId: string; now: Date; absence: AbsencePolicy }): Promise<UnchangedBoardCounts> {
  const { targetId, now, absence } = input;
  return db.transaction().execute(async (trx) => {
    const rows = await trx
      .selectFrom('jobs')
      .select(['id', 'status', 'served', 'missed_crawls', 'last_verified_at'])
      .where('target_id', '=', targetId)
      .where((eb) => eb.or([eb('missed_crawls', '=', 0), eb('status', '=', 'live')]))
      .orderBy('id')
      .forUpdate()
      .execute();
    const listed = rows.filter((r) => r.missed_crawls === 0).map((r) => r.id);
    const absent = rows.filter((r) => r.missed_crawls > 0 && r.status === 'live');
    const notSeen = absent.filter((r) => decideAbsence(r.missed_crawls + 1, r.last_verified_at, now, absence) === 'close_not_seen');
    const stillMissed = absent.filter((r) => !notSeen.includes(r)).map((r) => r.id);
    if (listed.length > 0) {
      await trx
        .updateTable('jobs')
        .set({ last_verified_at: now })
        .where('id', '=', (eb) => eb.fn.any(eb.val(listed)))
        .execute();
    }
    if (stillMissed.length > 0) await countMissed(trx, stillMissed);
    let events = 0;
    if (notSeen.length > 0) {
      await closeNotSeen(trx, notSeen.map((r) => r.id), now);
      events = await recordChanges(trx, notSeen.filter((r) => r.served).map((r) => ({ job_id: r.id, change: 'delisted' as const })));
    }
    return { reverified: listed.length, missed: absent.length, notSeen: notSeen.length, events };
  });
}

/**
 * Close live rows whose posting URL answered 404 or 410 (spec: "vacancy proved dead upstream"):
 * `expired_upstream`, `upstream_expired_at` = `provedAt` (the probe's instant), `delisted` for served
 * rows. Rows no longer live are left alone.
 * @returns the number of rows closed.
 */
export async function closeProvedDead(db: Kysely<DB>, ids: readonly string[], provedAt: Date): Promise<number> {
  if (ids.length === 0) return 0;
  return db.transaction().execute(async (trx) => {
    const rows = await trx
      .selectFrom('jobs')
      .select(['id', 'served'])
      .where('id', '=', (eb) => eb.fn.any(eb.val([...ids])))
      .where('status', '=', 'live')
      .orderBy('id')
      .forUpdate()
      .execute();
    if (rows.length === 0) return 0;
    await trx
      .updateTable('jobs')
      .set({ status: 'closed', closed_at: provedAt, closed_reason: 'expired_upstream', upstream_expired_at: provedAt, updated_at: provedAt })
      .where('id', '=', (eb) => eb.fn.any(eb.val(rows.map((r) => r.id))))
      .execute();
    await recordChanges(trx, rows.filter((r) => r.served).map((r) => ({ job_id: r.id, change: 'delisted' as const })));
    return rows.length;
  });
}

/**
 * Close live rows whose source's own close date (USAJOBS `close_date`) has passed by `now`, without
 * waiting for the next crawl: `expired_upstream`, `upstream_expired_at` = that close date, `delisted`
 * for served rows. Rows being written by a crawl right now are skipped (the crawl decides for them).
 * @returns the number of rows closed (at most `batch` per call).
 */
export async function sweepUpstreamClosures(db: Kysely<DB>, now: Date, batch = 2000): Promise<number> {
  return db.transaction().execute(async (trx) => {
    const rows = await trx
      .selectFrom('jobs')
      .select(['id', 'served'])
      .where('status', '=', 'live')
      .where('upstream_closes_at', '<=', now)
      .orderBy('id')
      .limit(batch)
      .forUpdate()
      .skipLocked()
      .execute();
    if (rows.length === 0) return 0;
    await trx
      .updateTable('jobs')
      .set((eb) => ({ status: 'closed', closed_at: now, closed_reason: 'expired_upstream', upstream_expired_at: eb.ref('upstream_closes_at'), updated_at: now }))
      .where('id', '=', (eb) => eb.fn.any(eb.val(rows.map((r) => r.id))))
      .execute();
    await recordChanges(trx, rows.filter((r) => r.served).map((r) => ({ job_id: r.id, change: 'delisted' as const })));
    return rows.length;
  });
}

/**
 * Live rows of a target that its last good crawl did not list (`missed_crawls` > 0) and that have a
 * posting URL to probe, least recently seen first.
 */
export async function missingRowsToProbe(db: Kysely<DB>, targetId: string, limit: number): Promise<{ id: string; postingUrl: string }[]> {
  if (limit <= 0) return [];
  const rows = await db
    .selectFrom('jobs')
    .select(['id', 'posting_url'])
    .where('target_id', '=', targetId)
    .where('status', '=', 'live')
    .where('missed_crawls', '>', 0)
    .where('posting_url', 'is not', null)
    .orderBy('last_verified_at')
    .orderBy('id')
    .limit(limit)
    .execute();
  return rows.map((r) => ({ id: r.id, postingUrl: r.posting_url! }));
}
