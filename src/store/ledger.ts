/**
 * The ledger's write side: applies one successful crawl of one board to the `jobs` table and records
 * the change events, all in one transaction (spec: States and transitions; ARCHITECTURE "ledger upsert
 * in one transaction"); closes rows the source proved dead (posting URL gone, close date passed) or
 * stopped listing (not_seen); withholds the rows of an employer that opted out. A crawl that failed
 * never reaches this module, so it can change nothing.
 *
 * It decides nothing: what happens to each row is planned by the pure functions of
 * `domain/lifecycle.ts` (`planCrawl`, `planUnchangedBoard`, `planOptoutWithholding`, `delistings`),
 * and this module locks, writes and records what they planned. It is the one writer of `jobs` rows'
 * status and withholding and of `change_events` (design guide: "No second path writes jobs or
 * change_events"); companies.ts only copies a renamed employer's name onto its rows.
 *
 * Feed stamps: `change_events.published_at` and `jobs.closed_at` are set by triggers from the
 * commit-ordered feed clock (migration 004), whatever is written here. The first such write of a
 * transaction holds the clock until commit, so every transaction here does its other writes first and
 * its closures and events last, keeping that hold short. Rows are locked in id order up front, so two
 * writers never wait on each other's rows while one holds the clock.
 */
import { randomUUID } from 'node:crypto';
import { sql, type Insertable, type Kysely, type Transaction } from 'kysely';
import {
  delistings,
  NO_COUNTS,
  planCrawl,
  planCopyWithholding,
  planOptoutWithholding,
  planUnchangedBoard,
  repostKey,
  type AbsencePolicy,
  type BoardRow,
  type CrawlCounts,
  type CrawlPlan,
  type KeptEnrichmentRecord,
  type LedgerPosting,
  type PlannedEvent,
  type PlannedInsert,
  type PlannedRewrite,
  type VacancyPredecessor,
  type WithholdingCandidate,
  type WithholdingPlan,
} from '../domain/lifecycle.ts';
import type { NormalizedJob } from '../domain/posting.ts';
import type { QualityVerdict } from '../domain/quality.ts';
import { resolveCompany, type CompanyRef } from './companies.ts';
import { notModifiedRecordCtes, type NotModifiedRun } from './crawl-targets.ts';
import { keepEnrichments } from './enrichment-records.ts';
import type { DB, JobRow, JobsTable } from './schema.ts';

export interface ApplyCrawlInput {
  /** The crawl target; null for rows that no crawl lists (direct submissions), which then take no `absence`. */
  targetId: string | null;
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

type ContentColumns = Omit<
  Insertable<JobsTable>,
  'id' | 'slug' | 'provider_id' | 'source_posting_id' | 'first_seen_at' | 'last_verified_at' | 'content_changed_at' | 'status' | 'closed_at' | 'closed_reason' | 'upstream_expired_at' | 'repost_count'
>;

function contentColumns(job: NormalizedJob, verdict: QualityVerdict, company: CompanyRef, targetId: string | null, hash: string): ContentColumns {
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
    poster_rule_id: job.posterType === undefined ? null : (job.posterRuleId ?? 'poster.unrecorded'),
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
    salary_max_annual_eur: job.salary?.maxAnnualEur ?? null,
    field_sources: JSON.stringify(job.fieldSources),
    attribution: job.attribution ?? null,
    canonical_url: job.canonicalUrl ?? null,
    content_hash: hash,
    repost_key: repostKey(job.title, job.location),
  };
}

function companyKey(job: NormalizedJob): string {
  return JSON.stringify([job.companyName, job.companyDomain ?? null, job.companyLogo ?? null]);
}

const INSERT_CHUNK = 500;

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
 * {@link resolveCompanies}. The decisions are {@link planCrawl}'s; this executes the plan. The feed
 * stamp is taken by the closing writes at the end, so the caller should commit soon after this returns.
 */
export async function writeCrawl(trx: Transaction<DB>, input: ApplyCrawlInput, companies: Map<string, CompanyRef>): Promise<CrawlCounts> {
  const { now, providerId, targetId, absence } = input;
  if (input.postings.length === 0) return { ...NO_COUNTS };

  const ids = input.postings.map((p) => p.job.sourcePostingId);
  // Every row this crawl may write, locked in id order (see the module note).
  const lockedRows = await trx
    .selectFrom('jobs')
    .select(['id', 'source_posting_id', 'target_id', 'status', 'closed_reason', 'withheld_kind', 'served', 'content_hash', 'missed_crawls', 'last_verified_at', 'country', 'repost_count'])
    .where('provider_id', '=', providerId)
    .where((eb) => {
      const inPayload = eb('source_posting_id', '=', eb.fn.any(eb.val(ids)));
      return absence && targetId !== null ? eb.or([inPayload, eb.and([eb('target_id', '=', targetId), eb('status', '=', 'live')])]) : inPayload;
    })
    .orderBy('id')
    .forUpdate()
    .execute();
  const rows: BoardRow[] = lockedRows.map((r) => ({
    id: r.id,
    sourcePostingId: r.source_posting_id,
    status: r.status,
    closedReason: r.closed_reason,
    withheldKind: r.withheld_kind,
    served: r.served,
    contentHash: r.content_hash,
    missedCrawls: r.missed_crawls,
    lastVerifiedAt: r.last_verified_at,
    country: r.country,
    repostCount: r.repost_count,
  }));
  const known = new Set(rows.map((r) => r.sourcePostingId));
  const predecessors = await findPredecessors(
    trx,
    input.postings.filter((p) => !known.has(p.job.sourcePostingId)),
    companies,
  );
  const plan = planCrawl({ postings: input.postings, rows, now, absence, newId: randomUUID, targetId, predecessors });

  const content = (posting: LedgerPosting, hash: string): ContentColumns => {
    const company = companies.get(companyKey(posting.job));
    if (!company) throw new Error('company resolution missing');
    return contentColumns(posting.job, posting.verdict, company, targetId, hash);
  };
  const insertRow = (p: PlannedInsert): Insertable<JobsTable> => ({
    ...content(p.posting, p.hash),
    id: p.id,
    slug: p.slug,
    provider_id: providerId,
    source_posting_id: p.posting.job.sourcePostingId,
    first_seen_at: now,
    last_verified_at: now,
    content_changed_at: now,
    status: p.closedUpstream ? 'closed' : 'live',
    repost_count: p.repostCount,
    closed_at: p.closedUpstream ? now : null,
    closed_reason: p.closedUpstream ? 'expired_upstream' : null,
    upstream_expired_at: p.upstreamExpiredAt,
  });
  const rowWrite = (r: PlannedRewrite): RowWrite => ({
    id: r.id,
    content: content(r.posting, r.hash),
    status: r.status,
    closedReason: r.closedReason,
    upstreamExpiredAt: r.upstreamExpiredAt,
    repostCount: r.repostCount,
  });

  // Writes that do not touch the feed clock first.
  await insertRows(trx, plan.liveInserts.map(insertRow));
  await writeRows(trx, plan.rewrites.map(rowWrite), now);
  if (plan.verified.length > 0) {
    await trx
      .updateTable('jobs')
      .set({ last_verified_at: now, missed_crawls: 0 })
      .where('id', '=', (eb) => eb.fn.any(eb.val(plan.verified)))
      .execute();
  }
  if (plan.missed.length > 0) await countMissed(trx, plan.missed);
  await keepEnrichments(trx, keptRecords(input.postings, rows, plan));

  // Closures and events last: the first of them takes the feed clock until commit.
  await insertRows(trx, plan.closedInserts.map(insertRow));
  await writeRows(trx, plan.closes.map(rowWrite), now);
  if (plan.notSeen.length > 0) await closeNotSeen(trx, plan.notSeen, now);
  await recordChanges(trx, plan.events);
  return plan.counts;
}

/**
 * The enrichment records to keep: one for each posting enriched afresh by this crawl, on the row that
 * holds it after the plan (an existing row, or a new one of either kind of insert).
 */
function keptRecords(postings: readonly LedgerPosting[], rows: readonly BoardRow[], plan: CrawlPlan): (KeptEnrichmentRecord & { jobId: string })[] {
  const jobIds = new Map(rows.map((r) => [r.sourcePostingId, r.id]));
  for (const insert of [...plan.liveInserts, ...plan.closedInserts]) jobIds.set(insert.posting.job.sourcePostingId, insert.id);
  return postings.flatMap(({ job, enrichment }) => {
    const jobId = jobIds.get(job.sourcePostingId);
    return enrichment && jobId ? [{ jobId, ...enrichment }] : [];
  });
}

/**
 * The rows of the same employer and {@link repostKey} as each posting the ledger does not hold yet (any
 * provider, any status), keyed by the posting's `sourcePostingId`, for `planCrawl`'s repost counts. One
 * query over `jobs_repost_idx` (migration 026); none when every posting is known.
 */
async function findPredecessors(
  trx: Transaction<DB>,
  fresh: readonly LedgerPosting[],
  companies: Map<string, CompanyRef>,
): Promise<Map<string, VacancyPredecessor[]>> {
  const byVacancy = new Map<string, string[]>();
  const companyIds: string[] = [];
  const keys: string[] = [];
  for (const { job } of fresh) {
    const company = companies.get(companyKey(job));
    if (!company) throw new Error('company resolution missing');
    const key = repostKey(job.title, job.location);
    const vacancy = JSON.stringify([company.id, key]);
    const postings = byVacancy.get(vacancy);
    if (postings) postings.push(job.sourcePostingId);
    else {
      byVacancy.set(vacancy, [job.sourcePostingId]);
      companyIds.push(company.id);
      keys.push(key);
    }
  }
  const found = new Map<string, VacancyPredecessor[]>();
  if (keys.length === 0) return found;
  const rows = await sql<{ id: string; company_id: string; repost_key: string; status: 'live' | 'closed'; target_id: string | null; repost_count: number }>`
    SELECT j.id, j.company_id, j.repost_key, j.status, j.target_id, j.repost_count
    FROM jobs j
    JOIN unnest(${companyIds}::uuid[], ${keys}::text[]) AS v(company_id, repost_key)
      ON j.company_id = v.company_id AND j.repost_key = v.repost_key`.execute(trx);
  for (const r of rows.rows) {
    const predecessor: VacancyPredecessor = { id: r.id, status: r.status, targetId: r.target_id, repostCount: r.repost_count };
    for (const sourcePostingId of byVacancy.get(JSON.stringify([r.company_id, r.repost_key])) ?? []) {
      const list = found.get(sourcePostingId);
      if (list) list.push(predecessor);
      else found.set(sourcePostingId, [predecessor]);
    }
  }
  return found;
}

async function insertRows(trx: Transaction<DB>, rows: readonly Insertable<JobsTable>[]): Promise<void> {
  for (let i = 0; i < rows.length; i += INSERT_CHUNK) {
    await trx.insertInto('jobs').values(rows.slice(i, i + INSERT_CHUNK)).execute();
  }
}

/** A rewrite of an existing row, in columns (see {@link PlannedRewrite}). */
interface RowWrite {
  id: string;
  content: ContentColumns;
  status: 'live' | 'closed';
  closedReason?: 'expired_upstream';
  upstreamExpiredAt?: Date;
  repostCount: number;
}

/** Every content column a re-sighting rewrites (the keys of {@link contentColumns}). */
const CONTENT_COLUMN_NAMES = [
  'target_id', 'company_id', 'company_name', 'title', 'location', 'country', 'city', 'state', 'remote', 'remote_inferred',
  'employment_type', 'seniority', 'category', 'category_confidence', 'posted_at', 'upstream_closes_at', 'withheld_kind',
  'quality_verdict', 'quality_rule_id', 'quality_matched_host', 'poster_type', 'poster_rule_id', 'apply_url', 'posting_url', 'source_type',
  'provider_type', 'has_description', 'description_html', 'description_text', 'salary_min', 'salary_max', 'salary_currency',
  'salary_period', 'salary_source', 'salary_min_annual_eur', 'salary_max_annual_eur', 'field_sources', 'attribution', 'canonical_url', 'content_hash', 'repost_key',
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
      repost_count: r.repostCount,
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
        repost_count = v.repost_count,
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
 * Record change events (one per job per transaction: the feed's key is the stamp and the job id): the
 * one place the ledger writes `change_events`. Their feed stamp comes from the trigger; the
 * `change_events_country` trigger (migration 008) sets `country` from the row and keeps
 * `previous_country` only when the two differ. Returns how many were written.
 */
async function recordChanges(trx: Transaction<DB>, events: readonly PlannedEvent[]): Promise<number> {
  if (events.length === 0) return 0;
  await trx
    .insertInto('change_events')
    .values(events.map((e) => ({ job_id: e.jobId, change: e.change, ...(e.previousCountry !== undefined ? { previous_country: e.previousCountry } : {}) })))
    .execute();
  return events.length;
}

/** What an unchanged-board answer did: rows re-verified, and the absence rule applied to the rest. */
export interface UnchangedBoardCounts {
  /** Whether the crawl's record (`input.record`) was written by the same statement. */
  recorded: boolean;
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
 * `absence`). The decisions are {@link planUnchangedBoard}'s. With `record`, a board where nothing is
 * left to count or close (no live row it stopped listing) is also recorded as a not-modified good
 * crawl in the same statement (`recorded: true`); otherwise the caller records it.
 */
export async function applyUnchangedBoard(
  db: Kysely<DB>,
  input: { targetId: string; now: Date; absence: AbsencePolicy; record?: NotModifiedRun },
): Promise<UnchangedBoardCounts> {
  const { targetId, now, absence, record } = input;
  // Most unchanged boards have no live row that an earlier crawl missed: their 304 only re-verifies
  // what they listed, which one statement does (the same rows, locked in id order, then updated),
  // instead of a transaction of four round trips; with `record`, the same statement also records the
  // crawl (nothing is left to close or probe). A board with such rows goes through the plan below
  // (which re-verifies the same rows again, to the same instant) and is recorded by its caller.
  const recording = record ? sql`, ${notModifiedRecordCtes(record, sql`(SELECT count(*) FROM verified)`, sql`(SELECT NOT pending FROM settled)`)}` : sql``;
  const fast = await sql<{ reverified: number; pending: boolean; recorded: boolean }>`
    WITH board AS (
      SELECT id, missed_crawls FROM jobs
       WHERE target_id = ${targetId} AND (missed_crawls = 0 OR status = 'live')
       ORDER BY id FOR UPDATE
    ), verified AS (
      UPDATE jobs SET last_verified_at = ${now} FROM board WHERE jobs.id = board.id AND board.missed_crawls = 0 RETURNING jobs.id
    ), settled AS (
      SELECT EXISTS (SELECT 1 FROM board WHERE missed_crawls > 0) AS pending
    )${recording}
    SELECT (SELECT count(*) FROM verified)::int AS reverified, (SELECT pending FROM settled) AS pending,
           ${record ? sql`EXISTS (SELECT 1 FROM recorded_run)` : sql`false`} AS recorded`.execute(db);
  const first = fast.rows[0]!;
  if (!first.pending) return { recorded: first.recorded, reverified: first.reverified, missed: 0, notSeen: 0, events: 0 };
  return db.transaction().execute(async (trx) => {
    const rows = await trx
      .selectFrom('jobs')
      .select(['id', 'status', 'served', 'missed_crawls', 'last_verified_at'])
      .where('target_id', '=', targetId)
      .where((eb) => eb.or([eb('missed_crawls', '=', 0), eb('status', '=', 'live')]))
      .orderBy('id')
      .forUpdate()
      .execute();
    const plan = planUnchangedBoard(
      rows.map((r) => ({ id: r.id, status: r.status, served: r.served, missedCrawls: r.missed_crawls, lastVerifiedAt: r.last_verified_at })),
      now,
      absence,
    );
    if (plan.reverified.length > 0) {
      await trx
        .updateTable('jobs')
        .set({ last_verified_at: now })
        .where('id', '=', (eb) => eb.fn.any(eb.val(plan.reverified)))
        .execute();
    }
    if (plan.missed.length > 0) await countMissed(trx, plan.missed);
    if (plan.notSeen.length > 0) await closeNotSeen(trx, plan.notSeen, now);
    const events = await recordChanges(trx, plan.events);
    return { recorded: false, reverified: plan.reverified.length, missed: plan.missed.length + plan.notSeen.length, notSeen: plan.notSeen.length, events };
  });
}

/**
 * Close live rows whose posting URL answered 404 or 410 (spec: "vacancy proved dead upstream"):
 * `expired_upstream`, `upstream_expired_at` = `provedAt` (the probe's instant), `delisted` for served
 * rows. Rows no longer live are left alone.
 * @returns the number of rows closed.
 */
export async function closeProvedDead(db: Kysely<DB>, ids: readonly string[], provedAt: Date): Promise<number> {
  return closeLiveRows(db, ids, async (trx, live) => {
    await trx
      .updateTable('jobs')
      .set({ status: 'closed', closed_at: provedAt, closed_reason: 'expired_upstream', upstream_expired_at: provedAt, updated_at: provedAt })
      .where('id', '=', (eb) => eb.fn.any(eb.val(live)))
      .execute();
  });
}

/**
 * The shared shape of closing rows by id: lock the ones still live (in id order, so two closers never
 * deadlock), close them with `close`, and record `delisted` for the served ones, in one transaction.
 * @returns the number of rows closed.
 */
async function closeLiveRows(db: Kysely<DB>, ids: readonly string[], close: (trx: Transaction<DB>, live: string[]) => Promise<void>): Promise<number> {
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
    await close(trx, rows.map((r) => r.id));
    await recordChanges(trx, delistings(rows));
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
    await recordChanges(trx, delistings(rows));
    return rows.length;
  });
}

/**
 * Withhold the rows of an employer a verified opt-out now covers, inside the caller's transaction
 * (the one recording the opt-out). The employer is the company `companyId`, every company whose bare
 * domain is `domain`, or both. The decisions are {@link planOptoutWithholding}'s; rows are locked in
 * id order as a crawl locks them, and the `withdrawn` events are written last.
 * @returns how many rows were withheld and how many of them had been served.
 */
export async function withholdOptedOut(trx: Transaction<DB>, employer: { domain?: string; companyId?: string }, now: Date): Promise<{ hidden: number; withdrawn: number }> {
  const { domain, companyId } = employer;
  const companies = trx
    .selectFrom('companies')
    .select('id')
    .where((eb) => eb.or([...(domain ? [eb('domain', '=', domain)] : []), ...(companyId ? [eb('id', '=', companyId)] : [])]));
  const rows = await trx
    .selectFrom('jobs')
    .select(['id', 'served', 'quality_verdict', 'quality_rule_id'])
    .where('company_id', 'in', companies)
    .orderBy('id')
    .forUpdate()
    .execute();
  return applyWithholding(trx, planOptoutWithholding(rows.map(toWithholdingCandidate)), now);
}

function toWithholdingCandidate(r: Pick<JobRow, 'id' | 'served' | 'quality_verdict' | 'quality_rule_id'>): WithholdingCandidate {
  return { id: r.id, served: r.served, verdict: r.quality_verdict, ruleId: r.quality_rule_id };
}

/**
 * Write a withholding plan inside `trx`: the planned rows get the plan's verdict, then the
 * `withdrawn` events of the rows that had been served are recorded.
 * @returns how many rows were withheld and how many of them had been served.
 */
async function applyWithholding(trx: Transaction<DB>, plan: WithholdingPlan, now: Date): Promise<{ hidden: number; withdrawn: number }> {
  if (plan.withhold.length > 0) {
    const { verdict } = plan;
    await trx
      .updateTable('jobs')
      .set({
        withheld_kind: verdict.verdict === 'live' ? null : verdict.verdict,
        quality_verdict: verdict.verdict,
        quality_rule_id: verdict.ruleId ?? null,
        quality_matched_host: verdict.matchedHost ?? null,
        updated_at: now,
      })
      .where('id', '=', (eb) => eb.fn.any(eb.val(plan.withhold)))
      .execute();
  }
  const withdrawn = await recordChanges(trx, plan.events);
  return { hidden: plan.withhold.length, withdrawn };
}

/**
 * The source posting ids among `sourcePostingIds` for which any of `providerIds` has a row, live or
 * closed (the gate's `source.superseded`: a vacancy the superseding provider knows about).
 */
export async function sourceIdsHeldBy(db: Kysely<DB>, providerIds: readonly string[], sourcePostingIds: readonly string[]): Promise<Set<string>> {
  if (providerIds.length === 0 || sourcePostingIds.length === 0) return new Set();
  const rows = await db
    .selectFrom('jobs')
    .select('source_posting_id')
    .where('provider_id', '=', (eb) => eb.fn.any(eb.val([...providerIds])))
    .where('source_posting_id', '=', (eb) => eb.fn.any(eb.val([...sourcePostingIds])))
    .execute();
  return new Set(rows.map((r) => r.source_posting_id));
}

/**
 * Withhold the live rows of `providerIds` whose source posting ids are among `sourcePostingIds`: copies
 * of vacancies a superseding provider now has (decided by {@link planCopyWithholding}; rule
 * `source.superseded`). Rows are locked in id order as a crawl locks them; `withdrawn` events are
 * written last, for the rows that were served.
 * @returns how many rows were withheld and how many of them had been served.
 */
export async function withholdCopies(db: Kysely<DB>, providerIds: readonly string[], sourcePostingIds: readonly string[], now: Date): Promise<{ hidden: number; withdrawn: number }> {
  if (providerIds.length === 0 || sourcePostingIds.length === 0) return { hidden: 0, withdrawn: 0 };
  return db.transaction().execute(async (trx) => {
    const rows = await trx
      .selectFrom('jobs')
      .select(['id', 'served', 'quality_verdict', 'quality_rule_id'])
      .where('provider_id', '=', (eb) => eb.fn.any(eb.val([...providerIds])))
      .where('source_posting_id', '=', (eb) => eb.fn.any(eb.val([...sourcePostingIds])))
      .where('status', '=', 'live')
      .orderBy('id')
      .forUpdate()
      .execute();
    return applyWithholding(trx, planCopyWithholding(rows.map(toWithholdingCandidate)), now);
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

/**
 * Ids of the live rows of a target whose source posting ids are among `sourcePostingIds` (the postings a
 * connector proved dead itself, e.g. a career page that answered 410), for {@link closeProvedDead}.
 */
export async function liveRowsBySourceIds(db: Kysely<DB>, targetId: string, sourcePostingIds: readonly string[]): Promise<string[]> {
  if (sourcePostingIds.length === 0) return [];
  const rows = await db
    .selectFrom('jobs')
    .select('id')
    .where('target_id', '=', targetId)
    .where('status', '=', 'live')
    .where('source_posting_id', '=', (eb) => eb.fn.any(eb.val([...sourcePostingIds])))
    .orderBy('id')
    .execute();
  return rows.map((r) => r.id);
}

/**
 * Close live rows as `not_seen` at `now` (a direct submission its employer did not re-confirm in
 * time: the vacancy stopped being confirmed at its source), `delisted` for served rows. Rows no
 * longer live are left alone.
 * @returns the number of rows closed.
 */
export async function closeNotSeenRows(db: Kysely<DB>, ids: readonly string[], now: Date): Promise<number> {
  return closeLiveRows(db, ids, (trx, live) => closeNotSeen(trx, live, now));
}

/** The tables a crawl writes, whose planner statistics a bulk import leaves behind the data. */
const CRAWLED_TABLES = ['jobs', 'job_enrichments', 'companies', 'change_events'];

/**
 * `ANALYZE` each table a crawl writes that changed by more than autovacuum's own analyze threshold
 * since its last analysis (`n_mod_since_analyze` > `autovacuum_analyze_threshold` +
 * `autovacuum_analyze_scale_factor` × its rows; PostgreSQL docs, "The Autovacuum Daemon"; per-table
 * overrides are not read). Autovacuum would analyze the same tables within `autovacuum_naptime` (a
 * minute) and then skips them; doing it at the end of an import means a crawl that starts right after
 * a bulk import plans on the new row counts: on the tables' statistics from before the import, a
 * board's locked-rows query read every row of its provider (13 ms a board instead of 1 in the ingest
 * bench, bench/README.md "Between the crawls").
 * @returns the tables analyzed, in CRAWLED_TABLES order.
 * @throws the database's error.
 */
export async function analyzeAfterBulkWrite(db: Kysely<DB>): Promise<string[]> {
  const { rows } = await sql<{ relname: string }>`
    SELECT s.relname FROM pg_stat_user_tables s JOIN pg_class c ON c.oid = s.relid
     WHERE s.schemaname = current_schema() AND s.relname = ANY(${CRAWLED_TABLES}::text[])
       AND s.n_mod_since_analyze > current_setting('autovacuum_analyze_threshold')::float8
                                   + current_setting('autovacuum_analyze_scale_factor')::float8 * greatest(c.reltuples, 0)`.execute(db);
  const stale = CRAWLED_TABLES.filter((table) => rows.some((r) => r.relname === table));
  for (const table of stale) await sql`ANALYZE ${sql.table(table)}`.execute(db);
  return stale;
}
