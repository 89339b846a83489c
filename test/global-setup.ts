/**
 * Global setup of the `db` test project: one PostgreSQL server for the whole run and one migrated
 * template database that every test file clones (CREATE DATABASE ... TEMPLATE), so each file starts
 * from a fresh, fully migrated ledger in a few milliseconds.
 *
 * With DATABASE_URL set (CI runs the suite a second time that way) the machine's PostgreSQL is used;
 * otherwise a real embedded PostgreSQL is started in a temporary data directory.
 */
import { randomBytes } from 'node:crypto';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import pino from 'pino';
import type { TestProject } from 'vitest/node';
import { connect, openDatabase, type Database } from '../src/store/database.ts';
import { replayPipeline } from './helpers/corpus.ts';
import { migrate } from '../src/store/migrate.ts';
import { registerProviders } from '../src/ingest/connectors/registry.ts';
import { freePort } from './helpers/ports.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Connection string of a database on the test server with rights to CREATE/DROP DATABASE. */
    pgAdminUrl: string;
    /** Name of the migrated template database. */
    pgTemplate: string;
    /** Name of a migrated template holding the bundled real feeds, imported once per run. */
    pgCorpusTemplate: string;
  }
}

function withDatabase(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.toString();
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const log = pino({ level: process.env.LOG_LEVEL ?? 'warn' });
  let server: Database | undefined;
  let dataDir: string | undefined;
  let adminUrl: string;

  if (process.env.DATABASE_URL) {
    adminUrl = process.env.DATABASE_URL;
  } else {
    dataDir = await mkdtemp(path.join(tmpdir(), 'jobledger-test-'));
    // The embedded cluster runs as the postgres system user when we are root: it must reach the folder.
    await chmod(dataDir, 0o755);
    server = await openDatabase(
      { databaseUrl: undefined, dataDir, embeddedPgPort: await freePort(), statementTimeoutMs: 0, maxConnections: 2 },
      log,
    );
    adminUrl = server.connectionString;
  }

  const template = `jl_template_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();

  const teardown = async () => {
    const leftovers = await admin.query<{ datname: string }>(
      'SELECT datname FROM pg_database WHERE datname = $1 OR datname LIKE $2 ORDER BY length(datname) DESC',
      [template, `${template}_%`],
    );
    for (const row of leftovers.rows) {
      await admin.query(`DROP DATABASE IF EXISTS ${admin.escapeIdentifier(row.datname)} WITH (FORCE)`);
    }
    await admin.end();
    if (server) await server.close();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  };

  try {
    await admin.query(`CREATE DATABASE ${admin.escapeIdentifier(template)}`);
    await migrate(withDatabase(adminUrl, template));
    const migrated = connect(withDatabase(adminUrl, template), { statementTimeoutMs: 0, maxConnections: 1 });
    await registerProviders(migrated.db);
    await migrated.db.destroy();

    // The bundled real feeds, imported once through the production path, for every test that needs them.
    const corpus = `${template}_corpus`;
    await admin.query(`CREATE DATABASE ${admin.escapeIdentifier(corpus)} TEMPLATE ${admin.escapeIdentifier(template)}`);
    const started = Date.now();
    const { db } = connect(withDatabase(adminUrl, corpus), { statementTimeoutMs: 0, maxConnections: 4 });
    const pipeline = await replayPipeline(db);
    const reports = await pipeline.crawl();
    await pipeline.close();
    await db.destroy();
    const failed = reports.filter((r) => r.outcome === 'failed');
    if (failed.length > 0) throw new Error(`corpus import failed: ${failed.map((f) => `${f.targetId} (${f.outcome === 'failed' ? f.error : ''})`).join(', ')}`);
    log.info({ boards: reports.length, seconds: (Date.now() - started) / 1000 }, 'test corpus imported');

    project.provide('pgAdminUrl', adminUrl);
    project.provide('pgTemplate', template);
    project.provide('pgCorpusTemplate', corpus);
  } catch (error) {
    await teardown().catch(() => undefined);
    throw error;
  }

  return teardown;
}
