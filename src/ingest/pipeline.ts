/**
 * The ingestion pipeline (ARCHITECTURE "How data flows"): connector fetch and parse → enrich → quality
 * gate → one ledger transaction per board. A crawl that fails at any step before the ledger write
 * changes nothing but the target's crawl bookkeeping.
 */
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { CrawlTarget } from '../domain/crawl-target.ts';
import { enrichPosting, type ProviderProfile } from '../enrich/enrich.ts';
import type { FxRates } from '../enrich/fx.ts';
import { applyCrawl, verifyUnchangedBoard, type CrawlCounts, type LedgerPosting } from '../store/ledger.ts';
import { recordCrawlRun, toCrawlTarget } from '../store/crawl-targets.ts';
import { isOptedOut, loadActiveOptouts } from '../store/optouts.ts';
import type { CrawlTargetRow, DB } from '../store/schema.ts';
import { CrawlError, type Connector, type ConnectorId } from './connector.ts';
import type { Fetcher } from './fetcher.ts';
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
}

/** How one target's crawl ended. */
export type CrawlReport =
  | { targetId: string; outcome: 'fetched'; counts: CrawlCounts; skipped: number; ms: number }
  | { targetId: string; outcome: 'not_modified'; reverified: number; ms: number }
  | { targetId: string; outcome: 'failed'; errorKind: string; error: string; ms: number };

/** Load every provider's profile (class, source type, redistribution) keyed by id. */
export async function loadProviders(db: Kysely<DB>): Promise<Map<string, ProviderInfo>> {
  const rows = await db.selectFrom('providers').selectAll().execute();
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
 * Crawl one target end to end. Never throws for a source's fault: failures come back as a report
 * with `outcome: 'failed'` after being recorded on the target.
 */
export async function crawlTarget(deps: PipelineDeps, providers: Map<string, ProviderInfo>, row: CrawlTargetRow): Promise<CrawlReport> {
  const clock = deps.now ?? (() => new Date());
  const startedAt = clock();
  const target: CrawlTarget = toCrawlTarget(row);
  const log = deps.log.child({ target: target.id });
  const connector = deps.connectors[target.providerId];
  const provider = providers.get(target.providerId);
  const elapsed = () => clock().getTime() - startedAt.getTime();

  const fail = async (errorKind: string, error: string): Promise<CrawlReport> => {
    log.warn({ errorKind, error }, 'crawl failed; the ledger is unchanged');
    await recordCrawlRun(deps.db, { targetId: target.id, startedAt, finishedAt: clock(), outcome: 'failed', errorKind, error, goodCrawl: false });
    return { targetId: target.id, outcome: 'failed', errorKind, error, ms: elapsed() };
  };

  if (!connector || !provider) return fail('config', `no connector or provider named "${target.providerId}"`);

  let outcome;
  try {
    outcome = await connector.crawl(target, deps.fetcher);
  } catch (error) {
    if (error instanceof CrawlError) return fail(error.kind, error.message);
    return fail('internal', (error as Error).message);
  }

  if (outcome.kind === 'not_modified') {
    const reverified = await verifyUnchangedBoard(deps.db, target.id, startedAt);
    await recordCrawlRun(deps.db, { targetId: target.id, startedAt, finishedAt: clock(), outcome: 'not_modified', goodCrawl: true });
    log.info({ reverified }, 'board not modified since the last crawl');
    return { targetId: target.id, outcome: 'not_modified', reverified, ms: elapsed() };
  }

  let postings: LedgerPosting[];
  try {
    // Read per crawl, so an opt-out recorded while the worker runs applies from the next board on.
    const optouts = await loadActiveOptouts(deps.db);
    postings = outcome.postings.map((posting) => {
      const job = enrichPosting(posting, provider, deps.fx);
      const verdict = judgePosting(job, {
        providerId: provider.id,
        redistributable: provider.redistributable,
        discoveryOnly: provider.discoveryOnly,
        board: target.board,
        companyDomain: target.companyDomain,
        optedOut: isOptedOut(optouts, { name: job.companyName, domain: job.companyDomain }),
        now: startedAt,
      });
      return { job, verdict };
    });
  } catch (error) {
    return fail('internal', `enrichment failed: ${(error as Error).message}`);
  }

  let counts: CrawlCounts;
  try {
    counts = await applyCrawl(deps.db, { targetId: target.id, providerId: provider.id, postings, now: startedAt });
  } catch (error) {
    return fail('ledger', (error as Error).message);
  }
  // An empty board is an answer, but never evidence: it closes nothing and does not count as a good crawl.
  await recordCrawlRun(deps.db, {
    targetId: target.id,
    startedAt,
    finishedAt: clock(),
    outcome: 'fetched',
    etag: outcome.etag,
    lastModified: outcome.lastModified,
    goodCrawl: postings.length > 0,
    counts,
  });
  log.info({ ...counts, skipped: outcome.skipped }, 'board crawled');
  return { targetId: target.id, outcome: 'fetched', counts, skipped: outcome.skipped, ms: elapsed() };
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
