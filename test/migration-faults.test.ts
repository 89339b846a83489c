/**
 * A migration killed half-way (issue 13, defect 2): `kill -9` of a real `jobledger migrate` while
 * a migration's SQL has run and its record is not written yet (the test hook
 * JOBLEDGER_TEST_PAUSE_MIGRATION pauses exactly there) leaves a database the next start migrates.
 */
import { randomBytes } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { runCli, startCli } from './helpers/cli-process.ts';

describe('a migration killed between its SQL and its record', () => {
  const adminUrl = inject('pgAdminUrl');
  const name = `${inject('pgTemplate')}_mig_${randomBytes(3).toString('hex')}`;
  const url = (() => {
    const parsed = new URL(adminUrl);
    parsed.pathname = `/${name}`;
    return parsed.toString();
  })();
  const admin = async <T>(fn: (client: pg.Client) => Promise<T>): Promise<T> => {
    const client = new pg.Client({ connectionString: adminUrl });
    await client.connect();
    try {
      return await fn(client);
    } finally {
      await client.end();
    }
  };
  afterAll(async () => {
    await admin((c) => c.query(`DROP DATABASE IF EXISTS ${c.escapeIdentifier(name)} WITH (FORCE)`));
  });

  it('leaves nothing half-applied, and the next start migrates', async () => {
    await admin((c) => c.query(`CREATE DATABASE ${c.escapeIdentifier(name)}`));
    const env = { DATABASE_URL: url };

    // On an empty database every file is pending: pause after the fourth one's SQL, then kill -9.
    const first = startCli(['migrate'], { ...env, JOBLEDGER_TEST_PAUSE_MIGRATION: '004.do.sync-feeds.sql' });
    await first.waitFor('"msg":"migration paused"');
    const probe = new pg.Client({ connectionString: url });
    await probe.connect();
    // The SQL of 001-004 ran in the paused session, uncommitted: another session sees none of it.
    const during = await probe.query("SELECT to_regclass('jobs') IS NOT NULL AS jobs, to_regclass('change_feed_clock') IS NOT NULL AS clock");
    expect(during.rows[0]).toEqual({ jobs: false, clock: false });
    first.child.kill('SIGKILL');
    expect((await first.exited).signal).toBe('SIGKILL');

    const second = await runCli(['migrate'], env);
    expect(second.code, second.output).toBe(0);
    const applied = await probe.query<{ name: string }>('SELECT name FROM kysely_migration ORDER BY name');
    // Every migration file, in order: the first eight by name, then whatever later issues added.
    const files = readdirSync(fileURLToPath(new URL('../src/store/migrations/', import.meta.url))).filter((f) => f.endsWith('.sql')).sort();
    expect(files.slice(0, 8)).toEqual([
      '001.do.ledger.sql',
      '002.do.access.sql',
      '003.do.listing-indexes.sql',
      '004.do.sync-feeds.sql',
      '005.do.metering.sql',
      '006.do.reports-and-directory.sql',
      '007.do.aggregators-and-optouts.sql',
      '008.do.country-lock.sql',
    ]);
    expect(applied.rows.map((r) => r.name)).toEqual(files);
    const after = await probe.query("SELECT to_regclass('jobs') IS NOT NULL AS jobs, to_regclass('change_feed_clock') IS NOT NULL AS clock");
    expect(after.rows[0]).toEqual({ jobs: true, clock: true });
    // And a third start finds nothing to do.
    const third = await runCli(['migrate'], env);
    expect(third.code).toBe(0);
    expect(third.output).not.toContain('database migrated');
    await probe.end();
  }, 300_000);
});
