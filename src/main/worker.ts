/**
 * `jobledger worker` (and the worker inside `jobledger serve`): the crawl worker wired to the ledger,
 * the guarded fetcher, the connectors, the posting probe and the lifecycle settings.
 */
import type { Logger } from 'pino';
import type { Config, FetchConfig, SourceBaseUrls } from '../config/config.ts';
import { loadFxRates } from '../enrich/fx.ts';
import { currentFxRates, followFxRates, type FxFollower } from '../ingest/fx-refresh.ts';
import { seedDemoTargets } from '../ingest/bundled-feeds.ts';
import { createConnectors } from '../ingest/connectors/registry.ts';
import { startCrawlWorker } from '../ingest/crawl-worker.ts';
import { createFetcher, type Fetcher } from '../ingest/fetcher.ts';
import type { PipelineDeps } from '../ingest/pipeline.ts';
import { createPostingProbe } from '../ingest/posting-probe.ts';
import { connect, type Database } from '../store/database.ts';
import { defaultReportSettings, type ReportSettings } from '../reports/snapshots.ts';
import { clusterChores, startChores, type RunningChores } from '../chores/chores.ts';
import { startDemoSources } from './demo.ts';
import { startMetricsServer, watchLedger, type MetricsServer } from '../observability/metrics.ts';
import { onShutdownSignal, openRuntime } from './runtime.ts';

/** Where the worker's crawls go: the real APIs (config `sources`) or the demo's replay server. */
export interface WorkerSources {
  fetch: FetchConfig;
  baseUrls: SourceBaseUrls;
  /** Maps a posting URL to the URL probed (the demo's replay pages); unset: the posting URL itself. */
  pageUrl?: (postingUrl: string) => string;
  /** The ECB rate fetch (URL and seconds between fetches); unset (the demo, tests): the bundled rates only. */
  fx?: { url: string; refreshSeconds: number };
}

/** The worker's sources for real crawls: config `sources`, and the ECB fetch when `JOBLEDGER_FX_FETCH` is on. */
export function configuredSources(config: Config): WorkerSources {
  return {
    fetch: config.fetch,
    baseUrls: config.sources,
    fx: config.fx.fetch ? { url: config.fx.url, refreshSeconds: config.fx.refreshSeconds } : undefined,
  };
}

/**
 * Seconds between a worker's reads of the stored exchange rates (at most the fetch interval): a day
 * the cluster's fx-refresh chore stored is in every worker's salaries within five minutes.
 */
const FX_FOLLOW_SECONDS = 300;

/**
 * The report settings of a process whose sources are `sources`: the configured refresh, and the
 * freshness report's rate age check only when rates are fetched (the bundled ones are old by design).
 */
export function reportSettings(config: Config, sources: WorkerSources): ReportSettings {
  return defaultReportSettings(config.reportRefreshSeconds, sources.fx ? config.fx.maxAgeDays : undefined);
}

/**
 * The cluster's ECB fetch (chore `fx-refresh`) when `sources` fetch rates (`JOBLEDGER_FX_FETCH` on, never
 * the demo), through a guarded fetcher of its own; undefined otherwise. Both `serve` and `worker` offer
 * it, so the rates stay fresh whichever processes a deployment runs.
 */
function fxChore(config: Config, sources: WorkerSources, log: Logger): { fetcher: Fetcher; url: string; everySeconds: number; log: Logger } | undefined {
  if (!sources.fx) return undefined;
  const fxLog = log.child({ component: 'fx' });
  return { fetcher: createFetcher(config.fetch, fxLog), url: sources.fx.url, everySeconds: sources.fx.refreshSeconds, log: fxLog };
}

/**
 * Schedule the cluster's chores from this process and work their queues (src/chores/chores.ts): the
 * report snapshots, retention and the ECB fetch (when `sources` fetch rates) everywhere, plus what only
 * some processes can do (`websites` in a standalone worker with real sources, `submissions` in serve,
 * which has the mailer).
 * @throws when pg-boss cannot start (database unreachable).
 */
export async function startClusterChores(
  config: Config,
  log: Logger,
  database: Database,
  sources: WorkerSources,
  extra: Pick<Parameters<typeof clusterChores>[0], 'websites' | 'submissions'>,
): Promise<RunningChores> {
  return startChores({
    connectionString: database.connectionString,
    db: database.db,
    log,
    applicationName: 'jobledger-chores',
    chores: clusterChores({
      db: database.db,
      reports: reportSettings(config, sources),
      retention: { changeEventDays: config.changeEventRetentionDays, crawlRunDays: config.crawlRunRetentionDays },
      fx: fxChore(config, sources, log),
      ...extra,
    }),
  });
}

export interface RunningWorker {
  stop(): Promise<void>;
}

/**
 * Start the crawl worker over `database`.
 * @throws when the job queue cannot start.
 */
export async function startWorker(config: Config, log: Logger, database: Database, sources: WorkerSources): Promise<RunningWorker> {
  const ingest = connect(database.connectionString, {
    statementTimeoutMs: config.ingestStatementTimeoutMs,
    maxConnections: 2 * config.worker.concurrency + 2,
    applicationName: 'jobledger-worker',
    log,
  });
  const fetcher = createFetcher(sources.fetch, log.child({ component: 'fetcher' }));
  const deps: PipelineDeps = {
    db: ingest.db,
    connectors: createConnectors(sources.baseUrls, config.careerSite, config.agencyKeys),
    fetcher,
    fx: loadFxRates(),
    log: log.child({ component: 'ingest' }),
    absence: config.absence,
    probe: config.worker.probeLimit > 0 ? createPostingProbe(fetcher, { rewrite: sources.pageUrl }) : undefined,
    probeLimit: config.worker.probeLimit,
  };
  let fxRates: FxFollower | undefined;
  try {
    if (sources.fx) {
      // Rates fetched before this process started are used from the first crawl on.
      deps.fx = await currentFxRates(ingest.db, deps.fx);
      // The fetch is the cluster's fx-refresh chore; this worker follows the rates it stores.
      fxRates = followFxRates({
        db: ingest.db,
        everySeconds: Math.min(sources.fx.refreshSeconds, FX_FOLLOW_SECONDS),
        log: log.child({ component: 'fx' }),
        current: deps.fx,
        onRates: (rates) => {
          deps.fx = rates;
        },
      });
    }
    const worker = await startCrawlWorker({
      connectionString: database.connectionString,
      deps,
      concurrency: config.worker.concurrency,
      perHost: config.worker.perHost,
      tickSeconds: config.worker.tickSeconds,
    });
    log.info({ concurrency: config.worker.concurrency, perHost: config.worker.perHost, tickSeconds: config.worker.tickSeconds }, 'crawl worker started');
    return {
      async stop() {
        await fxRates?.stop();
        await worker.stop();
        await fetcher.close();
        await ingest.db.destroy();
      },
    };
  } catch (error) {
    await fxRates?.stop().catch(() => undefined);
    await fetcher.close().catch(() => undefined);
    await ingest.db.destroy().catch(() => undefined);
    throw error;
  }
}

/**
 * The `/metrics` listener of a `serve` or `worker` process when `JOBLEDGER_METRICS_PORT` is set, with
 * the ledger gauges read through this process's pool; undefined when metrics are off.
 */
export async function startMetricsListener(config: Config, log: Logger, database: Database): Promise<MetricsServer | undefined> {
  if (config.metrics.port === 0) return undefined;
  watchLedger(database.db, database.pools);
  try {
    return await startMetricsServer({ port: config.metrics.port, host: config.host, token: config.metrics.token, log });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE') throw new Error(`JOBLEDGER_METRICS_PORT ${config.metrics.port} is already in use; set another port`, { cause: error });
    throw error;
  }
}

/** `jobledger worker [--demo]`: run the crawl worker until SIGINT/SIGTERM. */
export async function runWorker(options: { demo: boolean }): Promise<void> {
  const rt = await openRuntime({ applicationName: 'jobledger-worker' });
  const { config, log, database } = rt;
  let closeReplay: (() => Promise<void>) | undefined;
  try {
    let sources: WorkerSources = configuredSources(config);
    if (options.demo) {
      const demo = await startDemoSources(config.fetch);
      closeReplay = () => demo.replay.close();
      sources = { fetch: demo.fetch, baseUrls: demo.replay.baseUrls, pageUrl: demo.replay.pageUrl };
      await seedDemoTargets(database.db);
    }
    const worker = await startWorker(config, log, database, sources);
    // The cluster's chores; website verification fetches real sites, so never in the demo.
    const fetcher = options.demo ? undefined : createFetcher(config.fetch, log.child({ component: 'websites' }));
    const chores = await startClusterChores(config, log, database, sources, {
      websites: fetcher ? { fetcher, log: log.child({ component: 'websites' }) } : undefined,
    });
    const metrics = await startMetricsListener(config, log, database);
    onShutdownSignal(log, async () => {
      await metrics?.close();
      await chores.stop();
      await fetcher?.close();
      await worker.stop();
      await closeReplay?.();
      await database.close();
    });
  } catch (error) {
    await closeReplay?.().catch(() => undefined);
    await database.close().catch(() => undefined);
    throw error;
  }
}
