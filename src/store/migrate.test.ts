import { describe, expect, it } from 'vitest';
import { cp, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { sql } from 'kysely';
import { useTestDatabase } from '../../test/helpers/database.ts';
import { migrate } from './migrate.ts';

const MIGRATIONS_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), 'migrations');

describe('migrations', () => {
  const t = useTestDatabase();

  it('leave a current database unchanged when run again', async () => {
    expect(await migrate(t.url)).toEqual([]);
  });

  it('adopt the record of a database postgrator migrated, and run nothing twice', async () => {
    // postgrator's table and rows (version, name, md5, run_at), as an earlier release left them: one
    // row per file this database has applied (the cloned template has them all; postgrator's era
    // ended at 008, later files stand for what a release of that era would have had).
    const versions = (await readdir(MIGRATIONS_DIR)).filter((f) => /^\d{3}\.do\./.test(f)).map((f) => Number(f.slice(0, 3)));
    expect(versions.length).toBeGreaterThanOrEqual(8);
    await sql`DROP TABLE kysely_migration, kysely_migration_lock`.execute(t.db);
    await sql`CREATE TABLE schemaversion (version bigint PRIMARY KEY, name text, md5 text, run_at timestamptz)`.execute(t.db);
    for (const version of versions) {
      await sql`INSERT INTO schemaversion VALUES (${version}, ${`m${version}`}, 'x', now())`.execute(t.db);
    }
    expect(await migrate(t.url)).toEqual([]);
    const { rows } = await sql<{ n: number }>`SELECT count(*)::int AS n FROM kysely_migration`.execute(t.db);
    expect(rows[0]?.n).toBe(versions.length);
  });

  it('seed the four plans of the spec with their allowances', async () => {
    const plans = await t.db.selectFrom('plans').selectAll().orderBy('sort_order').execute();
    expect(plans.map((p) => [p.id, p.price_cents, p.records_per_month, p.requests_per_day, p.requests_per_minute])).toEqual([
      ['explore', 0, 1000, 5000, 30],
      ['growth', 8000, 60000, 100000, 120],
      ['signal', 29900, 400000, 400000, 300],
      ['scale', 89900, 2000000, 1000000, 600],
    ]);
    expect(plans.find((p) => p.id === 'growth')?.entitlements).toEqual(['delta_feed']);
    expect(plans.find((p) => p.id === 'signal')?.entitlements).toEqual(['delta_feed', 'bulk_export']);
  });

  it('use the simple text search configuration (no stemming)', async () => {
    const { rows } = await sql<{ v: string }>`SELECT to_tsvector('simple', 'Engineers engineering')::text AS v`.execute(t.db);
    expect(rows[0]?.v).toBe("'engineering':2 'engineers':1");
  });

  describe('refuse an applied file that was edited', () => {
    /** A copy of the migration files the test may change; the real ones stay untouched. */
    async function copyOfMigrations(): Promise<string> {
      const dir = await mkdtemp(path.join(tmpdir(), 'jobledger-migrations-'));
      await cp(MIGRATIONS_DIR, dir, { recursive: true });
      return dir;
    }

    it('naming the file, and apply nothing of the run', async () => {
      const dir = await copyOfMigrations();
      try {
        const first = path.join(dir, '001.do.ledger.sql');
        await writeFile(first, `${await readFile(first, 'utf8')}\nALTER TABLE jobs ADD COLUMN edited_later int;\n`);
        await writeFile(path.join(dir, '999.do.newer.sql'), 'CREATE TABLE newer_table (x int);');
        await expect(migrate(t.url, undefined, { migrationsDir: dir })).rejects.toThrow(
          'database migration refused: 001.do.ledger.sql changed after this database applied it',
        );
        const { rows } = await sql<{ present: boolean }>`SELECT to_regclass('newer_table') IS NOT NULL AS present`.execute(t.db);
        expect(rows[0]?.present).toBe(false);
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    });

    it('but read a CRLF checkout of the same file as the same file', async () => {
      const dir = await copyOfMigrations();
      try {
        const first = path.join(dir, '001.do.ledger.sql');
        await writeFile(first, (await readFile(first, 'utf8')).replace(/\n/g, '\r\n'));
        expect(await migrate(t.url, undefined, { migrationsDir: dir })).toEqual([]);
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    });

    it('recording the files of a database migrated before the check on its first run', async () => {
      await sql`DROP TABLE jobledger_migration_checksum`.execute(t.db);
      expect(await migrate(t.url)).toEqual([]);
      const files = (await readdir(MIGRATIONS_DIR)).filter((f) => /^\d{3}\.do\./.test(f));
      const { rows } = await sql<{ n: number }>`SELECT count(*)::int AS n FROM jobledger_migration_checksum`.execute(t.db);
      expect(rows[0]?.n).toBe(files.length);
    });
  });
});
