/**
 * The bundled fixtures for the ingest tests: served by a real loopback replay server, read by a real
 * guarded fetcher allowed to reach it, and readers for the recorded payloads so tests compare
 * mappings against the exact recorded values.
 */
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import zlib from 'node:zlib';
import { afterAll, beforeAll, expect } from 'vitest';
import type { FetchConfig } from '../../src/config/config.ts';
import type { SourcePosting } from '../../src/domain/posting.ts';
import type { Connector, ConnectorId, CrawlOutcome, CrawlTarget } from '../../src/ingest/connector.ts';
import type { BaseUrlConnectorId } from '../../src/ingest/connectors/registry.ts';
import { createFetcher } from '../../src/ingest/fetcher.ts';
import type { FetcherTuning, GuardedFetcher } from '../../src/ingest/fetcher.ts';
import { startReplayServer } from '../../src/ingest/replay-server.ts';
import type { ReplayServer } from '../../src/ingest/replay-server.ts';

/** The repository's `fixtures/` directory. */
export const FIXTURES = fileURLToPath(new URL('../../fixtures', import.meta.url));

/** Fetch settings for loopback tests: 127.0.0.1 allowed, short time limit, no retries unless asked. */
export function loopbackFetchConfig(overrides: Partial<FetchConfig> = {}): FetchConfig {
  return {
    timeoutMs: 5_000,
    maxBytes: 64 * 1024 * 1024,
    retries: 0,
    backoffMs: 1,
    allow: ['127.0.0.1/32'],
    userAgent: 'jobledger-test/0.1',
    ...overrides,
  };
}

/** A replay server over the bundled fixtures plus a fetcher allowed to reach it. */
export async function startLoopback(
  fetch: Partial<FetchConfig> = {},
  tuning?: FetcherTuning,
): Promise<{ replay: ReplayServer; fetcher: GuardedFetcher; close(): Promise<void> }> {
  const replay = await startReplayServer({ fixturesDir: FIXTURES });
  const fetcher = createFetcher(loopbackFetchConfig(fetch), undefined, tuning);
  return {
    replay,
    fetcher,
    close: async () => {
      await fetcher.close();
      await replay.close();
    },
  };
}

/** A loopback replay server with its fetcher, as {@link startLoopback} starts it. */
export type Loopback = Awaited<ReturnType<typeof startLoopback>>;

/**
 * A connector test file's set-up: a loopback replay server started before its tests (with `fetch`
 * overrides) and closed after them, and the connector `create`d on the replay's base URL of `id`.
 * `loop` and `connector` are set once the file's `beforeAll` has run.
 */
export function useConnectorReplay(id: BaseUrlConnectorId, create: (baseUrl: string) => Connector, fetch: Partial<FetchConfig> = {}) {
  const replay = {
    loop: undefined as unknown as Loopback,
    connector: undefined as unknown as Connector,
    /** A target of this connector's provider on `board`. */
    target: (board: string, extra: Partial<CrawlTarget> = {}): CrawlTarget => ({ id: `${id}:${board}`, providerId: id, board, ...extra }),
    /** Crawl `board` through the loopback fetcher; the outcome must be `fetched` (its validators, postings, gone ids). */
    async fetched(board: string, extra: Partial<CrawlTarget> = {}): Promise<Extract<CrawlOutcome, { kind: 'fetched' }>> {
      const outcome = await replay.connector.crawl(replay.target(board, extra), replay.loop.fetcher);
      if (outcome.kind !== 'fetched') throw new Error(`expected fetched, got ${outcome.kind}`);
      return outcome;
    },
    /** Crawl `board`; the answer must be well formed and skip nothing. */
    async postingsOf(board: string, extra: Partial<CrawlTarget> = {}): Promise<SourcePosting[]> {
      const outcome = await replay.fetched(board, extra);
      expect(outcome.skipped).toBe(0);
      return outcome.postings;
    },
  };
  beforeAll(async () => {
    replay.loop = await startLoopback(fetch);
    replay.connector = create(replay.loop.replay.baseUrls[id]);
  });
  afterAll(async () => {
    await replay.loop.close();
  });
  return replay;
}

/** The recorded payload of one fixture board, parsed (`<provider>/<board>.json.gz` or `.json`). */
export function readFixture(provider: ConnectorId, board: string): unknown {
  const gz = path.join(FIXTURES, provider, `${board}.json.gz`);
  const bytes = fs.existsSync(gz) ? zlib.gunzipSync(fs.readFileSync(gz)) : fs.readFileSync(path.join(FIXTURES, provider, `${board}.json`));
  return JSON.parse(bytes.toString('utf8'));
}

/** One entry of `fixtures/manifest.json` (the demo) or `fixtures/test-targets.json` (hand-written, tests only). */
export interface ManifestEntry {
  provider: ConnectorId;
  board: string;
  /** True for an untouched recorded payload, false for one this project wrote. */
  recorded?: boolean;
  company?: string;
  domain?: string;
}

/** Every fixture target: the demo's recorded boards, then the hand-written test targets. */
export function readManifest(): ManifestEntry[] {
  return ['manifest.json', 'test-targets.json'].flatMap((file) => JSON.parse(fs.readFileSync(path.join(FIXTURES, file), 'utf8')) as ManifestEntry[]);
}

/** A crawl target as the pipeline would build it from a manifest entry. */
export function targetOf(entry: ManifestEntry, extra: Partial<CrawlTarget> = {}): CrawlTarget {
  const target: CrawlTarget = { id: `${entry.provider}:${entry.board}`, providerId: entry.provider, board: entry.board };
  if (entry.company) target.companyName = entry.company;
  if (entry.domain) target.companyDomain = entry.domain;
  return { ...target, ...extra };
}

/** The demo's targets (`fixtures/manifest.json`): recorded boards only, what `npm start` imports. */
export const DEMO_MANIFEST: readonly ManifestEntry[] = JSON.parse(fs.readFileSync(path.join(FIXTURES, 'manifest.json'), 'utf8')) as ManifestEntry[];

/** How many targets the demo imports: what `npm start` logs as `targets`. */
export const DEMO_TARGETS: number = DEMO_MANIFEST.length;
