/**
 * The bundled real feeds imported through the production path: the loopback replay server answers on
 * the real APIs' paths, the real fetcher and connectors read it, enrichment, the quality gate and the
 * ledger write it.
 */
import type { Kysely } from 'kysely';
import pino from 'pino';
import { loadConfig } from '../../src/config/config.ts';
import { FIXTURES_DIR, seedFixtureTargets } from '../../src/ingest/bundled-feeds.ts';
import { loadFxRates } from '../../src/enrich/fx.ts';
import { createConnectors } from '../../src/ingest/connectors/registry.ts';
import { createFetcher } from '../../src/ingest/fetcher.ts';
import { crawlTargets, type CrawlReport, type PipelineDeps } from '../../src/ingest/pipeline.ts';
import { createPostingProbe } from '../../src/ingest/posting-probe.ts';
import { startReplayServer, type ReplayServer } from '../../src/ingest/replay-server.ts';
import type { CrawlTargetRow, DB } from '../../src/store/schema.ts';
import { buildTestApp, createKey, type TestApp } from './app.ts';
import { createTestDatabase } from './database.ts';
import { useParts } from './hooks.ts';

/**
 * Fetch settings for tests: loopback allowed, quick retries. The time limit is generous because a
 * loopback answer that takes long only means a loaded machine; a test of the time limit itself
 * passes its own, short one.
 */
export function testFetchConfig(overrides: Partial<ReturnType<typeof loadConfig>['fetch']> = {}) {
  const base = loadConfig({}).fetch;
  return { ...base, allow: ['127.0.0.1/32'], timeoutMs: 30_000, retries: 1, backoffMs: 10, ...overrides };
}

/** Each report's outcome; a failed crawl also names its cause, so a failing assertion says why. */
export function outcomes(reports: CrawlReport[]): string[] {
  return reports.map((r) => (r.outcome === 'failed' ? `failed (${r.errorKind}: ${r.error})` : r.outcome));
}

export interface ReplayPipeline {
  replay: ReplayServer;
  deps: PipelineDeps;
  targets: CrawlTargetRow[];
  crawl(targets?: CrawlTargetRow[]): Promise<CrawlReport[]>;
  close(): Promise<void>;
}

/**
 * A replay server over the bundled fixtures and a pipeline wired to it, with the demo targets seeded.
 * `lifecycle` sets the absence policy and, with `probe`, probes posting URLs on the replay server's
 * posting pages (every page answers 200 unless a test overrides its path).
 */
export async function replayPipeline(
  db: Kysely<DB>,
  fetchOverrides: Parameters<typeof testFetchConfig>[0] = {},
  lifecycle: { absence?: PipelineDeps['absence']; probe?: boolean; probeLimit?: number } = {},
): Promise<ReplayPipeline> {
  const replay = await startReplayServer({ fixturesDir: FIXTURES_DIR, host: '127.0.0.1', port: 0 });
  const fetcher = createFetcher(testFetchConfig(fetchOverrides));
  const deps: PipelineDeps = {
    db,
    connectors: createConnectors(replay.baseUrls),
    fetcher,
    fx: loadFxRates(),
    log: pino({ level: 'silent' }),
    absence: lifecycle.absence,
    probe: lifecycle.probe ? createPostingProbe(fetcher, { rewrite: replay.pageUrl }) : undefined,
    probeLimit: lifecycle.probeLimit,
  };
  const targets = await seedFixtureTargets(db);
  return {
    replay,
    deps,
    targets,
    crawl: async (only?: CrawlTargetRow[]) => {
      // Re-read targets so validators (ETag) saved by earlier crawls are used.
      const ids = (only ?? targets).map((t) => t.id);
      const fresh = await db.selectFrom('crawl_targets').selectAll().where('id', 'in', ids).orderBy('id').execute();
      return crawlTargets(deps, fresh, { concurrency: 4 });
    },
    close: async () => {
      await fetcher.close();
      await replay.close();
    },
  };
}

/** What {@link useReplayApp} sets up: a {@link TestApp} and the replay pipeline writing into its database. */
export interface ReplayApp extends TestApp {
  readonly pipeline: ReplayPipeline;
}

/**
 * A test database with the demo targets seeded, the replay pipeline writing into it
 * ({@link replayPipeline} with `fetch` and `lifecycle`), the app over it and a key on `plan` (default
 * `scale`), made before the describe block's tests (and before the block's own `beforeAll` hooks, which
 * run after this one) and released after them. Nothing is crawled yet.
 */
export function useReplayApp(options: { plan?: string; fetch?: Parameters<typeof replayPipeline>[1]; lifecycle?: Parameters<typeof replayPipeline>[2] } = {}): ReplayApp {
  return useParts<ReplayApp>(
    'useReplayApp',
    ['t', 'app', 'key', 'pipeline'],
    async (made) => {
      made.t = await createTestDatabase();
      made.pipeline = await replayPipeline(made.t.db, options.fetch, options.lifecycle);
      made.app = await buildTestApp(made.t);
      made.key = await createKey(made.t, options.plan ?? 'scale');
    },
    async ({ app, pipeline, t }) => {
      await app?.close();
      await pipeline?.close();
      await t?.drop();
    },
  );
}
