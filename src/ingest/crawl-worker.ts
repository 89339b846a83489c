/**
 * The crawl worker (architecture guide: "Workers scale out through pg-boss on the same PostgreSQL
 * (each crawl target is a job; a target is crawled by one worker at a time)").
 *
 * - Scheduling: every `tickSeconds`, each worker queues the targets that are due (enabled, their
 *   `interval_seconds` passed since the last attempt, not leased) as jobs of one pg-boss queue, and
 *   sweeps rows whose source's close date has passed. Several workers may tick at once: the queue's
 *   `exclusive` policy with the target id as `singletonKey` allows one job per target that is queued
 *   or active, so a target is queued once however many workers tick.
 * - One target never crawled twice at once: besides that policy, every crawl runs under the target's
 *   crawl lease (`crawl_targets.lease_owner`, see `acquireCrawlLease`), which also covers a
 *   `jobledger ingest` started by hand. A queued job whose target was crawled meanwhile (not due any
 *   more) does nothing.
 * - Bounded concurrency: `concurrency` crawls at once in this process (pg-boss `localConcurrency`),
 *   and at most `perHost` requests at once against one upstream host across every worker: a crawl
 *   holds one of the host's slots (`withHostSlot`, a PostgreSQL advisory lock) while it talks to the
 *   host (the board's fetch, then the probes), not while it enriches and writes what it fetched, so
 *   one crawl's ledger write overlaps the next one's fetch. Each job's pg-boss group is the host of
 *   its board URL and `groupConcurrency` (twice `perHost`: as many crawls processing as fetching)
 *   keeps the excess queued rather than waiting on slots; pg-boss counts active jobs without a lock,
 *   so the slots, not the groups, are the bound.
 * - Conditional requests (`ETag`/`If-Modified-Since`) come from the connectors; failures are retried
 *   at the next interval, never inside the queue (a failed crawl closes nothing either way).
 */
import { PgBoss } from 'pg-boss';
import type { CrawlTargetRow } from '../store/schema.ts';
import { dueTargets, listTargets, toCrawlTarget, withHostSlot } from '../store/crawl-targets.ts';
import { sweepUpstreamClosures } from '../store/ledger.ts';
import { observeCrawl } from '../observability/metrics.ts';
import { crawlTarget, loadProviders, MAX_CRAWL_SECONDS, type CrawlReport, type PipelineDeps } from './pipeline.ts';
import { PGBOSS_SCHEMA } from '../store/operations.ts';

/** The pg-boss queue of crawl jobs. */
export const CRAWL_QUEUE = 'jobledger-crawl';

/** Payload of one crawl job. */
export interface CrawlJobData {
  targetId: string;
}

export interface CrawlWorkerOptions {
  /** The ledger's PostgreSQL; pg-boss keeps its queue there (schema {@link PGBOSS_SCHEMA}). */
  connectionString: string;
  /**
   * The pipeline every crawl runs through. Its `db` should allow long statements and hold at least
   * `2 × concurrency + 1` connections (each running crawl keeps one for its host slot).
   */
  deps: PipelineDeps;
  /** Crawls at once in this process. */
  concurrency: number;
  /** Requests at once against one upstream host, across all workers (each crawl's fetch and probes hold one). */
  perHost: number;
  /** Seconds between scheduling passes; 0 disables the timer (call {@link CrawlWorker.tick} yourself). */
  tickSeconds: number;
  /** How often pg-boss looks for queued jobs, seconds (at least 0.5; default 2). */
  pollingSeconds?: number;
  /** Called after each crawl. */
  onReport?: (report: CrawlReport) => void;
}

/** What one scheduling pass did. */
export interface TickReport {
  /** Targets found due. */
  due: number;
  /** Crawl jobs actually queued (a target already queued is not queued again). */
  queued: number;
  /** Rows closed because their source's close date passed. */
  swept: number;
}

export interface CrawlWorker {
  /** Run one scheduling pass now. */
  tick(): Promise<TickReport>;
  /** Stop scheduling, let running crawls finish (up to 30 s), and close the queue's connections. */
  stop(): Promise<void>;
}

/** The upstream host a target's crawl talks to: its pg-boss group, for the per-host bound. */
export function crawlHost(deps: PipelineDeps, target: CrawlTargetRow): string {
  const connector = deps.connectors[target.provider_id as keyof PipelineDeps['connectors']];
  if (!connector) return 'unknown';
  try {
    return new URL(connector.boardUrl(toCrawlTarget(target))).host;
  } catch {
    return 'unknown';
  }
}

/**
 * Start a worker: pg-boss on the ledger's database, the crawl queue, a worker on it and the
 * scheduling timer (first pass at once).
 * @throws when pg-boss cannot start (database unreachable).
 */
export async function startCrawlWorker(options: CrawlWorkerOptions): Promise<CrawlWorker> {
  const { deps } = options;
  const log = deps.log.child({ component: 'worker' });
  const boss = new PgBoss({ connectionString: options.connectionString, schema: PGBOSS_SCHEMA, application_name: 'jobledger-worker', max: 3, schedule: false });
  boss.on('error', (error: unknown) => log.error({ err: error }, 'job queue error'));
  await boss.start();
  await boss.createQueue(CRAWL_QUEUE, { policy: 'exclusive', retryLimit: 0, expireInSeconds: MAX_CRAWL_SECONDS });

  const slotted: PipelineDeps = { ...deps, upstreamSlot: (row, work) => withHostSlot(deps.db, crawlHost(deps, row), options.perHost, work) };
  let providers = await loadProviders(deps.db);
  await boss.work<CrawlJobData>(
    CRAWL_QUEUE,
    { localConcurrency: options.concurrency, groupConcurrency: 2 * options.perHost, pollingIntervalSeconds: options.pollingSeconds ?? 2 },
    async (jobs) => {
      for (const job of jobs) {
        const [row] = await listTargets(deps.db, { ids: [job.data.targetId] });
        if (!row) continue;
        const report = await crawlTarget(slotted, providers, row, { onlyIfDue: true });
        observeCrawl(row.provider_id, report);
        options.onReport?.(report);
      }
    },
  );

  let running: Promise<TickReport> | undefined;
  const tick = (): Promise<TickReport> => {
    running ??= (async () => {
      try {
        providers = await loadProviders(deps.db);
        const due = await dueTargets(deps.db);
        let queued = 0;
        for (const target of due) {
          const id = await boss.send(CRAWL_QUEUE, { targetId: target.id } satisfies CrawlJobData, { singletonKey: target.id, group: { id: crawlHost(deps, target) } });
          if (id) queued++;
        }
        const swept = await sweepUpstreamClosures(deps.db, new Date());
        if (queued > 0 || swept > 0) log.info({ due: due.length, queued, swept }, 'scheduling pass');
        return { due: due.length, queued, swept };
      } finally {
        running = undefined;
      }
    })();
    return running;
  };

  let timer: NodeJS.Timeout | undefined;
  if (options.tickSeconds > 0) {
    const pass = () => {
      tick().catch((error: unknown) => log.error({ err: error }, 'scheduling pass failed'));
    };
    pass();
    timer = setInterval(pass, options.tickSeconds * 1000);
  }

  return {
    tick,
    async stop() {
      if (timer) clearInterval(timer);
      await running?.catch(() => undefined);
      await boss.stop({ graceful: true, timeout: 30_000, close: true });
    },
  };
}
