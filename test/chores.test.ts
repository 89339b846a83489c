/**
 * Scheduled chores run once per cluster (issue 20): two processes' worth of chore runners (each its own
 * pg-boss instance and connection pool) on one real PostgreSQL schedule the same chores; each chore's
 * start-up job is taken by exactly one of them, and the report snapshots every process serves are the
 * one shared set of rows.
 */
import { sql } from 'kysely';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { choreQueue, clusterChores, cronEvery, startChores, type RunningChores } from '../src/chores/chores.ts';
import { defaultReportSettings } from '../src/reports/snapshots.ts';
import { createTestDatabase, type TestDatabase } from './helpers/database.ts';

describe('scheduled chores', () => {
  let t: TestDatabase;
  const running: RunningChores[] = [];

  beforeAll(async () => {
    t = await createTestDatabase({ corpus: true });
  });
  afterAll(async () => {
    await Promise.all(running.map((r) => r.stop()));
    await t.drop();
  });

  it('rounds intervals to cron expressions', () => {
    expect(cronEvery(900)).toBe('*/15 * * * *');
    expect(cronEvery(10)).toBe('*/1 * * * *');
    expect(cronEvery(3600)).toBe('0 */1 * * *');
    expect(cronEvery(86_400)).toBe('0 0 * * *');
  });

  it('two processes schedule the same chores; each runs once, and the snapshots are shared', async () => {
    const log = pino({ level: 'silent' });
    const runs: Record<string, string[]> = {};
    for (const process of ['a', 'b']) {
      const chores = clusterChores({ db: t.db, reports: defaultReportSettings(900), retention: { changeEventDays: 90, crawlRunDays: 90 } }).map((c) => ({
        ...c,
        run: async (now: Date) => {
          (runs[c.name] ??= []).push(process);
          return c.run(now);
        },
      }));
      running.push(await startChores({ connectionString: t.url, log, chores, applicationName: `chores-${process}` }));
    }
    // Wait until both start-up jobs ran and no job of either queue is left queued or active.
    for (let i = 0; ; i++) {
      const { rows } = await sql<{ n: number }>`SELECT count(*)::int AS n FROM pgboss.job WHERE name LIKE 'jobledger-chore-%' AND state IN ('created', 'retry', 'active')`.execute(t.db);
      if ((runs['report-snapshots']?.length ?? 0) > 0 && (runs.retention?.length ?? 0) > 0 && rows[0]!.n === 0) break;
      expect(i, 'the chores never ran').toBeLessThan(300);
      await new Promise((r) => setTimeout(r, 100));
    }
    // Each ran once in the cluster, however many processes started it.
    expect(runs['report-snapshots']).toHaveLength(1);
    expect(runs.retention).toHaveLength(1);
    const { rows: jobs } = await sql<{ name: string; n: number }>`SELECT name, count(*)::int AS n FROM pgboss.job WHERE name LIKE 'jobledger-chore-%' GROUP BY name ORDER BY name`.execute(t.db);
    expect(jobs).toEqual([
      { name: choreQueue('report-snapshots'), n: 1 },
      { name: choreQueue('retention'), n: 1 },
    ]);
    // One schedule per chore for the whole cluster.
    const { rows: schedules } = await sql<{ name: string; cron: string }>`SELECT name, cron FROM pgboss.schedule WHERE name LIKE 'jobledger-chore-%' ORDER BY name`.execute(t.db);
    expect(schedules).toEqual([
      { name: choreQueue('report-snapshots'), cron: '*/15 * * * *' },
      { name: choreQueue('retention'), cron: '0 */1 * * *' },
    ]);
    // The snapshots every process serves are rows in the shared database.
    const snapshots = await t.db.selectFrom('report_snapshots').select('name').execute();
    expect(snapshots.length).toBeGreaterThan(0);
  });
});
