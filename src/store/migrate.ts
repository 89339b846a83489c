/**
 * Schema migrations: numbered plain-SQL files in `src/store/migrations/` (`NNN.do.<name>.sql`),
 * applied in order by postgrator, which records each in the `schemaversion` table and refuses a
 * changed file (checksum). A PostgreSQL advisory lock serializes concurrent starters (several API
 * processes, a worker and a CLI command may start together); each file runs as one implicit
 * transaction because it is sent as one multi-statement query.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import Postgrator from 'postgrator';
import type { Logger } from 'pino';

const MIGRATIONS_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), 'migrations');
/** Arbitrary constant naming the migration lock (any process of this service uses the same one). */
const MIGRATION_LOCK_ID = 4_711_001;

/**
 * Bring the database at `connectionString` to the newest schema version.
 * @returns the file names applied by this call (empty when already current).
 * @throws Error naming the failing migration file.
 */
export async function migrate(connectionString: string, log?: Logger): Promise<string[]> {
  const client = new pg.Client({ connectionString, application_name: 'jobledger-migrate' });
  await client.connect();
  try {
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_ID]);
    const database = (await client.query<{ db: string }>('SELECT current_database() AS db')).rows[0]?.db;
    const postgrator = new Postgrator({
      migrationPattern: path.join(MIGRATIONS_DIR, '*.sql'),
      driver: 'pg',
      database,
      schemaTable: 'schemaversion',
      execQuery: (query: string) => client.query(query),
    });
    const applied = await postgrator.migrate();
    const names = applied.map((m) => m.filename);
    if (names.length > 0) log?.info({ migrations: names }, 'database migrated');
    return names;
  } catch (error) {
    const failed = (error as { appliedMigrations?: unknown[] }).appliedMigrations;
    throw new Error(`database migration failed${failed ? ` after ${failed.length} applied` : ''}: ${(error as Error).message}`, { cause: error });
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_ID]).catch(() => undefined);
    await client.end();
  }
}
