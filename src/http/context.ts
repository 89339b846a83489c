/**
 * What route handlers share: the ledger, settings, and small caches of slowly changing data.
 */
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { ReportReader } from '../reports/snapshots.ts';
import type { DB } from '../store/schema.ts';
import { redistributableProviderIds } from '../store/providers.ts';

export interface AppContext {
  db: Kysely<DB>;
  log: Logger;
  /** Base of the `docs` link in error bodies. */
  docsUrl: string;
  /** HMAC secret of listing cursors (shared by every API process). */
  cursorSecret: string;
  /** Provider ids accepted by `provider` filters, refreshed at most once a minute. */
  providerIds(): Promise<readonly string[]>;
  /** Report snapshots (freshness, coverage, stats), measured on demand when none exists yet. */
  reports: ReportReader;
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
