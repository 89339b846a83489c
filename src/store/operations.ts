/**
 * Readings of the ledger for operators (the `/metrics` gauges, observability/metrics.ts): cheap
 * statements on indexed columns, run at scrape time.
 */
import { sql, type Kysely } from 'kysely';
import type { DB } from './schema.ts';

/** Seconds since the newest published change event (the change feed's lag); null when none is published. */
export async function feedLagSeconds(db: Kysely<DB>): Promise<number | null> {
  // max(published_at) reads the end of change_events_feed_idx (published_at, id).
  const { rows } = await sql<{ age: number | null }>`SELECT extract(epoch FROM clock_timestamp() - max(published_at))::float8 AS age FROM change_events WHERE published_at IS NOT NULL`.execute(db);
  return rows[0]?.age ?? null;
}

/** Age in seconds of each report snapshot, by report name. */
export async function reportSnapshotAges(db: Kysely<DB>): Promise<{ name: string; age: number }[]> {
  const { rows } = await sql<{ name: string; age: number }>`SELECT name, extract(epoch FROM clock_timestamp() - measured_at)::float8 AS age FROM report_snapshots ORDER BY name`.execute(db);
  return rows;
}
