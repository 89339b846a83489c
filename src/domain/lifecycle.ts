/**
 * The job status state machine (spec: States and transitions › Job status), as pure decisions over
 * what the ledger holds and what a successful crawl just saw: per posting ({@link decideTransition}),
 * per absent row ({@link decideAbsence}), and for a whole board ({@link planCrawl},
 * {@link planUnchangedBoard}). The ledger (`store/ledger.ts`) executes a plan and records its change
 * events in one transaction; it decides nothing itself.
 *
 * Decisions where the spec says "not shown" (documented in docs/lifecycle.md):
 * - A row that enters the ledger already closed (its source's close date has passed) or withheld emits
 *   no event: a sync client never saw it, so there is nothing to add or remove.
 * - A closed row that reappears at its source is reopened (live again, same id, `updated` event when
 *   served) unless the source itself still says it has expired (a close date in the past).
 * - A withheld row whose verdict clears returns as `updated` (spec: "can return later as updated").
 */
import { createHash } from 'node:crypto';
import type { NormalizedJob } from './posting.ts';
import { OPTOUT_RULE_ID, SUPERSEDED_RULE_ID, type QualityVerdict, type QualityVerdictKind } from './quality.ts';
import { jobSlug } from './slug.ts';
import type { ChangeKind, ClosedReason, WithheldKind } from './vocabulary.ts';

/** What the ledger holds for a posting before this crawl. */
export interface LedgerState {
  status: 'live' | 'closed';
  closedReason: ClosedReason | null;
  withheldKind: WithheldKind | null;
  /** Whether the row is in the default served set (live, not withheld, employer-posted). */
  served: boolean;
  contentHash: string;
}

/** What a successful crawl says about the posting now. */
export interface Sighting {
  contentHash: string;
  verdict: QualityVerdict;
  /** Posted by a staffing agency or job board (excluded from the default served set). */
  posterTyped: boolean;
  /** The source's own close date, if any. */
  upstreamClosesAt?: Date;
}

export type Transition =
  /** First sighting. `closedUpstream`: the source's close date has already passed. */
  | { kind: 'insert'; closedUpstream: boolean; withheldKind: WithheldKind | null; event: ChangeKind | null }
  /** Nothing served changed: only `last_verified_at` moves. */
  | { kind: 'verify' }
  /** Content or withholding changed on a row that stays (or becomes) live. */
  | { kind: 'update'; withheldKind: WithheldKind | null; reopen: boolean; event: ChangeKind | null }
  /** The source proves the vacancy dead: close with `expired_upstream`. */
  | { kind: 'close_expired'; event: ChangeKind | null }
  /** Closed and still expired at the source: content may be refreshed silently, status stays closed. */
  | { kind: 'stay_closed'; contentChanged: boolean };

function withheldKindOf(verdict: QualityVerdict): WithheldKind | null {
  return verdict.verdict === 'live' ? null : verdict.verdict;
}

/**
 * Decide the transition for one posting seen on a successful crawl at `now`.
 * Pure: no I/O, no clock other than `now`.
 */
export function decideTransition(existing: LedgerState | undefined, sighting: Sighting, now: Date): Transition {
  const expired = sighting.upstreamClosesAt !== undefined && sighting.upstreamClosesAt.getTime() <= now.getTime();
  const withheldKind = withheldKindOf(sighting.verdict);
  const servedNext = !expired && withheldKind === null && !sighting.posterTyped;

  if (!existing) {
    return { kind: 'insert', closedUpstream: expired, withheldKind, event: servedNext ? 'created' : null };
  }

  const contentChanged = existing.contentHash !== sighting.contentHash;

  if (existing.status === 'closed') {
    if (expired) return { kind: 'stay_closed', contentChanged };
    return { kind: 'update', withheldKind, reopen: true, event: servedNext ? 'updated' : null };
  }

  if (expired) return { kind: 'close_expired', event: existing.served ? 'delisted' : null };

  const withholdingChanged = existing.withheldKind !== withheldKind;
  let event: ChangeKind | null = null;
  if (existing.served && !servedNext) event = 'withdrawn';
  else if (servedNext && (!existing.served || contentChanged)) event = 'updated';

  if (!contentChanged && !withholdingChanged && existing.served === servedNext) return { kind: 'verify' };
  return { kind: 'update', withheldKind, reopen: false, event };
}

/**
 * When absence from a board becomes a closure (spec: "vacancy stops appearing at its source" →
 * `not_seen`; the spec leaves the thresholds "not shown"). Both conditions must hold.
 */
export interface AbsencePolicy {
  /** Consecutive good crawls of the row's board that did not list it (config `JOBLEDGER_NOT_SEEN_CRAWLS`). */
  crawls: number;
  /** Seconds since the row was last seen at its source (config `JOBLEDGER_NOT_SEEN_MIN_HOURS` × 3600). */
  minSeconds: number;
}

/** Defaults: three good crawls in a row without the posting, and a day since it was last seen. */
export const DEFAULT_ABSENCE_POLICY: AbsencePolicy = { crawls: 3, minSeconds: 24 * 3600 };

/**
 * Decide what one more good crawl without the posting means. `missedCrawls` counts this crawl
 * already; `lastSeenAt` is the row's last sighting (`last_verified_at`). Pure.
 * Only good crawls count: a failed crawl or an empty board never reaches this decision.
 */
export function decideAbsence(missedCrawls: number, lastSeenAt: Date, now: Date, policy: AbsencePolicy): 'keep' | 'close_not_seen' {
  const goneFor = (now.getTime() - lastSeenAt.getTime()) / 1000;
  return missedCrawls >= policy.crawls && goneFor >= policy.minSeconds ? 'close_not_seen' : 'keep';
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

/** One posting of a crawl, enriched and judged. */
export interface LedgerPosting {
  job: NormalizedJob;
  verdict: QualityVerdict;
  /**
   * Set when this crawl enriched the posting afresh: what to keep with the row so the next crawl can
   * restore it instead (src/enrich/enrichment-record.ts): the digest of the enrichment's inputs, the
   * record (JSON text), its content hash and the posting's board signals (JSON text). Unset when the
   * job was restored from the kept record, or comes from no crawl.
   */
  enrichment?: KeptEnrichmentRecord;
  /** `contentHash(job)` when the caller knows it already (a kept one); computed when unset. */
  contentHash?: string;
}

/** What the ledger keeps beside a crawled row for the next crawl (`job_enrichments`, migration 031). */
export interface KeptEnrichmentRecord {
  /** sha-256, hex, of the enrichment's inputs. */
  digest: string;
  /** The NormalizedJob as enrichment made it, without its descriptions: JSON text. */
  record: string;
  /** `contentHash` of that NormalizedJob with its descriptions. */
  contentHash: string;
  /** What the board judgement reads of the posting: JSON text. */
  boardSignals: string;
}

/** A row of the crawled provider as the ledger holds it, locked for the crawl. */
export interface BoardRow extends LedgerState {
  id: string;
  sourcePostingId: string;
  /** Consecutive good crawls of its board that did not list it. */
  missedCrawls: number;
  /** Its last sighting at the source. */
  lastVerifiedAt: Date;
  /** ISO-3166 alpha-2 before this crawl (a country-locked feed needs the old country of a change). */
  country: string | null;
  /** Its `repost_count` before this crawl (see {@link decideRepostCount}). */
  repostCount: number;
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

/** Counts of a crawl that wrote nothing. */
export const NO_COUNTS: Readonly<CrawlCounts> = { postings: 0, created: 0, updated: 0, unchanged: 0, closed: 0, notSeen: 0, missed: 0, withdrawn: 0, events: 0 };

/** A change event to record. `previousCountry`: the row's country before the write, for a row that existed. */
export interface PlannedEvent {
  jobId: string;
  change: ChangeKind;
  previousCountry?: string | null;
}

/**
 * The events of rows closing now: `delisted` for each one that was served (spec: Events, "delisted";
 * a row a client was never served closes silently).
 */
export function delistings(rows: readonly { id: string; served: boolean }[]): PlannedEvent[] {
  return rows.filter((r) => r.served).map((r) => ({ jobId: r.id, change: 'delisted' as const }));
}

/** A new row: its id and slug, the posting it holds, and whether it enters closed (close date passed). */
export interface PlannedInsert {
  id: string;
  slug: string;
  posting: LedgerPosting;
  hash: string;
  closedUpstream: boolean;
  /** The source's close date when the row enters closed; else null. */
  upstreamExpiredAt: Date | null;
  /** Its `repost_count` ({@link decideRepostCount} over its predecessors). */
  repostCount: number;
}

/**
 * A re-sighting that rewrites an existing row's content, and the status it ends in. `live`: stays or
 * becomes live (a reopened row loses its closure fields). `closed`: stays closed (content refreshed,
 * closure fields kept) or closes now with `closedReason` and `upstreamExpiredAt`.
 */
export interface PlannedRewrite {
  id: string;
  posting: LedgerPosting;
  hash: string;
  status: 'live' | 'closed';
  closedReason?: 'expired_upstream';
  upstreamExpiredAt?: Date;
  /** Its `repost_count` after this crawl: one more when a closed row reopens ({@link reopenedRepostCount}). */
  repostCount: number;
}

/**
 * Everything one good crawl of a board does, in the order the ledger writes it: writes that do not
 * touch the feed clock first (live inserts, rewrites, re-verifications, missed crawls), then the
 * closures and the events (closed inserts, closes, not_seen closures, events), which take the feed
 * clock until commit (docs/architecture.md "The change feed").
 */
export interface CrawlPlan {
  liveInserts: PlannedInsert[];
  /** Rewrites that do not close the row. */
  rewrites: PlannedRewrite[];
  /** Ids whose row only gets `last_verified_at` (and `missed_crawls` reset). */
  verified: string[];
  /** Ids of live rows the crawl did not list that stay open, one more missed crawl each. */
  missed: string[];
  closedInserts: PlannedInsert[];
  /** Rewrites that close the row now (`expired_upstream`). */
  closes: PlannedRewrite[];
  /** Ids of live rows the crawl did not list that close as `not_seen`. */
  notSeen: string[];
  /** One per job at most: the feed's key is the stamp and the job id. */
  events: PlannedEvent[];
  counts: CrawlCounts;
}

/**
 * Plan one successful crawl of a board at `now`. Pure: no I/O, no clock other than `now`; `newId`
 * names new rows (the ledger passes `randomUUID`).
 * @param postings the crawl's postings, unique by `sourcePostingId`.
 * @param rows the provider's rows with those posting ids, and (with `absence`) the board's live rows.
 * @param absence set when `postings` is the board's complete listing: live rows it does not list miss
 *        one more good crawl and close as `not_seen` under this policy. Omit for a partial update.
 * @param targetId the crawled target (null for rows no crawl lists), to tell which predecessors of a new
 *        posting this complete crawl shows gone from their source.
 * @param predecessors per `sourcePostingId` of a posting the ledger does not hold yet: the other rows of
 *        the same employer with its {@link repostKey} (any provider, any status), for its `repost_count`.
 */
export function planCrawl(input: {
  postings: readonly LedgerPosting[];
  rows: readonly BoardRow[];
  now: Date;
  absence?: AbsencePolicy;
  newId: () => string;
  targetId?: string | null;
  predecessors?: ReadonlyMap<string, readonly VacancyPredecessor[]>;
}): CrawlPlan {
  const { postings, rows, now, absence } = input;
  const plan: CrawlPlan = {
    liveInserts: [],
    rewrites: [],
    verified: [],
    missed: [],
    closedInserts: [],
    closes: [],
    notSeen: [],
    events: [],
    counts: { ...NO_COUNTS, postings: postings.length },
  };
  const { counts, events } = plan;
  const listed = new Set(postings.map((p) => p.job.sourcePostingId));
  const existing = new Map(rows.filter((r) => listed.has(r.sourcePostingId)).map((r) => [r.sourcePostingId, r]));
  const repostScope: RepostScope = {
    listedIds: new Set([...existing.values()].map((r) => r.id)),
    completeCrawlOf: absence && input.targetId ? input.targetId : null,
  };

  for (const posting of postings) {
    const { job, verdict } = posting;
    const hash = posting.contentHash ?? contentHash(job);
    const row = existing.get(job.sourcePostingId);
    const closesAt = job.upstreamClosesAt ? new Date(job.upstreamClosesAt) : undefined;
    const transition = decideTransition(row, { contentHash: hash, verdict, posterTyped: job.posterType !== undefined, upstreamClosesAt: closesAt }, now);

    if (transition.kind === 'insert') {
      const id = input.newId();
      const insert: PlannedInsert = {
        id,
        slug: jobSlug(job.title, id),
        posting,
        hash,
        closedUpstream: transition.closedUpstream,
        upstreamExpiredAt: transition.closedUpstream ? (closesAt ?? null) : null,
        repostCount: decideRepostCount(input.predecessors?.get(job.sourcePostingId) ?? [], repostScope),
      };
      (transition.closedUpstream ? plan.closedInserts : plan.liveInserts).push(insert);
      counts.created++;
      if (transition.event) events.push({ jobId: id, change: transition.event });
      continue;
    }
    const known = row!;
    switch (transition.kind) {
      case 'verify':
        plan.verified.push(known.id);
        counts.unchanged++;
        break;
      case 'update':
        plan.rewrites.push({ id: known.id, posting, hash, status: 'live', repostCount: transition.reopen ? reopenedRepostCount(known.repostCount) : known.repostCount });
        counts.updated++;
        if (transition.event === 'withdrawn') counts.withdrawn++;
        if (transition.event) events.push({ jobId: known.id, change: transition.event, previousCountry: known.country });
        break;
      case 'close_expired':
        plan.closes.push({ id: known.id, posting, hash, status: 'closed', closedReason: 'expired_upstream', upstreamExpiredAt: closesAt ?? now, repostCount: known.repostCount });
        counts.closed++;
        if (transition.event) events.push({ jobId: known.id, change: transition.event, previousCountry: known.country });
        break;
      case 'stay_closed':
        if (transition.contentChanged) {
          plan.rewrites.push({ id: known.id, posting, hash, status: 'closed', repostCount: known.repostCount });
          counts.updated++;
        } else {
          plan.verified.push(known.id);
          counts.unchanged++;
        }
        break;
    }
  }

  if (absence) {
    const closing: BoardRow[] = [];
    for (const row of rows) {
      if (listed.has(row.sourcePostingId)) continue;
      counts.missed++;
      if (decideAbsence(row.missedCrawls + 1, row.lastVerifiedAt, now, absence) === 'close_not_seen') closing.push(row);
      else plan.missed.push(row.id);
    }
    plan.notSeen = closing.map((r) => r.id);
    counts.closed += closing.length;
    counts.notSeen = closing.length;
    events.push(...delistings(closing));
  }
  counts.events = events.length;
  return plan;
}

/*
 * Reality signals (issue 15, "Also": "`repost_count` (the same employer, title and location seen again
 * after closing) and how far `posted_at` lags `first_seen_at`"). Documented in docs/lifecycle.md
 * "Reality signals" and measured in docs/enrichment-quality.md.
 */

/**
 * The vacancy part of a repost's identity: title and location text, lower-cased, trimmed and with runs of
 * white space made one space, joined by a unit separator (U+001F). The employer part is the company id,
 * which the ledger pairs with it. Migration 026 backfills the same normal form in SQL
 * (`lower(btrim(regexp_replace(x, '\s+', ' ', 'g')))`), so keep the two in step.
 * @param location the posting's original location text; none is the empty string.
 */
export function repostKey(title: string, location: string | null | undefined): string {
  const norm = (text: string) => text.replace(/\s+/g, ' ').trim().toLowerCase();
  return `${norm(title)}\u001f${norm(location ?? '')}`;
}

/** Another row of the same employer with the same {@link repostKey}, as the ledger holds it. */
export interface VacancyPredecessor {
  id: string;
  status: 'live' | 'closed';
  /** Its crawl target; null for rows no crawl lists. */
  targetId: string | null;
  repostCount: number;
}

/** What a crawl tells about predecessors: the rows it lists, and the target whose complete listing it is. */
export interface RepostScope {
  /** Ids of the existing rows the crawl lists (they are still at their source). */
  listedIds: ReadonlySet<string>;
  /** The target whose complete listing the crawl is (a row of it that is not listed has left its source); null for a partial crawl. */
  completeCrawlOf: string | null;
}

/**
 * `repost_count` of a posting the ledger sees for the first time: 0 when no earlier row of the same
 * employer, title and location has closed, else one more than the highest count among those that have,
 * so a vacancy posted, closed and posted again twice counts 2 on its third row. "Closed" means left its
 * source: a closed row, or a live row of the same board that this complete crawl no longer lists (an
 * employer that takes a posting down and puts the same one up under a new id is the commonest repost, and
 * the absence rule closes the old row only days later). Live rows still listed (several openings of one
 * title at once) are not predecessors. Pure.
 */
export function decideRepostCount(predecessors: readonly VacancyPredecessor[], scope: RepostScope): number {
  let highest = -1;
  for (const p of predecessors) {
    if (scope.listedIds.has(p.id)) continue;
    const gone = p.status === 'closed' || (scope.completeCrawlOf !== null && p.targetId === scope.completeCrawlOf);
    if (gone) highest = Math.max(highest, p.repostCount);
  }
  return highest + 1;
}

/** `repost_count` of a closed row seen again at its source (reopened, same id): one more. Pure. */
export function reopenedRepostCount(current: number): number {
  return current + 1;
}

/**
 * How far `posted_at` lags `first_seen_at`, in whole hours (rounded): `first_seen_at − posted_at`. Large
 * values mean the ledger found the vacancy long after the source says it was posted (a new board, an old
 * advert); a negative value means the source's date is later than the ledger's first sighting (the source
 * re-dated a posting it already listed). Undefined without `posted_at`: never estimated. Pure.
 */
export function firstSeenLagHours(postedAt: Date | null | undefined, firstSeenAt: Date | null | undefined): number | undefined {
  if (!postedAt || !firstSeenAt) return undefined;
  const hours = Math.round((firstSeenAt.getTime() - postedAt.getTime()) / 3_600_000);
  return hours === 0 ? 0 : hours;
}

/** A row of a board that answered "not modified", as the ledger holds it. */
export interface UnchangedBoardRow {
  id: string;
  status: 'live' | 'closed';
  served: boolean;
  missedCrawls: number;
  lastVerifiedAt: Date;
}

/** What a "not modified" answer does to a board's rows (see {@link planUnchangedBoard}). */
export interface UnchangedBoardPlan {
  /** Rows the board's last full crawl listed: re-verified. */
  reverified: string[];
  /** Live rows it did not list that stay open, one more missed crawl each. */
  missed: string[];
  /** Live rows it did not list that close as `not_seen`. */
  notSeen: string[];
  /** `delisted` for each served row closing. */
  events: PlannedEvent[];
}

/**
 * Plan a 304 answer at `now`: it proves the whole board is exactly as last crawled, so every row the
 * last full crawl listed (`missedCrawls` 0) is re-verified, and every live row it did not list misses
 * one more good crawl (closing as `not_seen` under `absence`). Pure.
 * @param rows the target's rows with `missedCrawls` 0, and its live rows.
 */
export function planUnchangedBoard(rows: readonly UnchangedBoardRow[], now: Date, absence: AbsencePolicy): UnchangedBoardPlan {
  const plan: UnchangedBoardPlan = { reverified: [], missed: [], notSeen: [], events: [] };
  const closing: UnchangedBoardRow[] = [];
  for (const row of rows) {
    if (row.missedCrawls === 0) plan.reverified.push(row.id);
    else if (row.status !== 'live') continue;
    else if (decideAbsence(row.missedCrawls + 1, row.lastVerifiedAt, now, absence) === 'close_not_seen') closing.push(row);
    else plan.missed.push(row.id);
  }
  plan.notSeen = closing.map((r) => r.id);
  plan.events = delistings(closing);
  return plan;
}

/** A row a withholding outside a crawl may cover (an employer's opt-out, a copy of another provider's vacancy), as the ledger holds it. */
export interface WithholdingCandidate {
  id: string;
  served: boolean;
  verdict: QualityVerdictKind;
  ruleId: string | null;
}

/** What a withholding outside a crawl does to the rows it covers ({@link planOptoutWithholding}, {@link planCopyWithholding}). */
export interface WithholdingPlan {
  /** Ids of the rows to withhold with {@link verdict}. */
  withhold: string[];
  verdict: QualityVerdict;
  /** `withdrawn` for each of them that was served. */
  events: PlannedEvent[];
}

/**
 * Withhold at once the rows that became copies of a vacancy another provider now has (rule
 * `source.superseded`, withheld kind `quality_removed`), as the quality gate will on their provider's
 * next crawl. Only rows the gate would serve or hold as reversible doubt (verdict `live` or
 * `quality_gated`) change; rows already removed or hidden by an opt-out keep their stronger or earlier
 * verdict. Pure.
 */
export function planCopyWithholding(rows: readonly WithholdingCandidate[]): WithholdingPlan {
  const affected = rows.filter((r) => r.verdict === 'live' || r.verdict === 'quality_gated');
  return {
    withhold: affected.map((r) => r.id),
    verdict: { verdict: 'quality_removed', ruleId: SUPERSEDED_RULE_ID },
    events: affected.filter((r) => r.served).map((r) => ({ jobId: r.id, change: 'withdrawn' as const })),
  };
}

/**
 * Withhold an opted-out employer's rows at once (spec: withheld kind `optout_hidden`, "a verified
 * employer opt-out"), as the quality gate will on every later crawl. Rows already hidden by an opt-out
 * are left alone, and so are rows removed because their source is never redistributed: that is the
 * stronger verdict (the gate checks it first too). Pure.
 */
export function planOptoutWithholding(rows: readonly WithholdingCandidate[]): WithholdingPlan {
  const affected = rows.filter((r) => r.verdict !== 'optout_hidden' && r.ruleId !== 'source.not_redistributable');
  return {
    withhold: affected.map((r) => r.id),
    verdict: { verdict: 'optout_hidden', ruleId: OPTOUT_RULE_ID },
    events: affected.filter((r) => r.served).map((r) => ({ jobId: r.id, change: 'withdrawn' as const })),
  };
}
