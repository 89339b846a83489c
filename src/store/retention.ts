/**
 * Retention of the tables that grow forever (issue 20): `change_events` older than the window and
 * `crawl_runs` finished before it are deleted in small batches, each its own short transaction, so
 * the feed's readers (plain MVCC reads) and writers (inserts at the head of the feed, far from the
 * deleted tail) never wait on retention. Each change-event batch also moves the feed's retention
 * horizon (`change_feed_retention`, migration 025) in the same transaction: a reader that cannot see
 * a deletion yet cannot see the new horizon either, and the other way round.
 */
import { sql, type Kysely } from 'kysely';
import type { FeedPosition } from '../domain/feed-cursor.ts';
import type { DB } from './schema.ts';

/** Rows deleted per transaction; small enough that each batch holds its locks for milliseconds. */
export const RETENTION_BATCH_SIZE = 5000;

/** What one retention pass deleted. */
export interface RetentionResult {
  changeEvents: number;
  crawlRuns: number;
  /** Enrichment records (`job_enrichments`) of rows closed before the crawl-run window. */
  enrichmentRecords: number;
}

/**
 * The feed position of the last change event retention deleted (exact stamp text, RFC 3339 UTC with
 * milliseconds, and job id), or undefined while nothing has been deleted. A `since` strictly before
 * it may have missed deleted events.
 */
export async function changeFeedHorizon(db: Kysely<DB>): Promise<FeedPosition | undefined> {
  const row = await db
    .selectFrom('change_feed_retention')
    .select([sql<string | null>`to_char(deleted_through_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`.as('at'), 'deleted_through_id as id'])
    .executeTakeFirst();
  return row?.at && row.id ? { at: row.at, id: row.id } : undefined;
}

/**
 * Whether paging the change feed after `after` may miss deleted events: `after` lies strictly before
 * the retention horizon in (stamp, job id) order. Compared by PostgreSQL, which reads `after.at` with
 * its offset and microseconds exactly as the feed query does.
 */
export async function sinceExpired(db: Kysely<DB>, after: FeedPosition): Promise<boolean> {
  const row = await db
    .selectFrom('change_feed_retention')
    .select(sql<boolean>`(${after.at}::timestamptz, ${after.id}::uuid) < (deleted_through_at, deleted_through_id)`.as('expired'))
    .where('deleted_through_at', 'is not', null)
    .executeTakeFirst();
  return row?.expired === true;
}

/**
 * Delete change events stamped before `cutoff`, oldest first, `batchSize` per transaction, and move
 * the horizon past each batch. Returns how many were deleted.
 */
export async function deleteOldChangeEvents(db: Kysely<DB>, cutoff: Date, batchSize = RETENTION_BATCH_SIZE): Promise<number> {
  let total = 0;
  for (;;) {
    const deleted = await db.transaction().execute(async (trx) => {
      const result = await sql<{ n: string; at: Date | null; id: string | null }>`
        WITH doomed AS (
          SELECT id, published_at, job_id FROM change_events
           WHERE published_at < ${cutoff}
           ORDER BY published_at, job_id
           LIMIT ${batchSize}
        ), gone AS (
          DELETE FROM change_events e USING doomed d WHERE e.id = d.id RETURNING d.published_at, d.job_id
        ), last AS (
          SELECT published_at, job_id FROM gone ORDER BY published_at DESC, job_id DESC LIMIT 1
        )
        SELECT (SELECT count(*) FROM gone)::text AS n, (SELECT published_at FROM last) AS at, (SELECT job_id FROM last) AS id`.execute(trx);
      const row = result.rows[0]!;
      const n = Number(row.n);
      if (n > 0) {
        // Never backwards: a concurrent pass may already have deleted further.
        await sql`UPDATE change_feed_retention
                     SET deleted_through_at = ${row.at}, deleted_through_id = ${row.id}::uuid
                   WHERE deleted_through_at IS NULL
                      OR (deleted_through_at, deleted_through_id) < (${row.at}::timestamptz, ${row.id}::uuid)`.execute(trx);
      }
      return n;
    });
    total += deleted;
    if (deleted < batchSize) return total;
  }
}

/** Delete crawl runs that finished before `cutoff`, `batchSize` per transaction. Returns how many. */
export async function deleteOldCrawlRuns(db: Kysely<DB>, cutoff: Date, batchSize = RETENTION_BATCH_SIZE): Promise<number> {
  let total = 0;
  for (;;) {
    const result = await sql`DELETE FROM crawl_runs WHERE id IN (SELECT id FROM crawl_runs WHERE finished_at < ${cutoff} LIMIT ${batchSize})`.execute(db);
    const n = Number(result.numAffectedRows ?? 0n);
    total += n;
    if (n < batchSize) return total;
  }
}

/**
 * Delete the enrichment records (`job_enrichments`, migration 031) of rows closed before `cutoff`,
 * `batchSize` per statement, walking the closed rows in id order. A record only saves a re-crawl from
 * enriching a posting again; the closed row itself (kept for ever: spec, "closed rows are kept") does
 * not need it, and a posting that comes back after this is enriched afresh once. Without this the
 * table grew by about 1 KB per row the ledger ever crawled. Returns how many were deleted.
 */
export async function deleteClosedEnrichmentRecords(db: Kysely<DB>, cutoff: Date, batchSize = RETENTION_BATCH_SIZE): Promise<number> {
  let total = 0;
  let after = '00000000-0000-0000-0000-000000000000';
  for (;;) {
    const { rows } = await sql<{ n: string; last: string | null }>`
      WITH doomed AS (
        SELECT j.id FROM jobs j
         WHERE j.status = 'closed' AND j.closed_at < ${cutoff} AND j.id > ${after}::uuid
           AND EXISTS (SELECT 1 FROM job_enrichments e WHERE e.job_id = j.id)
         ORDER BY j.id
         LIMIT ${batchSize}
      ), gone AS (
        DELETE FROM job_enrichments e USING doomed d WHERE e.job_id = d.id RETURNING e.job_id
      )
      SELECT (SELECT count(*) FROM gone)::text AS n, (SELECT max(id::text) FROM doomed) AS last`.execute(db);
    const n = Number(rows[0]!.n);
    total += n;
    if (rows[0]!.last === null || n < batchSize) return total;
    after = rows[0]!.last;
  }
}

/**
 * One retention pass at `now`: change events older than `changeEventDays` days and crawl runs older
 * than `crawlRunDays` days are deleted, and so are the enrichment records of rows closed before the
 * crawl-run window (a posting that returns within it is still restored rather than enriched).
 */
export async function applyRetention(db: Kysely<DB>, now: Date, windows: { changeEventDays: number; crawlRunDays: number }): Promise<RetentionResult> {
  const day = 86_400_000;
  const changeEvents = await deleteOldChangeEvents(db, new Date(now.getTime() - windows.changeEventDays * day));
  const crawlCutoff = new Date(now.getTime() - windows.crawlRunDays * day);
  const crawlRuns = await deleteOldCrawlRuns(db, crawlCutoff);
  const enrichmentRecords = await deleteClosedEnrichmentRecords(db, crawlCutoff);
  return { changeEvents, crawlRuns, enrichmentRecords };
}

/**
 * The change feed's watermark now: a `since` cursor (`<stamp>|<max uuid>`) after every change event
 * committed so far, read from the feed clock (migration 004). Every transaction that commits later
 * stamps a strictly later instant, so a client that read the ledger after taking this watermark and
 * then follows `/v1/changes` from it misses nothing.
 */
export async function changeFeedWatermark(db: Kysely<DB>): Promise<string> {
  const row = await db
    .selectFrom('change_feed_clock')
    .select(sql<string | null>`CASE WHEN stamp = '-infinity' THEN NULL ELSE to_char(stamp AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') END`.as('at'))
    .executeTakeFirst();
  // An empty ledger: every future event is stamped after the epoch.
  return `${row?.at ?? '1970-01-01T00:00:00.000Z'}|ffffffff-ffff-ffff-ffff-ffffffffffff`;
}
