/**
 * The bundled fixtures for the ingest tests: served by a real loopback replay server, read by a real
 * guarded fetcher allowed to reach it, and readers for the recorded payloads so tests compare
 * mappings against the exact recorded values.
 */
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import zlib from 'node:zlib';
import type { FetchConfig } from '../../src/config/config.ts';
import type { ConnectorId, CrawlTarget } from '../../src/ingest/connector.ts';
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
