/**
 * The production pipeline (guarded fetcher, registry connectors, enrichment, quality gate, ledger) over a
 * fresh test database, with one agency connector's base URL pointed at an {@link AgencyServer}, and a
 * snapshot of everything a crawl could change, to prove that a failed crawl changes nothing
 * ({@link itChangesNothingOnFailure}).
 */
import pino from 'pino';
import { expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.ts';
import { loadFxRates } from '../../src/enrich/fx.ts';
import { createConnectors, type ConnectorId, type SourceUrls } from '../../src/ingest/connectors/registry.ts';
import { createFetcher, type GuardedFetcher } from '../../src/ingest/fetcher.ts';
import { crawlTargets, type CrawlReport, type PipelineDeps } from '../../src/ingest/pipeline.ts';
import { listTargets, upsertTarget } from '../../src/store/crawl-targets.ts';
import { AgencyServer, FAILURES, type Answer } from './agency-server.ts';
import { testFetchConfig } from './corpus.ts';
import { createTestDatabase, type TestDatabase } from './database.ts';
import { useParts } from './hooks.ts';

export interface AgencyPipeline {
  t: TestDatabase;
  server: AgencyServer;
  targetId: string;
  crawl(): Promise<CrawlReport>;
  /** The provider's rows by source posting id. */
  rows(): Promise<Map<string, Awaited<ReturnType<AgencyPipeline['rowList']>>[number]>>;
  rowList(): Promise<Array<Record<string, any>>>; // eslint-disable-line @typescript-eslint/no-explicit-any
  /** Rows, change events and the target's stored state: everything a crawl may change. */
  snapshot(): Promise<unknown>;
  /**
   * Each row's id, status and content hash, and the count of change events: what a recrawl that finds
   * no posting changed leaves as it was (it may still note when it last verified the rows).
   */
  contents(): Promise<{ jobs: Array<[string, string, string]>; events: number }>;
  close(): Promise<void>;
}

/**
 * Start the server, a database and a pipeline for `provider`'s target `board`.
 * @param env configuration variables for the connector (e.g. an API key).
 */
export async function agencyPipeline(provider: ConnectorId, board: string, env: Record<string, string> = {}): Promise<AgencyPipeline> {
  const t = await createTestDatabase();
  const server = await new AgencyServer().start();
  const config = loadConfig(env);
  const sources = { ...config.sources, [provider]: server.base } as SourceUrls;
  // A short time limit so the hang form ends quickly; no retries, so each failure is one request.
  const fetcher: GuardedFetcher = createFetcher(testFetchConfig({ timeoutMs: 1_500, retries: 0 }));
  const deps: PipelineDeps = {
    db: t.db,
    connectors: createConnectors(sources, config.careerSite, config.agencyKeys),
    fetcher,
    fx: loadFxRates(),
    log: pino({ level: 'silent' }),
    absence: { crawls: 2, minSeconds: 0 },
  };
  const targetId = await upsertTarget(t.db, { providerId: provider, board });
  const rowList = () => t.db.selectFrom('jobs').selectAll().where('provider_id', '=', provider).orderBy('id').execute();
  const events = async () => (await t.db.selectFrom('change_events').select('id').execute()).length;
  return {
    t,
    server,
    targetId,
    crawl: async () => {
      const [report] = await crawlTargets(deps, await listTargets(t.db, { ids: [targetId] }), { concurrency: 1 });
      return report!;
    },
    rowList,
    rows: async () => new Map((await rowList()).map((r) => [r.source_posting_id, r])),
    snapshot: async () => ({
      jobs: await t.db
        .selectFrom('jobs')
        .select(['id', 'status', 'closed_reason', 'content_hash', 'last_verified_at', 'missed_crawls', 'withheld_kind', 'updated_at'])
        .where('provider_id', '=', provider)
        .orderBy('id')
        .execute(),
      events: await events(),
      target: await t.db.selectFrom('crawl_targets').select(['site_state', 'good_crawls', 'etag']).where('id', '=', targetId).executeTakeFirstOrThrow(),
    }),
    contents: async () => ({ jobs: (await rowList()).map((r) => [r.id, r.status, r.content_hash]), events: await events() }),
    close: async () => {
      await fetcher.close();
      await server.close();
      await t.drop();
    },
  };
}

/**
 * The {@link agencyPipeline} of a describe block: started before its tests (and before the block's own
 * `beforeAll` hooks, which run after this one) and closed after them. Read it inside hooks and tests.
 */
export function useAgencyPipeline(provider: ConnectorId, board: string, env: Record<string, string> = {}): Omit<AgencyPipeline, 'close'> {
  return useParts<AgencyPipeline>(
    'useAgencyPipeline',
    ['t', 'server', 'targetId', 'crawl', 'rows', 'rowList', 'snapshot', 'contents'],
    async (made) => {
      Object.assign(made, await agencyPipeline(provider, board, env));
    },
    async ({ close }) => {
      await close?.();
    },
  );
}

/**
 * One test per failure form of {@link FAILURES}: `path` answers with it, the crawl fails, and nothing a
 * crawl may change has changed ({@link AgencyPipeline.snapshot}). Then `path` answers `healthy` again,
 * when given.
 * @param what how the titles name the answer that fails ("the search", "a feed page").
 */
export function itChangesNothingOnFailure(p: Pick<AgencyPipeline, 'server' | 'crawl' | 'snapshot'>, what: string, path: string, healthy?: Answer): void {
  for (const [form, failure] of Object.entries(FAILURES)) {
    it(`changes nothing when ${what} answers: ${form}`, async () => {
      const before = await p.snapshot();
      p.server.set(path, failure);
      expect((await p.crawl()).outcome).toBe('failed');
      expect(await p.snapshot()).toEqual(before);
      if (healthy) p.server.set(path, healthy);
    });
  }
}
