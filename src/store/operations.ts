/**
 * Readings of the ledger for operators (the `/metrics` gauges, observability/metrics.ts): cheap
 * statements on indexed columns, run at scrape time.
 */
import { sql, type Kysely } from 'kysely';
import type { DB } from './schema.ts';

/** The PostgreSQL schema pg-boss keeps its tables in (the crawl queue and the chores' queues). */
export const PGBOSS_SCHEMA = 'pgboss';

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

/**
 * Jobs waiting in each pg-boss queue of `schema` (states created and retry: not yet taken by a worker),
 * by queue name; queues with none waiting are absent. An empty list while pg-boss has not created its
 * schema yet (no process has started a queue).
 */
export async function queueDepths(db: Kysely<DB>, schema: string): Promise<{ queue: string; waiting: number }[]> {
  const { rows: present } = await sql<{ ok: boolean }>`SELECT to_regclass(${`${schema}.job`}) IS NOT NULL AS ok`.execute(db);
  if (!present[0]?.ok) return [];
  const { rows } = await sql<{ queue: string; waiting: number }>`SELECT name AS queue, count(*)::int AS waiting FROM ${sql.table(`${schema}.job`)} WHERE state IN ('created', 'retry') GROUP BY name ORDER BY name`.execute(db);
  return rows;
}
