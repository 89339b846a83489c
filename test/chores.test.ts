/**
 * Scheduled chores run once per cluster (issue 20): two processes' worth of chore runners (each its own
 * pg-boss instance and connection pool) on one real PostgreSQL schedule the same chores; each chore's
 * start-up job is taken by exactly one of them, a further job of the same chore soon after (the cron
 * occurrence, which pg-boss does not deduplicate against the start-up job) runs nothing, and the
 * report snapshots every process serves are the one shared set of rows.
 */
import { sql } from 'kysely';
import { PgBoss } from 'pg-boss';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { choreQueue, clusterChores, cronEvery, startChores, type RunningChores } from '../src/chores/chores.ts';
import { defaultReportSettings } from '../src/reports/snapshots.ts';
import { claimChoreRun } from '../src/store/chore-runs.ts';
import { createTestDatabase, type TestDatabase } from './helpers/database.ts';
import { PGBOSS_SCHEMA } from '../src/store/operations.ts';

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
      running.push(await startChores({ connectionString: t.url, db: t.db, log, chores, applicationName: `chores-${process}` }));
    }
    const settled = async () => {
      for (let i = 0; ; i++) {
        const { rows } = await sql<{ n: number }>`SELECT count(*)::int AS n FROM pgboss.job WHERE name LIKE 'jobledger-chore-%' AND state IN ('created', 'retry', 'active')`.execute(t.db);
        if ((runs['report-snapshots']?.length ?? 0) > 0 && (runs.retention?.length ?? 0) > 0 && (runs['facet-snapshot']?.length ?? 0) > 0 && rows[0]!.n === 0) return;
        expect(i, 'the chores never ran').toBeLessThan(300);
        await new Promise((r) => setTimeout(r, 100));
      }
    };
    await settled();
    // Each ran once in the cluster, however many processes started it.
    expect(runs['report-snapshots']).toHaveLength(1);
    expect(runs['facet-snapshot']).toHaveLength(1);
    expect(runs.retention).toHaveLength(1);
    // A cron occurrence minutes later is a job of its own: it is taken, and runs nothing.
    const boss = new PgBoss({ connectionString: t.url, schema: PGBOSS_SCHEMA, max: 1, supervise: false, schedule: false });
    await boss.start();
    await boss.send(choreQueue('report-snapshots'), {});
    await boss.stop({ graceful: false, close: true });
    await settled();
    expect(runs['report-snapshots']).toHaveLength(1);
    // One schedule per chore for the whole cluster.
    const { rows: schedules } = await sql<{ name: string; cron: string }>`SELECT name, cron FROM pgboss.schedule WHERE name LIKE 'jobledger-chore-%' ORDER BY name`.execute(t.db);
    expect(schedules).toEqual([
      { name: choreQueue('facet-snapshot'), cron: '*/5 * * * *' },
      { name: choreQueue('report-snapshots'), cron: '*/15 * * * *' },
      { name: choreQueue('retention'), cron: '0 */1 * * *' },
    ]);
    // The snapshots every process serves are rows in the shared database.
    const snapshots = await t.db.selectFrom('report_snapshots').select('name').execute();
    expect(snapshots.map((s) => s.name)).toEqual(expect.arrayContaining(['facets', 'stats', 'freshness']));
  });

  it('claims a chore once per window, whoever asks', async () => {
    const at = new Date('2026-11-28T10:00:00Z');
    const later = (seconds: number) => new Date(at.getTime() + seconds * 1000);
    const claims = await Promise.all([claimChoreRun(t.db, 'probe', at, 450), claimChoreRun(t.db, 'probe', at, 450)]);
    expect(claims.filter(Boolean)).toHaveLength(1);
    expect(await claimChoreRun(t.db, 'probe', later(449), 450)).toBe(false);
    expect(await claimChoreRun(t.db, 'probe', later(450), 450)).toBe(true);
  });
});
