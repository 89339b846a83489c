/**
 * A fresh, migrated ledger per test file, cloned from the template built by `test/global-setup.ts`.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import type { Kysely } from 'kysely';
import { afterAll, beforeAll, inject } from 'vitest';
import { connect } from '../../src/store/database.ts';
import type { DB } from '../../src/store/schema.ts';

export interface TestDatabase {
  db: Kysely<DB>;
  pool: pg.Pool;
  /** Connection string of this test database. */
  url: string;
  name: string;
  /** Close the pool and drop the database. */
  drop(): Promise<void>;
}

/**
 * The database of a test file or `describe` block: cloned (as {@link createTestDatabase} does) before its
 * tests, dropped after them. Its fields are set once that `beforeAll` has run, so read them in tests
 * and hooks, not at module level.
 */
export function useTestDatabase(options: Parameters<typeof createTestDatabase>[0] = {}): TestDatabase {
  const t = {} as TestDatabase;
  beforeAll(async () => {
    Object.assign(t, await createTestDatabase(options));
  });
  afterAll(async () => {
    await t.drop();
  });
  return t;
}

/** Clone the migrated template (or, with `corpus`, the imported real feeds) into a new database and connect to it. */
export async function createTestDatabase(
  options: { statementTimeoutMs?: number; maxConnections?: number; corpus?: boolean } = {},
): Promise<TestDatabase> {
  const adminUrl = inject('pgAdminUrl');
  const template = options.corpus ? inject('pgCorpusTemplate') : inject('pgTemplate');
  const name = `${inject('pgTemplate')}_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${admin.escapeIdentifier(name)} TEMPLATE ${admin.escapeIdentifier(template)}`);
  } finally {
    await admin.end();
  }
  const parsed = new URL(adminUrl);
  parsed.pathname = `/${name}`;
  const url = parsed.toString();
  const { db, pool } = connect(url, {
    statementTimeoutMs: options.statementTimeoutMs ?? 0,
    maxConnections: options.maxConnections ?? 10,
    applicationName: 'jobledger-test',
  });
  return {
    db,
    pool,
    url,
    name,
    async drop() {
      await db.destroy();
      const dropper = new pg.Client({ connectionString: adminUrl });
      await dropper.connect();
      try {
        await dropper.query(`DROP DATABASE IF EXISTS ${dropper.escapeIdentifier(name)} WITH (FORCE)`);
      } finally {
        await dropper.end();
      }
    },
  };
}
