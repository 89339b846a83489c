/**
 * The ingestion pipeline (ARCHITECTURE "How data flows"): crawl lease → connector fetch and parse →
 * enrich → quality gate → one ledger transaction per board (with the not_seen absence rule) → probes
 * of the posting URLs of rows the board stopped listing. A crawl that fails at any step before the
 * ledger write changes nothing but the target's crawl bookkeeping; an empty board changes nothing.
 */
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { CrawlTarget } from '../domain/crawl-target.ts';
import { boardContext, enrichPosting, type ProviderProfile } from '../enrich/enrich.ts';
import { enrichmentDigest, enrichmentRecord, restoreEnrichment } from '../enrich/enrichment-record.ts';
import type { FxRates } from '../enrich/fx.ts';
import { applyBoardPosterType, boardPosting, boardSignals, type BoardPosterEvidence, type BoardSignals } from '../enrich/intermediary.ts';
import { contentHash, DEFAULT_ABSENCE_POLICY, type AbsencePolicy, type CrawlCounts, type KeptEnrichmentRecord, type LedgerPosting } from '../domain/lifecycle.ts';
import type { NormalizedJob, SourcePosting } from '../domain/posting.ts';
import { applyCrawl, applyUnchangedBoard, closeProvedDead, liveRowsBySourceIds, missingRowsToProbe, sourceIdsHeldBy, withholdCopies } from '../store/ledger.ts';
import { isDatabaseError } from '../store/database.ts';
import { keptEnrichments } from '../store/enrichment-records.ts';
import { acquireCrawlLease, crawlLeaseHolder, recordCrawlRun, releaseCrawlLease, renewCrawlLease, toCrawlTarget, type CrawlRunRecord } from '../store/crawl-targets.ts';
import { isOptedOut } from '../domain/employer.ts';
import { loadActiveOptouts } from '../store/optouts.ts';
import { listProviders } from '../store/providers.ts';
import type { CrawlTargetRow, DB } from '../store/schema.ts';
import { CrawlError, type Connector, type ConnectorId } from './connector.ts';
import { supersededProviders, supersedingProviders } from './connectors/registry.ts';
import { leaseOwnerIsDead, PROCESS_LEASE_OWNER } from './crawl-lease.ts';
import type { Fetcher } from './fetcher.ts';
import type { PostingProbe } from './posting-probe.ts';
import { judgePosting } from './quality-gate.ts';

export interface ProviderInfo extends ProviderProfile {
  redistributable: boolean;
  discoveryOnly: boolean;
}

export interface PipelineDeps {
  db: Kysely<DB>;
  connectors: Readonly<Record<ConnectorId, Connector>>;
  fetcher: Fetcher;
  fx: FxRates;
  log: Logger;
  /** The clock; the real one unless a caller must pin "now" (never a fake in tests of timing). */
  now?: () => Date;
  /** When absence from a good crawl closes a row as not_seen (default {@link DEFAULT_ABSENCE_POLICY}). */
  absence?: AbsencePolicy;
  /** Probe of posting URLs for rows a good crawl did not list; unset: no probing. */
  probe?: PostingProbe;
  /** Most posting URLs probed after one crawl (default {@link DEFAULT_PROBE_LIMIT}). */
  probeLimit?: number;
  /**
   * The per-host bound on a crawl's exchanges with its upstream host: runs `work` (the connector's
   * fetch of the board, then the probes of posting URLs) inside one of the host's slots, so a source
   * never has more of this service's requests in flight than the bound, while enriching and writing
   * what was fetched hold no slot. The worker passes `withHostSlot` on the target's host; unset, no
   * bound (one-off imports, tests).
   */
  upstreamSlot?: <T>(target: CrawlTargetRow, work: () => Promise<T>) => Promise<T>;
  /** Name of this process in crawl leases (default: host, pid, a random tag and the process space; see crawl-lease.ts). */
  leaseOwner?: string;
  /** Lifetime of a crawl lease without a heartbeat, seconds (default {@link DEFAULT_LEASE_SECONDS}). */
  leaseSeconds?: number;
}

/** Posting URLs probed after one crawl, at most: probes are polite, one at a time. */
export const DEFAULT_PROBE_LIMIT = 10;
/**
 * Crawl lease lifetime without a heartbeat, seconds. The holder renews it every third of that while it
 * crawls, so a crawl may take as long as it needs, and the lease of a holder that died on another host
 * (or whose death cannot be proved, see crawl-lease.ts) lapses within this time.
 */
export const DEFAULT_LEASE_SECONDS = 90;
/**
 * Longest a crawl may take, seconds: fetch time limit × retries, the ledger write and the probes,
 * with room to spare. The worker's queue gives up on a crawl job after this long.
 */
export const MAX_CRAWL_SECONDS = 900;

/** What the probes after a crawl found. */
export interface ProbeCounts {
  probed: number;
  /** Rows closed because their posting URL answered 404 or 410. */
  provedDead: number;
}

/** How one target's crawl ended. */
export type CrawlReport =
  /**
   * `enriched`: postings enriched afresh; the others' inputs were unchanged since the crawl that
   * enriched them, and their kept enrichment was restored (enrich/enrichment-record.ts).
   */
  | { targetId: string; outcome: 'fetched'; counts: CrawlCounts; skipped: number; enriched: number; probes: ProbeCounts; ms: number }
  | { targetId: string; outcome: 'not_modified'; reverified: number; notSeen: number; probes: ProbeCounts; ms: number }
  | { targetId: string; outcome: 'failed'; errorKind: string; error: string; ms: number }
  /**
   * Another process holds the target's crawl lease (`holder`, until `until`), or, for a queued crawl,
   * it is not due: nothing was done.
   */
  | { targetId: string; outcome: 'busy'; ms: number; holder?: string; until?: Date };

/** Load every provider's profile (class, source type, redistribution) keyed by id. */
export async function loadProviders(db: Kysely<DB>): Promise<Map<string, ProviderInfo>> {
  const rows = await listProviders(db);
  return new Map(
    rows.map((r) => [
      r.id,
      {
        id: r.id,
        sourceType: r.source_type as ProviderInfo['sourceType'],
        providerType: r.provider_class as ProviderInfo['providerType'],
        redistributable: r.redistributable,
        discoveryOnly: r.discovery_only,
      },
    ]),
  );
}

/**
 * Take the target's crawl lease, or take it over from a holder that is provably dead (crawl-lease.ts).
 * @returns the leased row, or who holds the lease when it is busy.
 * @throws the database's error when the lease cannot be read or written.
 */
async function takeLease(
  deps: PipelineDeps,
  targetId: string,
  owner: string,
  options: { onlyIfDue?: boolean },
): Promise<{ row: CrawlTargetRow } | { holder?: string; until?: Date }> {
  const ttlSeconds = deps.leaseSeconds ?? DEFAULT_LEASE_SECONDS;
  const leased = await acquireCrawlLease(deps.db, targetId, owner, { ttlSeconds, onlyIfDue: options.onlyIfDue });
  if (leased) return { row: leased };
  const holder = await crawlLeaseHolder(deps.db, targetId);
  if (!holder) return {};
  if (leaseOwnerIsDead(holder.owner)) {
    const taken = await acquireCrawlLease(deps.db, targetId, owner, { ttlSeconds, onlyIfDue: options.onlyIfDue, takeOverFrom: holder.owner });
    if (taken) {
      deps.log.warn({ target: targetId, deadHolder: holder.owner }, 'took over the crawl lease of a process that died while crawling');
      return { row: taken };
    }
  }
  return { holder: holder.owner, until: holder.expiresAt };
}

/**
 * Crawl one target end to end under its crawl lease, renewed every third of its lifetime while the
 * crawl runs. Never throws: a source's fault, and a database that fails or restarts meanwhile, come
 * back as a report with `outcome: 'failed'` (recorded on the target when the database allows). With
 * `onlyIfDue` (the worker), a target that is not due any more is left alone (`busy`).
 */
export async function crawlTarget(
  deps: PipelineDeps,
  providers: Map<string, ProviderInfo>,
  row: CrawlTargetRow,
  options: { onlyIfDue?: boolean } = {},
): Promise<CrawlReport> {
  const owner = deps.leaseOwner ?? PROCESS_LEASE_OWNER;
  const ttlSeconds = deps.leaseSeconds ?? DEFAULT_LEASE_SECONDS;
  const startedMs = Date.now();
  const databaseFailure = (what: string, error: unknown): CrawlReport => {
    const message = `${what}: ${(error as Error).message}`;
    deps.log.warn({ target: row.id, error: message }, 'crawl failed on a database error');
    return { targetId: row.id, outcome: 'failed', errorKind: 'database', error: message, ms: Date.now() - startedMs };
  };
  let lease;
  try {
    lease = await takeLease(deps, row.id, owner, options);
  } catch (error) {
    return databaseFailure('could not take the crawl lease', error);
  }
  if (!('row' in lease)) return { targetId: row.id, outcome: 'busy', ms: Date.now() - startedMs, ...lease };
  // Set once the crawl's record has given the lease back with it (its last write).
  let leaseReleased = false;
  const heartbeat = setInterval(() => {
    renewCrawlLease(deps.db, row.id, owner, ttlSeconds)
      .then((held) => {
        if (!held && !leaseReleased) deps.log.warn({ target: row.id }, 'the crawl lease lapsed and was taken by another process');
      })
      .catch((error: unknown) => deps.log.warn({ target: row.id, err: error }, 'could not renew the crawl lease'));
  }, (ttlSeconds * 1000) / 3);
  heartbeat.unref();
  try {
    return await crawlLeased(deps, providers, lease.row, {
      write: async (run) => {
        await recordCrawlRun(deps.db, { ...run, releaseLeaseOf: owner });
        leaseReleased = true;
      },
      leaseOwner: owner,
      written: () => {
        leaseReleased = true;
      },
    });
  } catch (error) {
    return databaseFailure('the crawl bookkeeping failed', error);
  } finally {
    clearInterval(heartbeat);
    // When the database is gone, the lease stays until it lapses or a rerun proves this process dead.
    if (!leaseReleased) {
      await releaseCrawlLease(deps.db, row.id, owner).catch((error: unknown) =>
        deps.log.warn({ target: row.id, err: error }, 'could not give the crawl lease back; it lapses by itself'),
      );
    }
  }
}

/**
 * How a crawl writes its outcome, the last write of every path, which also gives the crawl lease back:
 * `write` records it; a ledger statement that records the crawl itself (an unchanged board's, see
 * `applyUnchangedBoard`) releases `leaseOwner`'s lease the same way and then calls `written`.
 */
interface CrawlRecorder {
  write(run: CrawlRunRecord): Promise<void>;
  leaseOwner: string;
  written(): void;
}

/** The crawl itself, under a lease its caller holds; its outcome is recorded through `recorder`. */
async function crawlLeased(deps: PipelineDeps, providers: Map<string, ProviderInfo>, row: CrawlTargetRow, recorder: CrawlRecorder): Promise<CrawlReport> {
  const clock = deps.now ?? (() => new Date());
  const startedAt = clock();
  const target: CrawlTarget = toCrawlTarget(row);
  const log = deps.log.child({ target: target.id });
  const connector = (deps.connectors as Readonly<Record<string, Connector | undefined>>)[target.providerId];
  const provider = providers.get(target.providerId);
  const absence = deps.absence ?? DEFAULT_ABSENCE_POLICY;
  const elapsed = () => clock().getTime() - startedAt.getTime();

  const fail = async (errorKind: string, error: string): Promise<CrawlReport> => {
    log.warn({ errorKind, error }, 'crawl failed; the ledger is unchanged');
    // A database that is gone cannot take the record either; the report still says what happened.
    await recorder.write({ targetId: target.id, startedAt, finishedAt: clock(), outcome: 'failed', errorKind, error, goodCrawl: false }).catch((recordError: unknown) =>
      log.warn({ err: recordError }, 'could not record the failed crawl'),
    );
    return { targetId: target.id, outcome: 'failed', errorKind, error, ms: elapsed() };
  };

  if (!connector || !provider) return fail('config', `no connector or provider named "${target.providerId}"`);

  let outcome;
  try {
    outcome = await upstream(deps, row, () => connector.crawl(target, deps.fetcher));
  } catch (error) {
    if (error instanceof CrawlError) return fail(error.kind, error.message);
    return fail('internal', (error as Error).message);
  }

  if (outcome.kind === 'not_modified') {
    let unchanged;
    try {
      // Recorded by the same statement when nothing is left to close or probe (most unchanged boards).
      const run = { targetId: target.id, startedAt, finishedAt: clock(), releaseLeaseOf: recorder.leaseOwner };
      unchanged = await applyUnchangedBoard(deps.db, { targetId: target.id, now: startedAt, absence, record: run });
    } catch (error) {
      return fail('ledger', (error as Error).message);
    }
    // Recorded already: no live row is missing from the board, so there is nothing to probe either.
    const probes = unchanged.recorded ? { probed: 0, provedDead: 0 } : await probeMissing(deps, row, clock);
    if (unchanged.recorded) recorder.written();
    else {
      await recorder.write({
        targetId: target.id,
        startedAt,
        finishedAt: clock(),
        outcome: 'not_modified',
        goodCrawl: true,
        counts: { unchanged: unchanged.reverified, closed: unchanged.notSeen + probes.provedDead },
      });
    }
    log.info({ ...unchanged, ...probes }, 'board not modified since the last crawl');
    return { targetId: target.id, outcome: 'not_modified', reverified: unchanged.reverified, notSeen: unchanged.notSeen, probes, ms: elapsed() };
  }

  let postings: LedgerPosting[];
  let posterEvidence: BoardPosterEvidence | null;
  let enrichedAfresh: number;
  try {
    // Read per crawl, so an opt-out recorded while the worker runs applies from the next board on.
    const optouts = await loadActiveOptouts(deps.db);
    // Copies of vacancies a superseding provider has (the USAJOBS mirror's of the Search API's).
    const copies = await sourceIdsHeldBy(deps.db, supersedingProviders(provider.id), outcome.postings.map((p) => p.sourcePostingId));
    const { enriched, afresh } = await enrichBoard(deps, provider, outcome.postings);
    enrichedAfresh = afresh;
    // An intermediary's board is judged as a whole (issue 15 class 2): its rows get the board's poster type.
    posterEvidence = applyBoardPosterType(enriched) ?? null;
    if (posterEvidence) log.info({ posterEvidence }, 'board judged an intermediary\'s; its rows are not served as employer-direct');
    postings = enriched.map(({ job, enrichment, asEnriched }) => {
      const verdict = judgePosting(job, {
        providerId: provider.id,
        redistributable: provider.redistributable,
        discoveryOnly: provider.discoveryOnly,
        board: target.board,
        companyDomain: target.companyDomain,
        optedOut: isOptedOut(optouts, { name: job.companyName, domain: job.companyDomain }),
        supersededCopy: copies.has(job.sourcePostingId),
        now: startedAt,
      });
      // The kept or computed hash holds while the board judgement left the job as enrichment made it.
      const unjudged = job.posterType === asEnriched.posterType && job.posterRuleId === asEnriched.posterRuleId;
      return { job, verdict, enrichment, contentHash: unjudged ? asEnriched.contentHash : undefined };
    });
  } catch (error) {
    // The opt-outs, the superseding copies and the kept enrichment records are read from the ledger
    // here: a database that fails them is the ledger's fault, as a failed write is, not a bug.
    if (isDatabaseError(error)) return fail('ledger', `reading the ledger failed: ${(error as Error).message}`);
    return fail('internal', `enrichment failed: ${(error as Error).message}`);
  }

  // An empty board is an answer, but never evidence: it changes nothing, closes nothing, triggers no
  // probe and does not count as a good crawl.
  const good = postings.length > 0;
  let counts: CrawlCounts;
  try {
    counts = await applyCrawl(deps.db, { targetId: target.id, providerId: provider.id, postings, now: startedAt, absence });
  } catch (error) {
    return fail('ledger', (error as Error).message);
  }
  // This provider's vacancies supersede other providers' copies of them: those are withheld now, not
  // only at their own provider's next crawl, so one vacancy is never served twice.
  const superseded = supersededProviders(provider.id);
  if (superseded.length > 0 && good) {
    try {
      // Counted in the log, not in this board's counts: the rows are other providers'.
      const copies = await withholdCopies(deps.db, superseded, postings.map((p) => p.job.sourcePostingId), clock());
      if (copies.hidden > 0) log.info({ superseded, ...copies }, 'withheld the copies of this board\'s vacancies that other providers carry');
    } catch (error) {
      // The crawl itself is written; the copies are withheld by their own provider's next crawl.
      log.warn({ err: error }, 'could not withhold the copies of this board\'s vacancies');
    }
  }
  const probes = good ? await probeMissing(deps, row, clock) : { probed: 0, provedDead: 0 };
  // Postings the source proved dead itself in this crawl (a career page gone or without its
  // JobPosting): the same closure as a probe's 404.
  if (outcome.gone && outcome.gone.length > 0) {
    try {
      probes.provedDead += await closeProvedDead(deps.db, await liveRowsBySourceIds(deps.db, target.id, outcome.gone), clock());
    } catch (error) {
      // The crawl itself is written; the closures wait for the next crawl's proof.
      log.warn({ err: error }, 'could not close the postings the source proved dead');
    }
  }
  await recorder.write({
    targetId: target.id,
    startedAt,
    finishedAt: clock(),
    outcome: 'fetched',
    etag: outcome.etag,
    lastModified: outcome.lastModified,
    siteState: outcome.siteState,
    goodCrawl: good,
    counts: { ...counts, closed: counts.closed + probes.provedDead },
    posterEvidence,
  });
  log.info({ ...counts, ...probes, skipped: outcome.skipped, enriched: enrichedAfresh }, 'board crawled');
  return { targetId: target.id, outcome: 'fetched', counts, skipped: outcome.skipped, enriched: enrichedAfresh, probes, ms: elapsed() };
}

/** A posting of a crawl, enriched afresh or restored from its kept record (enrich/enrichment-record.ts). */
interface EnrichedPosting {
  posting: SourcePosting;
  job: NormalizedJob;
  /** What the board judgement reads of it. */
  signals: BoardSignals;
  /** What to keep with its row, when it was enriched afresh. */
  enrichment?: KeptEnrichmentRecord;
  /** The job as enrichment made it, before the board judgement: its content hash and poster type. */
  asEnriched: { contentHash: string; posterType: NormalizedJob['posterType']; posterRuleId: string | undefined };
}

/**
 * Enrich one board's postings, restoring the kept record of each posting whose enrichment inputs did
 * not change since it was enriched (one query) instead of enriching it again.
 * @returns the postings in order, and how many were enriched afresh.
 * @throws the database's error when the kept records cannot be read.
 */
async function enrichBoard(deps: PipelineDeps, provider: ProviderInfo, postings: readonly SourcePosting[]): Promise<{ enriched: EnrichedPosting[]; afresh: number }> {
  const board = boardContext(postings);
  const digests = postings.map((posting) => enrichmentDigest(posting, provider, deps.fx, board));
  const kept = await keptEnrichments(deps.db, provider.id, postings.map((posting, i) => ({ sourcePostingId: posting.sourcePostingId, digest: digests[i]! })));
  const cache = new Map<string, RegExp>();
  const enriched = postings.map((posting, i): EnrichedPosting => {
    const found = kept.get(posting.sourcePostingId);
    if (found) {
      const job = restoreEnrichment(found.record, { html: found.descriptionHtml, text: found.descriptionText });
      // Written by this function below, from the same inputs (the digest covers intermediary.ts).
      const signals = found.boardSignals as BoardSignals;
      return { posting, job, signals, asEnriched: { contentHash: found.contentHash, posterType: job.posterType, posterRuleId: job.posterRuleId } };
    }
    const job = enrichPosting(posting, provider, deps.fx, board);
    const signals = boardSignals(boardPosting(posting, job), cache);
    const enrichment: KeptEnrichmentRecord = { digest: digests[i]!, record: enrichmentRecord(job), contentHash: contentHash(job), boardSignals: JSON.stringify(signals) };
    return { posting, job, signals, enrichment, asEnriched: { contentHash: enrichment.contentHash, posterType: job.posterType, posterRuleId: job.posterRuleId } };
  });
  return { enriched, afresh: enriched.filter((e) => e.enrichment !== undefined).length };
}

/**
 * Probe the posting URLs of live rows the target's last good crawl did not list; close those whose
 * page answers 404 or 410. One probe at a time, at most `probeLimit` per crawl.
 */
async function probeMissing(deps: PipelineDeps, target: CrawlTargetRow, clock: () => Date): Promise<ProbeCounts> {
  const probe = deps.probe;
  if (!probe) return { probed: 0, provedDead: 0 };
  const rows = await missingRowsToProbe(deps.db, target.id, deps.probeLimit ?? DEFAULT_PROBE_LIMIT);
  if (rows.length === 0) return { probed: 0, provedDead: 0 };
  const dead = await upstream(deps, target, async () => {
    const gone: string[] = [];
    for (const row of rows) {
      if ((await probe.check(row.postingUrl)) === 'gone') gone.push(row.id);
    }
    return gone;
  });
  const provedDead = await closeProvedDead(deps.db, dead, clock());
  return { probed: rows.length, provedDead };
}

/** Run `work` under the pipeline's per-host bound ({@link PipelineDeps.upstreamSlot}), when it has one. */
function upstream<T>(deps: PipelineDeps, target: CrawlTargetRow, work: () => Promise<T>): Promise<T> {
  return deps.upstreamSlot ? deps.upstreamSlot(target, work) : work();
}

export interface CrawlAllOptions {
  /** Targets crawled at once (default 4). */
  concurrency?: number;
  /** Called after each target, in completion order. */
  onProgress?: (report: CrawlReport, done: number, total: number) => void;
}

/** Crawl several targets with bounded concurrency. */
export async function crawlTargets(deps: PipelineDeps, rows: CrawlTargetRow[], options: CrawlAllOptions = {}): Promise<CrawlReport[]> {
  const providers = await loadProviders(deps.db);
  const reports: CrawlReport[] = [];
  let next = 0;
  const worker = async () => {
    while (next < rows.length) {
      const row = rows[next++]!;
      const report = await crawlTarget(deps, providers, row);
      reports.push(report);
      options.onProgress?.(report, reports.length, rows.length);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(options.concurrency ?? 4, rows.length)) }, worker));
  return reports;
}
