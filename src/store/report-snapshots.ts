/**
 * The report snapshot repository (table `report_snapshots`, migration 006): one row per report, its
 * body as JSON, when it was measured and how long the measurement took. What a report measures is
 * `src/reports/`; this module only stores and reads the results.
 */
import type { Kysely } from 'kysely';
import type { DB } from './schema.ts';

/** A stored snapshot. */
export interface ReportSnapshotRow {
  data: unknown;
  measured_at: Date;
}

/** Replace the snapshot of report `name` (`data` is the serialized body). */
export async function saveReportSnapshot(db: Kysely<DB>, snapshot: { name: string; data: string; measuredAt: Date; durationMs: number }): Promise<void> {
  const { name, data, measuredAt, durationMs } = snapshot;
  await db
    .insertInto('report_snapshots')
    .values({ name, data, measured_at: measuredAt, duration_ms: durationMs })
    .onConflict((oc) => oc.column('name').doUpdateSet({ data, measured_at: measuredAt, duration_ms: durationMs }))
    .execute();
}

/** The snapshot of report `name`, or undefined when it was never measured. */
export async function readReportSnapshot(db: Kysely<DB>, name: string): Promise<ReportSnapshotRow | undefined> {
  return db.selectFrom('report_snapshots').select(['data', 'measured_at']).where('name', '=', name).executeTakeFirst();
}

/** When each stored report was measured (for the service status). */
export async function reportSnapshotTimes(db: Kysely<DB>): Promise<Array<{ name: string; measured_at: Date }>> {
  return db.selectFrom('report_snapshots').select(['name', 'measured_at']).execute();
}
