/**
 * What `npm start` serves (issue 23): the default demo imported as `serve --demo` imports it (replay
 * server on loopback → `seedDemoTargets` → the pipeline wired as `src/main/import.ts` wires it, with the
 * default settings; tests may not import src/main), then every page
 * of `/v1/jobs` (with a key) and of `/public/jobs` walked. Every served row must come from a target that
 * `fixtures/manifest.json` declares recorded; no hand-written payload may reach the served ledger, and
 * the Greenhouse and Lever connectors run end to end on their real recordings.
 */
import pino from 'pino';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config/config.ts';
import type { Job } from '../src/domain/job.ts';
import { readDemoTargets, readFixtureTargets, seedDemoTargets, TEST_TARGETS, type FixtureTarget } from '../src/ingest/bundled-feeds.ts';
import { loadFxRates } from '../src/enrich/fx.ts';
import { createConnectors } from '../src/ingest/connectors/registry.ts';
import { createFetcher } from '../src/ingest/fetcher.ts';
import { crawlTargets, type CrawlReport } from '../src/ingest/pipeline.ts';
import { createPostingProbe } from '../src/ingest/posting-probe.ts';
import { FIXTURES_DIR } from '../src/ingest/bundled-feeds.ts';
import { startReplayServer } from '../src/ingest/replay-server.ts';
import type { CreatedKey } from '../src/access/api-keys.ts';
import { allPages, bearer, buildTestApp, createKey } from './helpers/app.ts';
import { createTestDatabase, type TestDatabase } from './helpers/database.ts';

const key = (t: { provider: string; board: string }) => `${t.provider}:${t.board}`;

describe('the default demo ledger (npm start)', () => {
  let t: TestDatabase;
  let app: FastifyInstance;
  let apiKey: CreatedKey;
  let reports: CrawlReport[] = [];
  let declared: FixtureTarget[];
  /** Served job id → `provider:board` of the crawl target it came from. */
  const boardOf = new Map<string, string>();
  let v1: Job[] = [];

  beforeAll(async () => {
    t = await createTestDatabase();
    const config = loadConfig({});
    const replay = await startReplayServer({ fixturesDir: FIXTURES_DIR, host: '127.0.0.1', port: 0 });
    const fetcher = createFetcher({ ...config.fetch, allow: [...config.fetch.allow, `127.0.0.1:${new URL(replay.url).port}`] });
    try {
      const targets = await seedDemoTargets(t.db);
      reports = await crawlTargets(
        {
          db: t.db,
          connectors: createConnectors(replay.baseUrls, config.careerSite),
          fetcher,
          fx: loadFxRates(),
          log: pino({ level: 'silent' }),
          absence: config.absence,
          probe: config.worker.probeLimit > 0 ? createPostingProbe(fetcher, { rewrite: replay.pageUrl }) : undefined,
          probeLimit: config.worker.probeLimit,
        },
        targets,
        { concurrency: 4 },
      );
    } finally {
      await fetcher.close();
      await replay.close();
    }
    declared = await readDemoTargets();
    const rows = await t.db
      .selectFrom('jobs')
      .innerJoin('crawl_targets', 'crawl_targets.id', 'jobs.target_id')
      .select(['jobs.id', 'crawl_targets.provider_id', 'crawl_targets.board'])
      .execute();
    for (const r of rows) boardOf.set(r.id, `${r.provider_id}:${r.board}`);

    app = await buildTestApp(t);
    apiKey = await createKey(t, 'scale');
    v1 = await allPages((url) => app.inject({ method: 'GET', url, headers: bearer(apiKey) }), '/v1/jobs?limit=200');
  });

  afterAll(async () => {
    await app?.close();
    await t?.drop();
  });

  it('declares only recorded targets, and imports every one of them without a failure', () => {
    expect(declared.length).toBeGreaterThan(0);
    expect(declared.filter((d) => !d.recorded)).toEqual([]);
    expect(reports.map((r) => r.targetId).sort()).toEqual(declared.map(key).sort());
    expect(reports.filter((r) => r.outcome !== 'fetched')).toEqual([]);
  });

  it('serves on every page of /v1/jobs only rows whose source board is a declared recorded target', async () => {
    const recorded = new Set(declared.filter((d) => d.recorded).map(key));
    const handWritten = new Set((await readFixtureTargets(TEST_TARGETS)).map(key));
    expect(v1.length).toBeGreaterThan(1000);
    expect(new Set(v1.map((j) => j.id)).size).toBe(v1.length);
    for (const job of v1) {
      const board = boardOf.get(job.id);
      expect(board, `${job.id} (${job.company}) has no crawl target`).toBeDefined();
      expect(recorded.has(board!), `${job.id} (${job.company}) comes from ${board}`).toBe(true);
      expect(handWritten.has(board!)).toBe(false);
      expect(job.source).toBe(board!.split(':')[0]);
    }
  });

  it('serves on /public/jobs, overall and per provider, only rows from declared recorded targets', async () => {
    const recorded = new Set(declared.map(key));
    const providers = [...new Set(declared.map((d) => d.provider))];
    let seen = 0;
    for (const query of ['limit=50', ...providers.map((p) => `limit=50&source=${p}`)]) {
      const res = await app.inject({ method: 'GET', url: `/public/jobs?${query}`, remoteAddress: '198.51.100.23' });
      expect(res.statusCode, query).toBe(200);
      const page = res.json() as { data: Job[]; has_more: boolean };
      expect(page.has_more).toBe(false);
      for (const job of page.data) {
        expect(recorded.has(boardOf.get(job.id) ?? ''), `${job.id} (${job.company}) on /public/jobs?${query}`).toBe(true);
        seen++;
      }
    }
    expect(seen).toBeGreaterThan(50);
  });

  it('serves the recorded Recruitee, Workable and Workday boards, listed on /public/providers with their counts (issue 18)', async () => {
    const res = await app.inject({ method: 'GET', url: '/public/providers', remoteAddress: '198.51.100.24' });
    expect(res.statusCode).toBe(200);
    const listed = (res.json() as { data: { provider: string; live: number; source_type: string }[] }).data;
    for (const [provider, company] of [['recruitee', 'Aikido Security'], ['workable', 'Vasion'], ['workday', 'GD Information Technology, Inc.']] as const) {
      const rows = v1.filter((j) => j.source === provider);
      expect(rows.length, provider).toBeGreaterThan(0);
      expect(new Set(rows.map((j) => j.company)), provider).toEqual(new Set([company]));
      expect(listed.find((p) => p.provider === provider), provider).toMatchObject({ live: rows.length, source_type: 'ats' });
    }
  });

  it('runs Greenhouse and Lever end to end on their real recordings (Anthropic, Spotify)', () => {
    const byProvider = (p: string) => v1.filter((j) => j.source === p);
    expect(byProvider('greenhouse').length).toBeGreaterThan(0);
    expect(byProvider('lever').length).toBeGreaterThan(0);
    expect(new Set(byProvider('greenhouse').map((j) => j.company))).toEqual(new Set(['Anthropic']));
    expect(new Set(byProvider('lever').map((j) => j.company))).toEqual(new Set(['Spotify']));
    for (const j of [...byProvider('greenhouse'), ...byProvider('lever')]) expect(j.apply_url ?? '').toMatch(/^https:\/\//);
  });
});
