/**
 * What route handlers share: the ledger, settings, and small caches of slowly changing data.
 */
import type { KeylessPageCache } from './keyless-page-cache.ts';
import type { FastifyRequest } from 'fastify';
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { KeyCache } from '../access/key-cache.ts';
import type { ReportReader } from '../reports/snapshots.ts';
import { FACETS_MAX_AGE_SECONDS, sharedFacets, type LedgerFacets } from '../reports/facets.ts';
import { refreshingSnapshot, type RefreshingSnapshot, type Snapshot } from '../reports/snapshot.ts';
import type { DB } from '../store/schema.ts';
import { redistributableProviderIds } from '../store/providers.ts';
import { KEYLESS_MAX_LIMIT, type Surface } from './endpoints.ts';
import type { ListingContext } from './schemas/listing-filters.ts';

export interface AppContext {
  /** The primary: keys, meters, the feeds' cursors (/v1/changes, closures, the export) and every write. */
  db: Kysely<DB>;
  /**
   * Reads that may lag behind the primary: listings, companies, facets, reports (a read replica when
   * DATABASE_REPLICA_URL is set, else the primary itself; docs/deploy.md "Read replica").
   */
  reader: Kysely<DB>;
  /** `reader` in sessions that keep one generic plan per named statement (store/job-queries.ts `listJobs`, `findJob`). */
  genericReader: Kysely<DB>;
  log: Logger;
  /** Base of the `docs` link in error bodies. */
  docsUrl: string;
  /** HMAC secret of listing cursors (shared by every API process). */
  cursorSecret: string;
  /** Provider ids accepted by `provider` filters, refreshed at most once a minute. */
  providerIds(): Promise<readonly string[]>;
  /** Report snapshots (freshness, coverage, stats), measured on demand when none exists yet. */
  reports: ReportReader;
  /** Facets, provider counts and publication counts, refreshed every {@link FACETS_MAX_AGE_SECONDS}. */
  facets: RefreshingSnapshot<LedgerFacets>;
  /** Key lookups kept for at most a second (access/key-cache.ts); absent: every request reads its key. */
  keyCache?: KeyCache;
  /** `/public/jobs` answers kept as bytes (keyless-page-cache.ts); absent: every request reads. */
  keylessPageCache?: KeylessPageCache;
}


/** Seconds a process keeps the shared facet snapshot before reading the stored one again. */
const FACETS_READ_SECONDS = 30;

/**
 * This process's view of the cluster's facet snapshot: the stored one (computed once per cluster by
 * the `facet-snapshot` chore every {@link FACETS_MAX_AGE_SECONDS}), re-read through `reader` at most
 * every {@link FACETS_READ_SECONDS}, stale-while-revalidate. Where none is fresh (a new cluster before
 * the chore's first run, a process without chores) it is counted on `reader` and stored on `primary`.
 * `measuredAt` is the stored snapshot's, so `age_seconds` tells its true age.
 */
export function facetSnapshot(primary: Kysely<DB>, reader: Kysely<DB>, log: Logger): RefreshingSnapshot<LedgerFacets> {
  const shared = refreshingSnapshot(() => sharedFacets(primary, reader, FACETS_MAX_AGE_SECONDS), {
    maxAgeMs: FACETS_READ_SECONDS * 1000,
    onError: (err) => log.error({ err }, 'facet snapshot read failed; serving the previous one'),
  });
  const unwrap = (s: Snapshot<Snapshot<LedgerFacets>>): Snapshot<LedgerFacets> => s.value;
  return {
    get: async () => unwrap(await shared.get()),
    refresh: async () => unwrap(await shared.refresh()),
  };
}

const PROVIDER_CACHE_MS = 60_000;

/** A provider-id list cached for a minute: provider lists change rarely and every listing needs one. */
export function cachedProviderIds(db: Kysely<DB>): () => Promise<readonly string[]> {
  let cached: { at: number; ids: readonly string[] } | undefined;
  return async () => {
    if (!cached || Date.now() - cached.at > PROVIDER_CACHE_MS) {
      cached = { at: Date.now(), ids: await redistributableProviderIds(db) };
    }
    return cached.ids;
  };
}

/**
 * What parsing a job listing's query needs to know about `request`'s caller on `surface`: the provider
 * list, the largest page (the plan's `max_page_size`, or the keyless cap) and a key's country lock.
 */
export async function listingContextOf(ctx: AppContext, request: FastifyRequest, surface: Surface): Promise<ListingContext> {
  if (surface === 'keyless') return { surface, providers: await ctx.providerIds(), maxLimit: KEYLESS_MAX_LIMIT };
  return {
    surface,
    providers: await ctx.providerIds(),
    maxLimit: request.apiKey!.plan.max_page_size,
    countryLock: request.apiKey!.key.country_lock ?? undefined,
  };
}
