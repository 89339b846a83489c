import { describe, expect, it } from 'vitest';
import { readdir } from 'node:fs/promises';
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
});
