/**
 * `sync()`: keep a local copy of the ledger in step with the delta feed (spec: GET /v1/changes,
 * "Client handling: upsert on created and updated; stop serving on delisted and on withdrawn";
 * Recipes, "Stay in sync: poll /v1/changes, never re-read /v1/jobs").
 */
import type { FeedOptions, JobledgerClient } from './client.ts';
import type { Job } from './types.ts';

/** The local copy {@link sync} writes to. Both methods may be async; they are awaited in feed order. */
export interface LocalCopy {
  /** Insert or replace the row (a `created` or `updated` change). `job` carries no description (fetch `/v1/jobs/{id}` for it). */
  upsert(job: Job): void | Promise<void>;
  /** Stop serving the row (`delisted`: closed; `withdrawn`: its link is no longer trusted). */
  remove(id: string, change: 'delisted' | 'withdrawn'): void | Promise<void>;
}

/** What one {@link sync} run did. */
export interface SyncSummary {
  upserted: number;
  removed: number;
  /** The cursor to start the next run from (also handed to `saveSince`). */
  since: string;
}

/**
 * Apply every change after `options.since` to `copy`, page by page, calling `saveSince` after each
 * page is applied; returns when caught up (or, with `follow`, when `signal` aborts). Needs the
 * `delta_feed` entitlement.
 * @throws JobledgerError from the feed (403 `upgrade_required` without delta_feed, 422 `bad_timestamp`...).
 */
export async function sync(client: JobledgerClient, copy: LocalCopy, options: FeedOptions): Promise<SyncSummary> {
  const summary: SyncSummary = { upserted: 0, removed: 0, since: options.since };
  const saveSince = async (next: string) => {
    summary.since = next;
    await options.saveSince?.(next);
  };
  for await (const item of client.changes({ ...options, saveSince })) {
    if (item.change === 'created' || item.change === 'updated') {
      // Every created/updated item carries its row (src/http/routes/sync.ts); one without is skipped, not guessed.
      if (item.job) {
        await copy.upsert(item.job);
        summary.upserted++;
      }
    } else if (item.change === 'delisted' || item.change === 'withdrawn') {
      // The change kinds are an open enumeration (its type admits any string): narrowed by hand.
      await copy.remove(item.id, item.change === 'delisted' ? 'delisted' : 'withdrawn');
      summary.removed++;
    }
    // A kind this version does not know (the enumeration is open) changes nothing here.
  }
  return summary;
}
