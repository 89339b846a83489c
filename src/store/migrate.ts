/**
 * Schema migrations: numbered plain-SQL files in `src/store/migrations/` (`NNN.do.<name>.sql`),
 * applied in order by Kysely's `Migrator`, which records each in the `kysely_migration` table.
 *
 * Every pending file and its record are written in ONE transaction (the Migrator's behaviour on
 * PostgreSQL, whose DDL is transactional): a process killed at any point, between a file's SQL and its
 * record included, leaves the database as it was before, and the next start applies the same files
 * again. Why Kysely's Migrator: it is the well-kept library that does this by design (and Kysely is
 * our query builder already); postgrator, used before, runs a file and then inserts its version row
 * as two statements outside any transaction, so one kill between them left a database that could
 * never migrate again ("relation ... already exists"). A session advisory lock serializes concurrent
 * starters (several API processes, a worker and a CLI command may start together).
 *
 * Databases migrated by postgrator keep its `schemaversion` table; the first run of this code copies
 * its rows into `kysely_migration` (same lock, one transaction), so nothing runs twice.
 *
 * An applied migration file must never change: the database would silently differ from what a fresh
 * one gets. Kysely's Migrator records names only, so the SHA-256 of each applied file (line endings
 * normalised, so a CRLF checkout is the same file) is kept in `jobledger_migration_checksum`, and a run
 * that finds an applied file edited refuses before it applies anything, naming the file. A database
 * from before this check records the files as they are on its first run (trust on first use).
 */
import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Kysely, Migrator, PostgresDialect, sql, type Migration, type MigrationProvider } from 'kysely';
import pg from 'pg';
import type { Logger } from 'pino';

const MIGRATIONS_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), 'migrations');
const MIGRATION_FILE = /^(\d{3})\.do\.[a-z0-9-]+\.sql$/;
/** Arbitrary constant naming the migration lock (any process of this service uses the same one). */
const MIGRATION_LOCK_ID = 4_711_001;

export interface MigrateOptions {
  /**
   * Test hook (fault tests only, never an operator setting): after the SQL of the migration file of
   * this name has run, and before its record is written, log `migration paused` and wait until the
   * process is killed.
   */
  pauseAfter?: string;
  /** Test hook: read the migration files from this folder instead of `src/store/migrations`. */
  migrationsDir?: string;
}

/** The SHA-256 (hex) of a migration file's text with CRLF line endings read as LF. */
function migrationChecksum(text: string): string {
  return createHash('sha256').update(text.replace(/\r\n/g, '\n')).digest('hex');
}

/** Checksums of applied migrations, the table this module owns beside Kysely's `kysely_migration`. */
const CHECKSUM_TABLE = 'jobledger_migration_checksum';

/**
 * Refuse when a migration file recorded as applied has changed since, and record the checksum of every
 * applied file that has none yet (files applied before this check existed, and those just applied).
 * @param phase `verify` before migrating (throws on a changed file), `record` after.
 * @throws Error naming each applied file whose text differs from what was applied.
 */
async function checkAppliedFiles(client: pg.Client, dir: string, phase: 'verify' | 'record'): Promise<void> {
  await client.query(`CREATE TABLE IF NOT EXISTS ${CHECKSUM_TABLE} (name text PRIMARY KEY, sha256 text NOT NULL, recorded_at timestamptz NOT NULL DEFAULT now())`);
  const { rows } = await client.query<{ applied: boolean }>("SELECT to_regclass('kysely_migration') IS NOT NULL AS applied");
  if (!rows[0]?.applied) return;
  const applied = await client.query<{ name: string; sha256: string | null }>(
    `SELECT m.name, c.sha256 FROM kysely_migration m LEFT JOIN ${CHECKSUM_TABLE} c USING (name) ORDER BY m.name`,
  );
  const edited: string[] = [];
  for (const row of applied.rows) {
    let text: string;
    try {
      text = await readFile(path.join(dir, row.name), 'utf8');
    } catch {
      continue; // a missing applied file is the Migrator's own refusal ("corrupted migrations")
    }
    const sum = migrationChecksum(text);
    if (row.sha256 === null) {
      if (phase === 'record') await client.query(`INSERT INTO ${CHECKSUM_TABLE} (name, sha256) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING`, [row.name, sum]);
    } else if (row.sha256 !== sum) {
      edited.push(row.name);
    }
  }
  if (edited.length > 0) {
    throw new Error(
      `database migration refused: ${edited.join(', ')} changed after this database applied ${edited.length === 1 ? 'it' : 'them'}; ` +
        'restore the file as it was and put the change in a new migration file (nothing was applied)',
    );
  }
}

/** The migration files, by name, in order; each runs its SQL as one multi-statement query. */
function sqlFileProvider(log: Logger | undefined, options: MigrateOptions, dir: string): MigrationProvider {
  return {
    async getMigrations() {
      const files = (await readdir(dir)).filter((f) => f.endsWith('.sql')).sort();
      const misnamed = files.filter((f) => !MIGRATION_FILE.test(f));
      if (misnamed.length > 0) throw new Error(`migration files must be named NNN.do.<name>.sql: ${misnamed.join(', ')}`);
      const migrations: Record<string, Migration> = {};
      for (const file of files) {
        migrations[file] = {
          async up(db) {
            await sql.raw(await readFile(path.join(dir, file), 'utf8')).execute(db);
            if (options.pauseAfter === file) {
              log?.warn({ migration: file }, 'migration paused');
              await new Promise(() => undefined);
            }
          },
        };
      }
      return migrations;
    },
  };
}

/** Copy postgrator's record of applied versions into Kysely's table, once, before the first Kysely run. */
async function adoptPostgratorHistory(client: pg.Client, dir: string): Promise<void> {
  const { rows } = await client.query<{ legacy: boolean; current: boolean }>(
    "SELECT to_regclass('schemaversion') IS NOT NULL AS legacy, to_regclass('kysely_migration') IS NOT NULL AS current",
  );
  if (!rows[0]?.legacy || rows[0].current) return;
  const files = (await readdir(dir)).filter((f) => MIGRATION_FILE.test(f));
  const applied = await client.query<{ version: string; run_at: Date | null }>('SELECT version::text AS version, run_at FROM schemaversion WHERE version > 0 ORDER BY version');
  await client.query('BEGIN');
  try {
    // Kysely's own table definition (kysely/dist/esm/migration/migrator.js).
    await client.query('CREATE TABLE kysely_migration (name varchar(255) NOT NULL PRIMARY KEY, timestamp varchar(255) NOT NULL)');
    for (const row of applied.rows) {
      const file = files.find((f) => Number(MIGRATION_FILE.exec(f)![1]) === Number(row.version));
      if (!file) throw new Error(`schemaversion records version ${row.version}, for which no migration file exists`);
      await client.query('INSERT INTO kysely_migration (name, timestamp) VALUES ($1, $2)', [file, (row.run_at ?? new Date()).toISOString()]);
    }
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  }
}

/**
 * Bring the database at `connectionString` to the newest schema version.
 * @returns the file names applied by this call (empty when already current).
 * @throws Error naming the failing migration file; nothing of the run is then applied. Error naming
 *   each applied migration file that was edited since; then nothing is run at all.
 */
export async function migrate(connectionString: string, log?: Logger, options: MigrateOptions = {}): Promise<string[]> {
  const client = new pg.Client({ connectionString, application_name: 'jobledger-migrate' });
  // A session lost under the lock fails the query in flight; without a listener it would end the process.
  client.on('error', () => undefined);
  await client.connect();
  const pool = new pg.Pool({ connectionString, max: 1, application_name: 'jobledger-migrate' });
  pool.on('connect', (c) => c.on('error', () => undefined));
  pool.on('error', () => undefined);
  const db = new Kysely<unknown>({ dialect: new PostgresDialect({ pool }) });
  try {
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_ID]);
    const dir = options.migrationsDir ?? MIGRATIONS_DIR;
    await adoptPostgratorHistory(client, dir);
    await checkAppliedFiles(client, dir, 'verify');
    const migrator = new Migrator({ db, provider: sqlFileProvider(log, options, dir) });
    const { error, results } = await migrator.migrateToLatest();
    if (error) {
      const failed = results?.find((r) => r.status === 'Error')?.migrationName;
      throw new Error(`database migration failed${failed ? ` in ${failed}` : ''} (nothing of this run was applied): ${(error as Error).message}`, { cause: error });
    }
    await checkAppliedFiles(client, dir, 'record');
    const names = (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
    if (names.length > 0) log?.info({ migrations: names }, 'database migrated');
    return names;
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_ID]).catch(() => undefined);
    await client.end().catch(() => undefined);
    await db.destroy().catch(() => undefined);
  }
}
