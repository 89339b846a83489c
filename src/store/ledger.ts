/**
 * The ledger's write side: applies one successful crawl of one board to the `jobs` table and records
 * the change events, all in one transaction (spec: States and transitions; ARCHITECTURE "ledger upsert
 * in one transaction"). A crawl that failed never reaches this module, so it can change nothing.
 */
import { createHash, randomUUID } from 'node:crypto';
import type { Insertable, Kysely, Transaction, Updateable } from 'kysely';
import { decideTransition, type LedgerState } from '../domain/lifecycle.ts';
import type { NormalizedJob } from '../domain/posting.ts';
import type { QualityVerdict } from '../domain/quality.ts';
import { jobSlug } from '../domain/slug.ts';
import type { ChangeKind } from '../domain/vocabulary.ts';
import { resolveCompany, type CompanyRef } from './companies.ts';
import type { DB, JobsTable } from './schema.ts';

/** One posting of the crawl, enriched and judged. */
export interface LedgerPosting {
  job: NormalizedJob;
  verdict: QualityVerdict;
}

export interface ApplyCrawlInput {
  targetId: string;
  providerId: string;
  postings: LedgerPosting[];
  /** The crawl's instant; every timestamp written by this crawl uses it. */
  now: Date;
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
  /** Rows closed by this crawl (expired upstream). */
  closed: number;
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
 * Apply one successful crawl. Postings must be unique by `sourcePostingId`.
 * Absence from the payload is not handled here (the not_seen rule belongs to the lifecycle worker).
 * @throws the database error; the transaction is rolled back and the ledger is unchanged.
 */
export async function applyCrawl(db: Kysely<DB>, input: ApplyCrawlInput): Promise<CrawlCounts> {
  if (input.postings.length === 0) {
    return { postings: 0, created: 0, updated: 0, unchanged: 0, closed: 0, withdrawn: 0, events: 0 };
  }
  // Employers are resolved first, each in its own short transaction: a company row is directory data,
  // not a ledger change, and creating it apart keeps concurrent crawls from contending on slugs.
  const companies = new Map<string, CompanyRef>();
  for (const { job } of input.postings) {
    const key = companyKey(job);
    if (!companies.has(key)) {
      companies.set(key, await resolveCompany(db, { name: job.companyName, domain: job.companyDomain, logoUrl: job.companyLogo }));
    }
  }
  return db.transaction().execute((trx) => applyCrawlIn(trx, input, companies));
}

async function applyCrawlIn(trx: Transaction<DB>, input: ApplyCrawlInput, companies: Map<string, CompanyRef>): Promise<CrawlCounts> {
  const { now, providerId, targetId } = input;
  const counts: CrawlCounts = { postings: input.postings.length, created: 0, updated: 0, unchanged: 0, closed: 0, withdrawn: 0, events: 0 };

  const ids = input.postings.map((p) => p.job.sourcePostingId);
  const existingRows = await trx
    .selectFrom('jobs')
    .select(['id', 'source_posting_id', 'status', 'closed_reason', 'withheld_kind', 'served', 'content_hash'])
    .where('provider_id', '=', providerId)
    .where('source_posting_id', '=', (eb) => eb.fn.any(eb.val(ids)))
    .execute();
  const existing = new Map(existingRows.map((r) => [r.source_posting_id, r]));

  const inserts: Insertable<JobsTable>[] = [];
  const verifyIds: string[] = [];
  const events: { job_id: string; change: ChangeKind }[] = [];

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
        inserts.push({
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
        });
        counts.created++;
        if (transition.event) events.push({ job_id: id, change: transition.event });
        break;
      }
      case 'verify':
        verifyIds.push(row!.id);
        counts.unchanged++;
        break;
      case 'update': {
        const set: Updateable<JobsTable> = { ...content, last_verified_at: now, missed_crawls: 0, updated_at: now };
        if (row!.content_hash !== hash) set.content_changed_at = now;
        if (transition.reopen) Object.assign(set, { status: 'live', closed_at: null, closed_reason: null, upstream_expired_at: null });
        await trx.updateTable('jobs').set(set).where('id', '=', row!.id).execute();
        counts.updated++;
        if (transition.event === 'withdrawn') counts.withdrawn++;
        if (transition.event) events.push({ job_id: row!.id, change: transition.event });
        break;
      }
      case 'close_expired': {
        const set: Updateable<JobsTable> = {
          ...content,
          last_verified_at: now,
          updated_at: now,
          status: 'closed',
          closed_at: now,
          closed_reason: 'expired_upstream',
          upstream_expired_at: closesAt ?? now,
        };
        if (row!.content_hash !== hash) set.content_changed_at = now;
        await trx.updateTable('jobs').set(set).where('id', '=', row!.id).execute();
        counts.closed++;
        if (transition.event) events.push({ job_id: row!.id, change: transition.event });
        break;
      }
      case 'stay_closed':
        if (transition.contentChanged) {
          await trx.updateTable('jobs').set({ ...content, last_verified_at: now, content_changed_at: now, updated_at: now }).where('id', '=', row!.id).execute();
          counts.updated++;
        } else {
          verifyIds.push(row!.id);
          counts.unchanged++;
        }
        break;
    }
  }

  for (let i = 0; i < inserts.length; i += INSERT_CHUNK) {
    await trx.insertInto('jobs').values(inserts.slice(i, i + INSERT_CHUNK)).execute();
  }
  if (verifyIds.length > 0) {
    await trx
      .updateTable('jobs')
      .set({ last_verified_at: now, missed_crawls: 0 })
      .where('id', '=', (eb) => eb.fn.any(eb.val(verifyIds)))
      .execute();
  }
  if (events.length > 0) {
    await trx.insertInto('change_events').values(events).execute();
    counts.events = events.length;
  }
  return counts;
}

/**
 * A 304 answer proves the whole board is exactly as last crawled: every row it listed is re-verified.
 * @returns the number of rows re-verified.
 */
export async function verifyUnchangedBoard(db: Kysely<DB>, targetId: string, now: Date): Promise<number> {
  const result = await db
    .updateTable('jobs')
    .set({ last_verified_at: now, missed_crawls: 0 })
    .where('target_id', '=', targetId)
    .where('missed_crawls', '=', 0)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}
