/**
 * A bulk import leaves the planner statistics current (src/main/import.ts, store/ledger.ts
 * analyzeAfterBulkWrite): `jobledger ingest` into an empty ledger analyzes the tables it filled before
 * it exits, so a crawl that starts right after it does not plan on the empty tables' statistics.
 */
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { logLines, runCli } from './helpers/cli-process.ts';
import { useTestDatabase } from './helpers/database.ts';

const CRAWLED_TABLES = ['jobs', 'job_enrichments', 'companies', 'change_events'];

describe('jobledger ingest into an empty ledger', () => {
  const t = useTestDatabase();

  it('analyzes the tables it filled before it exits', async () => {
    // Autovacuum off on them, so an analysis of its own during the import cannot stand in for the import's.
    for (const table of CRAWLED_TABLES) await sql`ALTER TABLE ${sql.table(table)} SET (autovacuum_enabled = false)`.execute(t.db);
    const statistics = async () =>
      (
        await sql<{ relname: string; last_analyze: Date | null; estimated: number }>`
          SELECT s.relname, s.last_analyze, c.reltuples::bigint AS estimated
            FROM pg_stat_user_tables s JOIN pg_class c ON c.oid = s.relid
           WHERE s.relname = ANY(${CRAWLED_TABLES}::text[]) ORDER BY s.relname`.execute(t.db)
      ).rows;
    expect((await statistics()).map((s) => s.last_analyze)).toEqual([null, null, null, null]);

    const run = await runCli(['ingest', '--demo'], { DATABASE_URL: t.url });
    expect(run.code, run.output).toBe(0);
    const [refreshed] = logLines(run.output, 'planner statistics refreshed after the import');
    expect(refreshed, run.output).toBeDefined();
    const tables = refreshed!['tables'] as string[];
    expect(tables).toContain('jobs');

    const after = await statistics();
    for (const table of tables) expect(after.find((s) => s.relname === table)?.last_analyze, table).toBeInstanceOf(Date);
    // The planner's row count of jobs is the table's (ANALYZE reads every page of a table this small).
    const counted = await t.db.selectFrom('jobs').select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow();
    expect(Number(after.find((s) => s.relname === 'jobs')!.estimated)).toBe(Number(counted.n));
  }, 600_000);
});
